// The heap a test measures: V8's collector exposed at run time (tests run without --expose-gc), then the heap
// in use after full collections, so that only what is still reachable counts.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Main-thread heap after full collections, in bytes. */
export function settledHeap(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/**
 * Pulls every batch of a streamed sheet, and takes the settled heap over `base` once half of `expected` rows
 * have gone by: what the stream holds midway. Gives that and the rows seen.
 */
export function heapHalfway(batches: Iterable<{ length: number }>, expected: number, base: number): { heap: number; rows: number } {
  let rows = 0;
  let heap = 0;
  for (const batch of batches) {
    rows += batch.length;
    if (rows >= expected / 2 && heap === 0) heap = settledHeap() - base;
  }
  return { heap, rows };
}

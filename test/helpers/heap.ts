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

// Memory given back after a busy spell. V8 grows a heap under load and keeps what it grew until its next
// full collection, which an idle process never runs: a server that has just served a burst would sit on
// a hundred megabytes or more of garbage and empty pages. One full collection once runs stop gives most of
// them back; a job process that has served many runs is replaced instead (process-pool.ts), since what its
// allocator keeps after a collection only goes with the process.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null | undefined;

/**
 * V8's full collection, made available at run time as `--expose-gc` would (the flag reaches contexts made
 * after it is set); null if the platform refuses, and then nothing is collected early.
 */
export function fullGc(): (() => void) | null {
  if (gc === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const fn: unknown = runInNewContext('gc');
      gc = typeof fn === 'function' ? (fn as () => void) : null;
    } catch {
      gc = null;
    }
  }
  return gc;
}

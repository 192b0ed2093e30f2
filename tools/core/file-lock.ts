// A lock between the processes that share DATA_DIR: a file created with O_EXCL, held only for the few
// synchronous milliseconds of a read-modify-write of a small JSON file. A lock older than `staleMs` was left by
// a process that died holding it and is taken over.
import { closeSync, openSync, statSync, unlinkSync, writeSync } from 'node:fs';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` (synchronous, short) while holding the lock file `path`; throws when it stays held past `waitMs`. */
export async function withFileLock<T>(path: string, fn: () => T, { staleMs = 10_000, waitMs = 5_000 } = {}): Promise<T> {
  const deadline = performance.now() + waitMs;
  for (;;) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    try {
      if (Date.now() - statSync(path).mtimeMs > staleMs) {
        unlinkSync(path);
        continue;
      }
    } catch {
      continue; // released between the two calls
    }
    if (performance.now() > deadline) throw new Error(`The lock ${path} is held by another process.`);
    await sleep(2 + Math.random() * 10);
  }
  try {
    return fn();
  } finally {
    try {
      unlinkSync(path);
    } catch {
      // taken over as stale: nothing left to release
    }
  }
}

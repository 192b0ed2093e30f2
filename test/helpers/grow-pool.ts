// A pool of at most two processes of the grow job (grow-job.ts), for the tests of how job processes are
// collected, replaced and placed: `grow(mb)` runs one job (as `toolId`; held until the file `until` exists,
// if given), `pidOf` tells which process ran it,
// `preparedBy` which tools that process prepared. Its processes are replaced after `collections` full
// collections, fewer than the service's COLLECTIONS_BEFORE_REPLACE: each large grow job takes a second.
import { createProcessPool, type PoolOptions } from '../../tools/core/process-pool.ts';

const GROW = new URL('./grow-job.ts', import.meta.url);

export function growPool(more: Partial<PoolOptions> = {}) {
  const o: PoolOptions = { module: GROW, maxProcesses: 2, heapMb: 576, youngMb: 24, memoryMb: 512, idleMs: 30_000, startMs: 30_000, collectionsBeforeReplace: 3, ...more };
  const pool = createProcessPool(o);
  const grow = (mb: number, toolId = 'split-rows', until?: string) =>
    pool.run({ t: 'job', toolId, opts: {}, lang: 'es', download: true, names: ['grow.csv'] }, [new TextEncoder().encode(until ? `${mb} ${until}` : String(mb))], { timeoutMs: 60_000, maxResultBytes: 1024 });
  const answer = async (reply: ReturnType<typeof grow>) => new TextDecoder().decode((await reply).files[0]).split(' ');
  const pidOf = async (reply: ReturnType<typeof grow>) => (await answer(reply))[0];
  const preparedBy = async (reply: ReturnType<typeof grow>) => (await answer(reply))[2].split(',').filter(Boolean).sort();
  return { pool, grow, pidOf, preparedBy, collections: o.collectionsBeforeReplace! };
}

// A job process asked for a full collection after each large job is replaced once it has collected
// COLLECTIONS_BEFORE_REPLACE times (process-pool.ts says why): the runs after it go to a new process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfig } from '../../tools/core/config.ts';
import { createJobRunner } from '../../tools/core/jobs.ts';
import { COLLECTIONS_BEFORE_REPLACE } from '../../tools/core/process-pool.ts';

const GROW = new URL('../helpers/grow-job.ts', import.meta.url);

test('job processes: one that has collected COLLECTIONS_BEFORE_REPLACE times after large jobs is replaced at the next, and small jobs never make it collect', async () => {
  // Collected past max(64 MB, JOB_MEMORY_MB / 8) = 64 MB; stopped past 512 MB.
  const runner = createJobRunner(parseConfig({ MAX_JOBS: '1', JOB_MEMORY_MB: '512' }), 'workers', GROW);
  const pidOf = async (mb: number) => {
    const r = await runner.run({ toolId: 'split-rows', files: [{ name: 'grow.csv', bytes: new TextEncoder().encode(String(mb)) }], opts: {}, lang: 'es', download: true });
    return new TextDecoder().decode(r.files[0].bytes).split(' ')[0];
  };
  try {
    const small = [await pidOf(1), await pidOf(1), await pidOf(1), await pidOf(1), await pidOf(1)];
    assert.equal(new Set(small).size, 1, `small jobs stay on one process: ${small}`);
    const large: string[] = [];
    for (let i = 0; i < COLLECTIONS_BEFORE_REPLACE + 2; i++) large.push(await pidOf(128));
    assert.deepEqual(large.slice(0, COLLECTIONS_BEFORE_REPLACE + 1), Array(COLLECTIONS_BEFORE_REPLACE + 1).fill(small[0]), `collected after each of the first ${COLLECTIONS_BEFORE_REPLACE}: ${large}`);
    assert.notEqual(large[COLLECTIONS_BEFORE_REPLACE + 1], small[0], `replaced after the next: ${large}`);
  } finally {
    await runner.close(1000);
  }
});

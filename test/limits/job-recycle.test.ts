// A job process asked for a full collection after each large job is replaced once it has collected
// COLLECTIONS_BEFORE_REPLACE times (process-pool.ts says why): the runs after it go to a new process. A run
// that comes while the only process collects waits for it instead of starting another; where the bound leaves
// room, a process due for replacement serves on until its successor is ready.
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { parseConfig } from '../../tools/core/config.ts';
import { createJobRunner, JOB_RECLAIM_AFTER_MS, RECLAIM_AFTER_MS } from '../../tools/core/jobs.ts';
import { COLLECTIONS_BEFORE_REPLACE, RECYCLE_AFTER_RUNS } from '../../tools/core/process-pool.ts';
import { growPool } from '../helpers/grow-pool.ts';

const GROW = new URL('../helpers/grow-job.ts', import.meta.url);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));


test('job processes: one that has collected COLLECTIONS_BEFORE_REPLACE times after large jobs is replaced at the next, and small jobs never make it collect', async () => {
  // Collected past max(64 MB, JOB_MEMORY_MB / 8) = 64 MB; stopped past 512 MB. Each large job holds its
  // memory for 400 ms (read at the job process's start): twenty samples of the pool's, a hundred such jobs.
  process.env.GROW_JOB_HOLD_MS = '400';
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
    delete process.env.GROW_JOB_HOLD_MS;
    await runner.close(1000);
  }
});

test('job processes: a run that comes while the only process collects after a large job waits for it; one that comes while it runs a job starts a second', async () => {
  const { pool, grow, pidOf } = growPool();
  const dir = mkdtempSync(join(tmpdir(), 'job-recycle-'));
  const release = join(dir, 'release');
  try {
    // 128 MB held is past max(64 MB, 512 MB / 8): the process collects once it has answered.
    const first = await pidOf(grow(128));
    // The pool chose at the call: a start would show in its size at once.
    const during = grow(1);
    assert.equal(pool.size, 1, 'no second process for a run that can wait for the collection');
    assert.equal(await pidOf(during), first, 'the run went to the process that collected');
    // Held until `beside` is answered, so that the second process, however long it takes to load, runs it.
    const busy = grow(1, 'split-rows', release);
    const beside = grow(1);
    assert.equal(pool.size, 2, 'a second process for a run that comes while the first runs a job');
    const besidePid = await pidOf(beside);
    writeFileSync(release, '');
    assert.notEqual(besidePid, await pidOf(busy));
  } finally {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('job processes: one due for replacement serves the runs that come while its successor loads, then gives way to it', async () => {
  const { pool, grow, pidOf, collections } = growPool();
  try {
    const first = await pidOf(grow(128));
    for (let i = 0; i < collections; i++) assert.equal(await pidOf(grow(128)), first);
    // Due for replacement after that last run: its successor is loading, and this run does not wait for it.
    const during = grow(1);
    assert.equal(pool.size, 2, 'the successor is starting');
    assert.equal(await pidOf(during), first, 'the run went to the process due for replacement');
    // Once the successor is ready the old process goes: the runs after it go to the new one.
    let next = first;
    while ((next = await pidOf(grow(1))) === first);
    assert.notEqual(next, first);
    assert.equal(pool.size, 1, 'the old process is gone');
    assert.equal(await pidOf(grow(1)), next);
  } finally {
    await pool.close();
  }
});

test('job processes: a successor prepares the tools the process it replaces ran (what their first runs would load), and passes them on', async () => {
  const { pool, grow, pidOf, preparedBy, collections } = growPool();
  try {
    const first = await grow(1, 'excel-to-pdf');
    assert.deepEqual(await preparedBy(Promise.resolve(first)), [], 'the first process prepares nothing');
    const firstPid = await pidOf(Promise.resolve(first));
    for (let i = 0; i <= collections; i++) assert.equal(await pidOf(grow(128)), firstPid);
    let reply = grow(1);
    while ((await pidOf(reply)) === firstPid) reply = grow(1);
    assert.deepEqual(await preparedBy(reply), ['excel-to-pdf', 'split-rows'], 'its successor prepared both tools it ran');
    // The successor's own successor prepares those too (they are loaded in it), and what it ran since.
    const second = await pidOf(reply);
    for (let i = 0; i <= collections; i++) assert.equal(await pidOf(grow(128, 'merge-stack')), second);
    reply = grow(1);
    while ((await pidOf(reply)) === second) reply = grow(1);
    assert.deepEqual(await preparedBy(reply), ['excel-to-pdf', 'merge-stack', 'split-rows']);
  } finally {
    await pool.close();
  }
});

test('prepare: excel-to-pdf loads pdfmake and its fonts before any run; an unknown tool is passed over', async () => {
  const script = [
    "import { createRequire } from 'node:module';",
    "import { prepare } from './tools/core/worker.ts';",
    'const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes("/pdfmake/"));',
    "const before = loaded(); prepare(['no-such-tool', 'split-rows', 'excel-to-pdf']);",
    'console.log(JSON.stringify([before, loaded()]));',
  ].join('\n');
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  assert.deepEqual(JSON.parse(out.trim().split('\n').pop()!), [false, true]);
});

test('job processes: a pause shorter than JOB_RECLAIM_AFTER_MS keeps one that has served RECYCLE_AFTER_RUNS runs (and the code it optimized); a longer one replaces it', async (t) => {
  const runner = createJobRunner(parseConfig({ MAX_JOBS: '1' }), 'workers', GROW);
  const bytes = (s: string) => new TextEncoder().encode(s);
  const run = (name: string, content: string) => runner.run({ toolId: 'csv-to-excel', files: [{ name, bytes: bytes(content) }], opts: {}, lang: 'es', download: true });
  const pid = async () => new TextDecoder().decode((await run('grow.csv', '0')).files[0].bytes).split(' ')[0];
  let alive: NodeJS.Timeout | undefined;
  try {
    for (let i = 0; i < RECYCLE_AFTER_RUNS; i++) await run('poco.csv', `id,n\n${i},1\n`);
    // The pauses are clock ticks: the timers a run's end sets are mocked from here (the job processes' are not).
    // A process's start is awaited with a mocked timer, which keeps nothing alive: an interval does.
    t.mock.timers.enable({ apis: ['setTimeout'] });
    alive = setInterval(() => {}, 1000);
    const first = await pid();
    // Past the server's own collection (RECLAIM_AFTER_MS), short of the job processes'.
    assert.ok(RECLAIM_AFTER_MS < JOB_RECLAIM_AFTER_MS - 1);
    t.mock.timers.tick(JOB_RECLAIM_AFTER_MS - 1);
    assert.equal(await pid(), first, 'kept through the shorter pause');
    t.mock.timers.tick(JOB_RECLAIM_AFTER_MS);
    assert.notEqual(await pid(), first, 'replaced after the longer one');
  } finally {
    clearInterval(alive);
    t.mock.timers.reset();
    await runner.close(1000);
  }
});

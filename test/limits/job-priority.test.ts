// Job processes run JOB_NICE steps below the server (priority.ts says why): their own nice value, and on Linux
// with autogroup the nice value of the session each has to itself, which is the one the scheduler weighs. One
// that loads to replace another has its group at the lowest priority until it is needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseConfig } from '../../tools/core/config.ts';
import { createJobRunner, JOB_NICE } from '../../tools/core/jobs.ts';
import { autogroupNice } from '../../tools/core/priority.ts';
import { jobPids } from '../helpers/child-pids.ts';
import { growPool } from '../helpers/grow-pool.ts';

const GROW = new URL('../helpers/grow-job.ts', import.meta.url);

/**
 * Waits until `f` gives a value, however long that takes (the runner's timeout is the bound): a spare loads at
 * the lowest priority, and on a busy machine it may get no CPU for seconds.
 */
async function eventually<T>(f: () => T | undefined): Promise<T> {
  let v = f();
  while (v === undefined) v = (await sleep(50), f());
  return v;
}

/** `nice` once the autogroup of `pid` has it (set right after a spawn, or retried every 110 ms on EAGAIN). */
const groupOf = (pid: number, nice: number) => eventually(() => (autogroupNice(pid) === nice ? nice : undefined));

/** Field 19 of /proc/<pid>/stat (after the parenthesised name, which may hold spaces). */
const statNice = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[16]);

test('job processes run JOB_NICE steps below the server, as processes and as autogroups', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  assert.ok(JOB_NICE > 0);
  const [ownNice, ownGroup] = [getPriority(), autogroupNice('self')];
  const below = (n: number) => Math.min(19, n + JOB_NICE);
  const runner = createJobRunner(parseConfig({ MAX_JOBS: '1' }), 'workers', GROW);
  try {
    // The process stays, idle, once it has answered.
    const reply = runner.run({ toolId: 'split-rows', files: [{ name: 'grow.csv', bytes: new TextEncoder().encode('1') }], opts: {}, lang: 'es', download: true });
    const pid = Number(new TextDecoder().decode((await reply).files[0].bytes).split(' ')[0]);
    assert.ok(pid > 0 && pid !== process.pid);
    assert.equal(getPriority(pid), below(ownNice));
    assert.equal(statNice(pid), below(ownNice));
    assert.equal(getPriority(), ownNice, 'the server keeps its own');
    if (ownGroup !== null) {
      assert.ok(existsSync(`/proc/${pid}/autogroup`));
      assert.equal(await groupOf(pid, below(ownGroup)), below(ownGroup));
      assert.notEqual(readFileSync(`/proc/${pid}/autogroup`, 'utf8').split(' ')[0], readFileSync('/proc/self/autogroup', 'utf8').split(' ')[0], 'a group of its own');
      assert.equal(autogroupNice('self'), ownGroup, 'the server keeps its own');
    }
  } finally {
    await runner.close(1000);
  }
});

test('a successor loads at the lowest priority while the process it replaces serves, and is placed JOB_NICE below the server once ready or once a run waits for it', { skip: (process.platform !== 'linux' || autogroupNice('self') === null) && 'needs Linux autogroups' }, async () => {
  const placed = Math.min(19, autogroupNice('self')! + JOB_NICE);
  const dir = mkdtempSync(join(tmpdir(), 'job-gate-'));
  const gate = join(dir, 'open');
  writeFileSync(gate, '');
  // Processes spawned from here on wait for the gate before they say they are ready.
  process.env.GROW_JOB_GATE = gate;
  const { pool, grow: growJob, pidOf, collections } = growPool({ idleMs: 60_000, startMs: 60_000, nice: JOB_NICE });
  const grow = async (mb: number) => Number(await pidOf(growJob(mb)));
  /** Runs large jobs on `pid` until its replacement starts (its collections before that were all asked). */
  const untilReplaced = async (pid: number) => {
    for (let i = 0; i <= collections && pool.size < 2; i++) assert.equal(await grow(128), pid);
    assert.equal(pool.size, 2, 'a successor is loading');
    return eventually(() => jobPids(process.pid).find((q) => q !== pid));
  };
  try {
    const first = await grow(128);
    rmSync(gate);
    const spare = await untilReplaced(first);
    assert.equal(await groupOf(spare, 19), 19, 'loading as a spare: the lowest priority');
    assert.equal(await grow(1), first, 'the process it replaces serves meanwhile');
    assert.equal(autogroupNice(spare), 19);
    // Ready: it takes over, at the place of every job process.
    writeFileSync(gate, '');
    assert.equal(await groupOf(spare, placed), placed, 'placed once ready');
    assert.equal(await eventually(() => (pool.size === 1 ? 1 : undefined)), 1, 'the old process goes once its successor is ready');
    assert.equal(await grow(1), spare);

    rmSync(gate);
    const next = await untilReplaced(spare);
    assert.equal(await groupOf(next, 19), 19);
    // Due again before its successor is ready, the old process goes at once: the next run waits for the spare.
    assert.equal(await grow(128), spare);
    const waiting = grow(1);
    waiting.catch(() => {}); // awaited below, once the gate is open
    assert.equal(await groupOf(next, placed), placed, 'placed as soon as a run waits for it, still loading');
    writeFileSync(gate, '');
    assert.equal(await waiting, next);
  } finally {
    delete process.env.GROW_JOB_GATE;
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

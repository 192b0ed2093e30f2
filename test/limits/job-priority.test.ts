// Job processes run JOB_NICE steps below the server (priority.ts says why): their own nice value, and on Linux
// with autogroup the nice value of the session each has to itself, which is the one the scheduler weighs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseConfig } from '../../tools/core/config.ts';
import { createJobRunner, JOB_NICE } from '../../tools/core/jobs.ts';
import { autogroupNice } from '../../tools/core/priority.ts';

const GROW = new URL('../helpers/grow-job.ts', import.meta.url);

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
      // Set right after the spawn, or retried every 110 ms when another change came within 100 ms before.
      let nice = autogroupNice(pid);
      for (let i = 0; i < 50 && nice !== below(ownGroup); i++) nice = (await sleep(50), autogroupNice(pid));
      assert.equal(nice, below(ownGroup));
      assert.notEqual(readFileSync(`/proc/${pid}/autogroup`, 'utf8').split(' ')[0], readFileSync('/proc/self/autogroup', 'utf8').split(' ')[0], 'a group of its own');
      assert.equal(autogroupNice('self'), ownGroup, 'the server keeps its own');
    }
  } finally {
    await runner.close(1000);
  }
});

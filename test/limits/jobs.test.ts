// Runs happen in job processes: a run past its time or memory is stopped with 413 too_complex while the
// server keeps answering, and runs beyond MAX_JOBS are refused with 503 busy. The hold job (a job that lasts
// until the test lets it go, test/helpers/hold-job.ts) keeps slots taken without depending on how long a
// run takes on this machine.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bigCsv } from '../helpers/generate.ts';
import { bodyOf, fileObject, formOf, postForm, postRun, startServer, type TestServer } from '../helpers/http.ts';

const HOLD = new URL('../helpers/hold-job.ts', import.meta.url);

/** The folders of the hold markers, removed after the last test (a held job looks for its marker until it ends). */
const markerDirs: string[] = [];
after(() => {
  for (const dir of markerDirs) rmSync(dir, { recursive: true, force: true });
});

/** A run that holds its job slot until `letGo()`; resolves once the slot is taken. */
async function holdSlot(srv: TestServer, query = '') {
  const dir = mkdtempSync(join(tmpdir(), 'st-hold-'));
  markerDirs.push(dir);
  const marker = join(dir, 'let-go');
  const run = postRun(srv.url, 'split-rows', { file: fileObject('hold.csv', marker) }, { query });
  while (srv.kernel.jobs.active === 0) await new Promise((r) => setTimeout(r, 10));
  return { run, letGo: () => writeFileSync(marker, '') };
}

test('jobs: a run past JOB_TIMEOUT_S is stopped with 413 too_complex; /health answers meanwhile', async () => {
  const srv = await startServer({ JOB_TIMEOUT_S: '0.5', MAX_JOBS: '1' }, { workerModule: HOLD });
  try {
    // Never let go: only the time limit ends it.
    const { run } = await holdSlot(srv);
    assert.equal((await fetch(`${srv.url}/health`)).status, 200);
    const res = await run;
    assert.equal(res.status, 413);
    assert.equal((await bodyOf(res)).error, 'too_complex');
    // The job process was replaced: the next small run works.
    const after = await postRun(srv.url, 'split-rows', { file: fileObject('x.csv', 'a\n1\n') });
    assert.equal(after.status, 200);
  } finally {
    await srv.close();
  }
});

test('jobs: a run past JOB_MEMORY_MB is stopped with 413 too_complex', async () => {
  const srv = await startServer({ JOB_MEMORY_MB: '16', MAX_JOBS: '1' });
  try {
    const res = await postRun(srv.url, 'split-rows', { file: fileObject('grande.csv', bigCsv(150_000)), 'rows-per-file': 1_000_000 });
    assert.equal(res.status, 413);
    assert.equal((await bodyOf(res)).error, 'too_complex');
    assert.equal((await fetch(`${srv.url}/health`)).status, 200);
  } finally {
    await srv.close();
  }
});

const FLAGS = new URL('../helpers/flags-job.ts', import.meta.url);

test('jobs: job processes start with their heap bound, young generation, an old-generation floor of at most an eighth of JOB_MEMORY_MB, no allocation-site pretenuring and no memory reducer', async () => {
  for (const [memory, floor] of [['1024', 128], ['4096', 128], ['256', 32]] as const) {
    const srv = await startServer({ JOB_MEMORY_MB: memory, MAX_JOBS: '1' }, { workerModule: FLAGS });
    try {
      const res = await postRun(srv.url, 'split-rows', { file: fileObject('flags.csv', 'a\n1\n') }, { query: 'download=true' });
      assert.equal(res.status, 200);
      const flags = (await res.text()).split('\n').sort();
      assert.deepEqual(flags, [`--initial-old-space-size=${floor}`, `--max-old-space-size=${Number(memory) + 64}`, '--max-semi-space-size=8', '--no-allocation-site-pretenuring', '--no-memory-reducer'], memory);
    } finally {
      await srv.close();
    }
  }
});

test('jobs: with MAX_JOBS busy, the next run gets 503 busy with Retry-After and its quota back', async () => {
  const srv = await startServer({ MAX_JOBS: '1', ANON_RUNS_PER_HOUR: '10' }, { workerModule: HOLD });
  try {
    const held = await holdSlot(srv, 'download=true');
    try {
      const res = await postRun(srv.url, 'split-rows', { file: fileObject('x.csv', 'a\n1\n') });
      assert.equal(res.status, 503);
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
      const body = await bodyOf(res);
      assert.equal(body.error, 'busy');
      assert.equal(res.headers.get('ratelimit-remaining'), '9', 'a busy refusal does not count');
    } finally {
      held.letGo();
    }
    assert.equal((await held.run).status, 200);
  } finally {
    await srv.close();
  }
});

test('jobs: a busy refusal of an upload still being sent reaches fetch, and the connection stays usable', async () => {
  const srv = await startServer({ MAX_JOBS: '1' }, { workerModule: HOLD });
  try {
    const held = await holdSlot(srv, 'download=true');
    try {
      // 4 MB streamed by fetch: the 503 is answered from the headers, long before the body is all sent. Closing
      // the socket then would cut the upload, and fetch would fail (EPIPE) instead of reading the refusal.
      const form = formOf([{ name: 'grande.csv', content: bigCsv(60_000) }]);
      for (let i = 0; i < 3; i++) {
        const res = await postForm(srv.url, 'split-rows', form);
        assert.equal(res.status, 503);
        assert.equal((await bodyOf(res)).error, 'busy');
        assert.ok(Number(res.headers.get('retry-after')) >= 1);
        assert.notEqual(res.headers.get('connection'), 'close', 'the body is read to its end: the connection may carry the next request');
      }
    } finally {
      held.letGo();
    }
    assert.equal((await held.run).status, 200);
  } finally {
    await srv.close();
  }
});

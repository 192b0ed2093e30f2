// Runs happen in worker threads: a slow or greedy run is stopped with 413 too_complex while the server
// keeps answering, and runs beyond MAX_JOBS are refused with 503 busy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bigCsv } from '../helpers/generate.ts';
import { bodyOf, fileObject, formOf, postForm, postRun, startServer } from '../helpers/http.ts';

const slowBody = { file: fileObject('grande.csv', bigCsv(150_000)), 'rows-per-file': 1_000_000 };

async function timed(url: string) {
  const t0 = performance.now();
  const res = await fetch(url);
  return { status: res.status, ms: performance.now() - t0 };
}

test('jobs: a run past JOB_TIMEOUT_S is stopped with 413 too_complex; /health answers meanwhile', async () => {
  const srv = await startServer({ JOB_TIMEOUT_S: '0.5', MAX_JOBS: '1' });
  try {
    const run = postRun(srv.url, 'split-rows', slowBody);
    await new Promise((r) => setTimeout(r, 200));
    const health = await timed(`${srv.url}/health`);
    assert.equal(health.status, 200);
    assert.ok(health.ms < 1000, `health took ${health.ms} ms`);
    const res = await run;
    assert.equal(res.status, 413);
    assert.equal((await bodyOf(res)).error, 'too_complex');
    // The worker was replaced: the next small run works.
    const after = await postRun(srv.url, 'split-rows', { file: fileObject('x.csv', 'a\n1\n') });
    assert.equal(after.status, 200);
  } finally {
    await srv.close();
  }
});

test('jobs: a run past JOB_MEMORY_MB is stopped with 413 too_complex', async () => {
  const srv = await startServer({ JOB_MEMORY_MB: '16', MAX_JOBS: '1' });
  try {
    const res = await postRun(srv.url, 'split-rows', slowBody);
    assert.equal(res.status, 413);
    assert.equal((await bodyOf(res)).error, 'too_complex');
    assert.equal((await fetch(`${srv.url}/health`)).status, 200);
  } finally {
    await srv.close();
  }
});

test('jobs: with MAX_JOBS busy, the next run gets 503 busy with Retry-After and its quota back', async () => {
  const srv = await startServer({ MAX_JOBS: '1', ANON_RUNS_PER_HOUR: '10' });
  try {
    const slow = postRun(srv.url, 'split-rows', slowBody, { query: 'download=true' });
    for (let i = 0; i < 100 && srv.kernel.jobs.active === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(srv.kernel.jobs.active, 1);
    const res = await postRun(srv.url, 'split-rows', { file: fileObject('x.csv', 'a\n1\n') });
    assert.equal(res.status, 503);
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
    const body = await bodyOf(res);
    assert.equal(body.error, 'busy');
    assert.equal(res.headers.get('ratelimit-remaining'), '9', 'a busy refusal does not count');
    assert.equal((await slow).status, 200);
  } finally {
    await srv.close();
  }
});

test('jobs: a busy refusal of an upload still being sent reaches fetch, and the connection stays usable', async () => {
  const srv = await startServer({ MAX_JOBS: '1' });
  try {
    const slow = postRun(srv.url, 'split-rows', slowBody, { query: 'download=true' });
    for (let i = 0; i < 100 && srv.kernel.jobs.active === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(srv.kernel.jobs.active, 1);
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
    assert.equal((await slow).status, 200);
  } finally {
    await srv.close();
  }
});

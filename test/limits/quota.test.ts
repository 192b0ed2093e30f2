// Quota and keys through both adapters: counting rules, headers, 429, 401 and key quotas.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bodyOf, fileObject, postRun, startServer, type TestServer } from '../helpers/http.ts';

const CSV = 'a,b\n1,2\n3,4\n';
const body = { file: fileObject('x.csv', CSV), 'rows-per-file': 1, format: 'csv' };
let srv: TestServer;
before(async () => {
  srv = await startServer({ ANON_RUNS_PER_HOUR: '3', KEY_RUNS_PER_HOUR: '5' });
});
after(() => srv.close());

test('quota: anonymous runs are counted per address, invalid input counts, reads do not, the 4th is 429', async () => {
  const first = await postRun(srv.url, 'split-rows', body);
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('ratelimit-limit'), '3');
  assert.equal(first.headers.get('ratelimit-remaining'), '2');
  assert.ok(Number(first.headers.get('ratelimit-reset')) > 0);
  await fetch(`${srv.url}/api/v1/tools`);
  await fetch(`${srv.url}/api/v1/openapi.json`);
  await fetch(`${srv.url}/llms.txt`);
  const bad = await postRun(srv.url, 'split-rows', { ...body, 'rows-per-file': 0 });
  assert.equal(bad.status, 400);
  assert.equal(bad.headers.get('ratelimit-remaining'), '1');
  assert.equal((await postRun(srv.url, 'split-rows', body)).status, 200);
  const refused = await postRun(srv.url, 'split-rows', body);
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get('retry-after')) >= 1);
  assert.equal(refused.headers.get('ratelimit-remaining'), '0');
  const err = await bodyOf(refused);
  assert.equal(err.error, 'quota_exceeded');
  assert.equal(err.ok, false);
  assert.match(err.message, /3/);
});

test('keys: a valid key gets its own, higher budget; unknown and revoked keys are 401 and do not count', async () => {
  const { key, secret } = await srv.kernel.keys.create('test', null);
  const withBearer = await postRun(srv.url, 'split-rows', body, { headers: { authorization: `Bearer ${secret}` } });
  assert.equal(withBearer.status, 200);
  assert.equal(withBearer.headers.get('ratelimit-limit'), '5');
  const withHeader = await postRun(srv.url, 'split-rows', body, { headers: { 'x-api-key': secret } });
  assert.equal(withHeader.headers.get('ratelimit-remaining'), '3');

  const unknown = await postRun(srv.url, 'split-rows', body, { headers: { 'x-api-key': 'sk_nope' } });
  assert.equal(unknown.status, 401);
  assert.equal((await bodyOf(unknown)).error, 'invalid_api_key');

  const own = await srv.kernel.keys.create('own quota', 1);
  assert.equal((await postRun(srv.url, 'split-rows', body, { headers: { 'x-api-key': own.secret } })).status, 200);
  assert.equal((await postRun(srv.url, 'split-rows', body, { headers: { 'x-api-key': own.secret } })).status, 429);

  await srv.kernel.keys.revoke(key.id);
  const revoked = await postRun(srv.url, 'split-rows', body, { headers: { authorization: `Bearer ${secret}` } });
  assert.equal(revoked.status, 401);
});

test('quota: MCP calls use the same budget and report quota_exceeded as a tool error', async () => {
  const { secret } = await srv.kernel.keys.create('mcp', 1);
  const call = () =>
    fetch(`${srv.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': secret },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'split-rows', arguments: body } }),
    });
  const ok = await call();
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('ratelimit-remaining'), '0');
  const res = await bodyOf(await call());
  assert.equal(res.result.isError, true);
  assert.equal(res.result.structuredContent.error, 'quota_exceeded');
});

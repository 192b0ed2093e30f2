// Who a call is, and what it costs: the client behind an address (one subject whatever the address's spelling,
// an IPv6 /64 as one client), credentials that cannot be read (refused, never anonymous), calls refused while
// their body is read (one usage event and one run of quota each, the same code through JSON and multipart),
// a flood of them bounded by the quota before any body is read, over REST and MCP, and a refused busy call
// that never ends up counted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import ipaddr from 'ipaddr.js';
import { clientOf } from '../../tools/core/client-address.ts';
import { parseConfig } from '../../tools/core/config.ts';
import { ToolError } from '../../tools/core/errors.ts';
import { createKernel } from '../../tools/core/kernel.ts';
import { createMemoryQuota } from '../../tools/core/quota.ts';
import { runsCounted, startHostile, type HostileServer, type Json } from './harness.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const CSV_BODY = { file: { name: 'x.csv', contentBase64: b64('a,b\n1,2\n') }, format: 'csv' };

test('client: every spelling of one address is one client; ports go; IPv6 counts by /64', () => {
  const v6 = ['2001:db8::1', '2001:DB8::1', '2001:0db8:0000:0000:0000:0000:0000:0001', '[2001:db8::1]', '[2001:db8::1]:443', '2001:db8::ffff:1', '2001:db8:0:0:1:2:3:4', ' 2001:db8::1 '];
  assert.deepEqual(new Set(v6.map(clientOf)), new Set(['2001:db8:0:0::/64']));
  assert.notEqual(clientOf('2001:db8:0:1::1'), clientOf('2001:db8::1'), 'another /64 is another client');
  const v4 = ['10.0.0.1', '::ffff:10.0.0.1', '::FFFF:10.0.0.1', '::ffff:a00:1', '[::ffff:10.0.0.1]:80', '10.0.0.1:51234'];
  assert.deepEqual(new Set(v4.map(clientOf)), new Set(['10.0.0.1']));
  assert.notEqual(clientOf('10.0.0.2'), clientOf('10.0.0.1'), 'IPv4 addresses are not grouped');
  assert.equal(clientOf('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(clientOf('Unknown'), 'unknown', 'a text that is no address is still one client');
  assert.equal(clientOf('x'.repeat(500)).length, 100);
  // The shortcut for plain dotted addresses and the cache give what ipaddr.js gives.
  for (let i = 0; i < 500; i++) {
    const octets = Array.from({ length: 4 }, (_, j) => (i * 97 + j * 61) % 256);
    const plain = octets.join('.');
    assert.equal(clientOf(plain), ipaddr.IPv4.parse(plain).toString());
    const mapped = `::ffff:${plain}`;
    assert.equal(clientOf(mapped), clientOf(mapped), 'a second look (cached) is the same');
    assert.equal(clientOf(mapped), plain);
  }
  assert.equal(clientOf('010.0.0.1'), '010.0.0.1', 'leading zeros are no dotted address (octal to some readers): a text of its own');
});

/** A run over JSON with extra headers, its status, RateLimit-Remaining and body. */
async function runJson(srv: HostileServer, headers: Record<string, string>, body: unknown = CSV_BODY, query = '') {
  const res = await fetch(`${srv.url}/api/v1/tools/split-rows/run${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, remaining: res.headers.get('ratelimit-remaining'), limit: res.headers.get('ratelimit-limit'), retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Json };
}

async function mcpCall(srv: HostileServer, headers: Record<string, string>, args: Record<string, unknown> = CSV_BODY) {
  const res = await fetch(`${srv.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'split-rows', arguments: args } }),
  });
  return { status: res.status, remaining: res.headers.get('ratelimit-remaining'), body: (await res.json()) as Json };
}

test('quota: behind a trusted proxy, the forms of one address (and its /64) share one budget', async () => {
  const srv = await startHostile({ TRUST_PROXY: 'true', ANON_RUNS_PER_HOUR: '6' }, { jobs: 'inline' });
  try {
    const forms = ['2001:db8::1', '2001:DB8::1', '2001:0db8:0000:0000:0000:0000:0000:0001', '[2001:db8::2]:8443', '2001:db8::3'];
    const seen: Array<string | null> = [];
    for (const xff of forms) seen.push((await runJson(srv, { 'x-forwarded-for': xff })).remaining);
    assert.deepEqual(seen, ['5', '4', '3', '2', '1'], 'one budget for every form');
    for (const xff of ['10.0.0.1', '::ffff:10.0.0.1', '10.0.0.1:4000', '::FFFF:10.0.0.1', '[::ffff:10.0.0.1]:80', '::ffff:a00:1']) assert.equal((await runJson(srv, { 'x-forwarded-for': xff })).status, 200);
    assert.equal((await runJson(srv, { 'x-forwarded-for': '::ffff:0a00:0001' })).status, 429, 'IPv4 and its mapped form are one client');
    assert.equal((await runJson(srv, { 'x-forwarded-for': '2001:db8:0:0:ffff::9' })).status, 200, 'the sixth run of the /64');
    assert.equal((await runJson(srv, { 'x-forwarded-for': '2001:db8::abcd' })).status, 429, 'the /64 is used up');
    assert.equal((await runJson(srv, { 'x-forwarded-for': '2001:db8:0:1::1' })).status, 200, 'another /64 has its own budget');
    // MCP counts the same client.
    const mcp = await mcpCall(srv, { 'x-forwarded-for': '2001:DB8:0::7' });
    assert.equal(mcp.body.result.structuredContent.error, 'quota_exceeded');
  } finally {
    await srv.close();
  }
});

const BAD_AUTHORIZATION = ['Bearer ', 'Bearer', 'Token sk_x', 'sk_x', 'Basic dXNlcjpwYXNz', 'Bearer a b', ''];

test('keys: a malformed or non-Bearer Authorization header is 401 invalid_api_key over JSON, multipart and MCP, never anonymous', async () => {
  const srv = await startHostile({ ANON_RUNS_PER_HOUR: '50' }, { jobs: 'inline' });
  try {
    const { secret } = await srv.kernel.keys.create('prueba', null);
    assert.equal((await runJson(srv, { authorization: `Bearer ${secret}` })).status, 200, 'a real key in the right form');
    assert.equal((await runJson(srv, { authorization: `bearer   ${secret}  ` })).status, 200, 'the scheme in any case, spaces around');
    for (const authorization of BAD_AUTHORIZATION) {
      const json = await runJson(srv, { authorization }, CSV_BODY, '?lang=en');
      assert.equal(json.status, 401, JSON.stringify(authorization));
      assert.equal(json.body.error, 'invalid_api_key');
      assert.match(json.body.message, /Authorization/);
      const form = new FormData();
      form.append('file', new Blob(['a\n1\n']), 'x.csv');
      const multipart = await fetch(`${srv.url}/api/v1/tools/split-rows/run`, { method: 'POST', headers: { authorization }, body: form });
      assert.equal(multipart.status, 401);
      assert.equal(((await multipart.json()) as Json).error, 'invalid_api_key');
      const mcp = await mcpCall(srv, { authorization });
      assert.equal(mcp.body.result.isError, true);
      assert.equal(mcp.body.result.structuredContent.error, 'invalid_api_key');
    }
    // None of them was counted on the anonymous budget.
    assert.equal((await runJson(srv, {})).remaining, '49');
  } finally {
    await srv.close();
  }
});

/** A raw request; resolves with its status and body once the server answers (or closes). */
function rawRequest(srv: HostileServer, head: string, body = ''): Promise<{ status: number; body: Json; text: string }> {
  const url = new URL(srv.url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: url.hostname, port: Number(url.port) });
    const chunks: Buffer[] = [];
    const done = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const start = text.indexOf('\r\n\r\n');
      const m = /content-length: (\d+)/i.exec(text);
      let parsed: Json = null;
      try {
        parsed = JSON.parse(text.slice(start + 4, m ? start + 4 + Number(m[1]) : undefined));
      } catch {
        parsed = null;
      }
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), body: parsed, text });
    };
    socket.on('data', (c) => {
      chunks.push(c);
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /content-length: (\d+)/i.exec(text);
      const start = text.indexOf('\r\n\r\n');
      if (m && start > 0 && Buffer.byteLength(text.slice(start + 4)) >= Number(m[1])) done();
    });
    socket.on('close', done);
    socket.on('error', () => {});
    socket.write(head + body);
  });
}

test('refused while read: malformed JSON, bad multipart, bad names and oversized bodies each leave one usage event, count one run, and say so in RateLimit', async () => {
  const srv = await startHostile({ ANON_RUNS_PER_HOUR: '100', MAX_INPUT_MB: '0.05' }, { jobs: 'inline' });
  const run = `${srv.url}/api/v1/tools/split-rows/run`;
  const form = (name: string, content = 'a\n1\n') => {
    const f = new FormData();
    f.append('file', new Blob([content]), name);
    return f;
  };
  const B = 'limite';
  const cases: Array<[string, () => Promise<Response>, string]> = [
    ['malformed JSON', () => fetch(run, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"file":' }), 'invalid_option'],
    ['JSON that is no object', () => fetch(run, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[1]' }), 'invalid_option'],
    ['multipart without a boundary', () => fetch(run, { method: 'POST', headers: { 'content-type': 'multipart/form-data' }, body: 'x' }), 'invalid_option'],
    ['multipart cut short', () => fetch(run, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${B}` }, body: `--${B}\r\nContent-Disposition: form-data; name="file"; filename="x.csv"\r\n\r\na\n1` }), 'invalid_option'],
    ['a file part with an empty name', () => fetch(run, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${B}` }, body: `--${B}\r\nContent-Disposition: form-data; name="file"; filename=""\r\n\r\na\n1\r\n--${B}--\r\n` }), 'invalid_option'],
    ['an unsupported content type', () => fetch(run, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }), 'invalid_option'],
    ['a bad download value', () => fetch(`${run}?download=quizá`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 'invalid_option'],
    ['an oversized JSON body (declared)', () => fetch(run, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ file: { name: 'x.csv', contentBase64: 'A'.repeat(1_200_000) } }) }), 'input_too_large'],
    ['an oversized multipart file', () => fetch(run, { method: 'POST', body: form('x.csv', 'a\n'.repeat(60_000)) }), 'input_too_large'],
  ];
  try {
    let expected = 100;
    for (const [what, send, code] of cases) {
      const before = await runsCounted(srv);
      const res = await send();
      const body = (await res.json()) as Json;
      assert.equal(body.error, code, `${what}: ${JSON.stringify(body)}`);
      expected -= 1;
      assert.equal(res.headers.get('ratelimit-remaining'), String(expected), `${what}: counted as one run, and the answer says so`);
      assert.equal(res.headers.get('ratelimit-limit'), '100', what);
      assert.equal(await runsCounted(srv), before + 1, `${what}: one usage event`);
      const metrics = await (await fetch(`${srv.url}/metrics`)).text();
      assert.match(metrics, new RegExp(`spreadsheet_tools_runs_total\\{tool="split-rows",size_band="[^"]+",outcome="${code}"\\}`), what);
    }
  } finally {
    await srv.close();
  }
});

test('one code per cause: the same bad file name is the same refusal over JSON, multipart and MCP', async () => {
  const srv = await startHostile({}, { jobs: 'inline' });
  try {
    const long = `${'x'.repeat(300)}.csv`;
    const answers: Json[] = [];
    answers.push((await runJson(srv, {}, { file: { name: long, contentBase64: b64('a\n1\n') } })).body);
    const f = new FormData();
    f.append('file', new Blob(['a\n1\n']), long);
    answers.push(await (await fetch(`${srv.url}/api/v1/tools/split-rows/run`, { method: 'POST', body: f })).json());
    answers.push((await mcpCall(srv, {}, { file: { name: long, contentBase64: b64('a\n1\n') } })).body.result.structuredContent);
    for (const a of answers) assert.deepEqual([a.error, a.option, a.message], [answers[0].error, answers[0].option, answers[0].message], JSON.stringify(answers));
    assert.deepEqual([answers[0].error, answers[0].option], ['invalid_option', 'file']);
    assert.match(answers[0].message, /255/);
  } finally {
    await srv.close();
  }
});

test('flood: past its quota a client is refused before its body is read, over REST and (large bodies) MCP; unreadable MCP bodies count', async () => {
  const srv = await startHostile({ ANON_RUNS_PER_HOUR: '3' }, { jobs: 'inline' });
  const mcpHead = (length: number) => `POST /mcp HTTP/1.1\r\nHost: ${new URL(srv.url).host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${length}\r\n\r\n`;
  try {
    // Two malformed MCP bodies use two runs of the three.
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${srv.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":' });
      assert.equal(res.status, 400);
      const body = (await res.json()) as Json;
      assert.equal(body.error.code, -32700);
      assert.equal(body.error.data.error, 'invalid_option', 'the Error body rides in the JSON-RPC error');
    }
    assert.equal((await runJson(srv, { 'content-type': 'application/json' }, '{')).remaining, '0', 'a malformed REST body takes the last one');
    // A 30 MB body that never comes: the answer arrives anyway, so it was not waited for.
    const rest = await rawRequest(srv, `POST /api/v1/tools/split-rows/run HTTP/1.1\r\nHost: ${new URL(srv.url).host}\r\nContent-Type: application/json\r\nContent-Length: 30000000\r\n\r\n`, '{"file":');
    assert.equal(rest.status, 429);
    assert.equal(rest.body.error, 'quota_exceeded');
    assert.match(rest.text, /retry-after: \d+/i);
    const mcp = await rawRequest(srv, mcpHead(30_000_000), '{"jsonrpc":');
    assert.equal(mcp.status, 429, mcp.text.slice(0, 200));
    assert.equal(mcp.body.error.data.error, 'quota_exceeded');
    assert.match(mcp.text, /retry-after: \d+/i);
    // Small messages are still read: tools/list costs no quota and is served past it.
    const list = await fetch(`${srv.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    assert.equal(list.status, 200);
    assert.ok(((await list.json()) as Json).result.tools.length > 0);
  } finally {
    await srv.close();
  }
});

test('quota: a refused take is not counted, so a busy call given back after 429s in the same window never ends up counted', async () => {
  const quota = createMemoryQuota();
  assert.equal((await quota.take('s', 2)).allowed, true);
  assert.equal((await quota.take('s', 2)).allowed, true);
  assert.equal((await quota.take('s', 2)).allowed, false);
  assert.equal((await quota.take('s', 2)).allowed, false);
  await quota.giveBack('s', 2);
  const again = await quota.take('s', 2);
  assert.equal(again.allowed, true, 'the run given back is there to take again');
  assert.equal(again.remaining, 0);

  // Through the kernel: a call takes the last run, another is refused with 429 meanwhile, then the first is
  // refused busy by the job runner; its run comes back.
  const dataDir = mkdtempSync(join(tmpdir(), 'st-quota-'));
  const kernel = createKernel(parseConfig({ ANON_RUNS_PER_HOUR: '1', DATA_DIR: dataDir }), { jobs: 'inline' });
  try {
    const caller = { ip: '192.0.2.7' };
    const run = kernel.jobs.run.bind(kernel.jobs);
    let second: unknown;
    kernel.jobs.run = async () => {
      second = await kernel.invoke('split-rows', { args: CSV_BODY }, caller).catch((e) => e);
      throw new ToolError('busy', { retryAfter: 1 });
    };
    const first = await kernel.invoke('split-rows', { args: CSV_BODY }, caller).catch((e) => e);
    assert.equal((second as ToolError).code, 'quota_exceeded');
    assert.equal((first as ToolError).code, 'busy');
    assert.equal((first as ToolError).detail.rate?.remaining, 1, 'the busy answer says the run is back');
    kernel.jobs.run = run;
    const third = await kernel.invoke('split-rows', { args: CSV_BODY }, caller);
    assert.equal(third.rate.remaining, 0, 'the run given back was used by this call');
  } finally {
    await kernel.close(0);
    rmSync(dataDir, { recursive: true, force: true });
  }
});

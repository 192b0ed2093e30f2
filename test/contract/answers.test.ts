// Every answer of the service is the Error body of interface.md when it is a refusal, in Spanish or English:
// unmatched routes (no framework HTML), a wrong method (405 with Allow), a malformed `%` escape (400, no stack
// in the log), a request Node cannot parse or that times out, a foreign browser Origin on a loopback bind
// (REST multipart and MCP alike), and the language of refusals made before a body is read. /llms.txt writes
// only a checked base URL and varies on what it depends on; a key holder at its quota is not told to get a key.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { request } from 'node:http';
import { t, type Lang } from '../../locales/index.ts';
import { parseConfig } from '../../tools/core/config.ts';
import { ERROR_STATUS, type ErrorCode } from '../../tools/core/errors.ts';
import { runsCounted, startHostile, type HostileServer, type Json } from '../hostile/harness.ts';

let srv: HostileServer;
before(async () => {
  srv = await startHostile({ ANON_RUNS_PER_HOUR: '1000' }, { jobs: 'inline' });
});
after(() => srv.close());

const b64 = (s: string) => Buffer.from(s).toString('base64');
const CSV_BODY = JSON.stringify({ file: { name: 'x.csv', contentBase64: b64('a,b\n1,2\n') }, format: 'csv' });

/** Turns a locale text into a pattern its filled-in form matches. */
function textPattern(lang: Lang, key: string): RegExp {
  const parts = t(lang, key).split(/\{\w+\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('[\\s\\S]*')}$`);
}

/** An answer is the Error body with `code`, its status, a message in `lang` (from `key`) and no internals. */
async function assertErrorShape(res: Response, code: ErrorCode, lang: Lang = 'es', key = `errors.${code}`): Promise<Json> {
  assert.equal(res.status, ERROR_STATUS[code], `${res.url}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = (await res.json()) as Json;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message', 'ok', 'option']);
  assert.equal(body.ok, false);
  assert.equal(body.error, code);
  assert.match(body.message, textPattern(lang, key), `${lang}: ${body.message}`);
  assert.ok(!/<html|\n\s+at |node_modules/i.test(body.message));
  return body;
}

/** Raw bytes on a fresh socket: what came back before the server closed (or the bound passed). */
function raw(target: HostileServer, bytes: string, ms = 5000): Promise<string> {
  const url = new URL(target.url);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const s = createConnection({ host: url.hostname, port: Number(url.port) });
    const timer = setTimeout(() => s.destroy(), ms);
    s.on('data', (c) => chunks.push(c));
    s.on('error', () => {});
    s.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    s.write(bytes);
  });
}

/** The status and Error body of a raw answer. */
function parseRaw(text: string): { status: number; body: Json } {
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) };
}

/** GET or POST with headers fetch will not set (Host). */
function withHost(url: string, o: { method?: string; headers: Record<string, string>; body?: string }): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: o.method ?? 'GET', headers: o.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

test('answers: a path no route takes is 404 not_found in the Error body, in Spanish by default and English when asked', async () => {
  for (const [method, path] of [['GET', '/nada'], ['POST', '/api/v2/tools'], ['GET', '/mcp/otra'], ['DELETE', '/api/v1'], ['GET', '/api/v1/tools/split-rows/run/extra']]) {
    await assertErrorShape(await fetch(`${srv.url}${path}`, { method }), 'not_found');
  }
  await assertErrorShape(await fetch(`${srv.url}/nada?lang=en`), 'not_found', 'en');
  await assertErrorShape(await fetch(`${srv.url}/nada`, { headers: { 'accept-language': 'en-GB,en;q=0.9,es;q=0.5' } }), 'not_found', 'en');
  await assertErrorShape(await fetch(`${srv.url}/nada?lang=es`, { headers: { 'accept-language': 'en' } }), 'not_found', 'es');
});

test('answers: a wrong method on a run endpoint is 405 with Allow: POST, counts nothing; GET-only endpoints say GET', async () => {
  const before = await runsCounted(srv);
  for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
    const res = await fetch(`${srv.url}/api/v1/tools/split-rows/run?lang=en`, { method, body: method === 'GET' ? undefined : CSV_BODY });
    assert.equal(res.headers.get('allow'), 'POST', method);
    const body = await assertErrorShape(res, 'method_not_allowed', 'en');
    assert.match(body.message, new RegExp(`\\b${method}\\b`));
  }
  assert.equal(await runsCounted(srv), before, 'a wrong method is not a run');
  await assertErrorShape(await fetch(`${srv.url}/api/v1/tools/no-existe/run`), 'unknown_tool');
  for (const path of ['/api/v1/tools', '/api/v1/tools/split-rows', '/api/v1/openapi.json', '/llms.txt']) {
    const res = await fetch(`${srv.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.headers.get('allow'), 'GET, HEAD', path);
    await assertErrorShape(res, 'method_not_allowed');
  }
});

test('answers: a malformed % escape in the tool name is 400 bad_request, and nothing is logged as an internal error', async () => {
  const logged: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => logged.push(args);
  try {
    for (const path of ['/api/v1/tools/%E0%A4%A/run', '/api/v1/tools/%zz', '/api/v1/tools/split%-rows/run']) {
      const method = path.endsWith('/run') ? 'POST' : 'GET';
      await assertErrorShape(await fetch(`${srv.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: method === 'POST' ? CSV_BODY : undefined }), 'bad_request', 'es', 'rest.errors.bad_path');
    }
  } finally {
    console.error = original;
  }
  assert.deepEqual(logged, []);
});

test('answers: requests Node cannot parse get the Error body: a malformed request line (400), oversized headers (431)', async () => {
  for (const bytes of ['HOLA MUNDO\r\n\r\n', 'GET / HTTP/9.9\r\nHost: x\r\n\r\n', 'GET /health HTTP/1.1\r\nHost: x\r\nX: a\u0000b\r\n\r\n', `POST /api/v1/tools/split-rows/run HTTP/1.1\r\nHost: ${new URL(srv.url).host}\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`]) {
    const { status, body } = parseRaw(await raw(srv, bytes));
    assert.equal(status, 400, JSON.stringify(bytes));
    assert.equal(body.error, 'bad_request');
    assert.match(body.message, textPattern('es', 'errors.bad_request'));
  }
  const big = parseRaw(await raw(srv, `GET /health HTTP/1.1\r\nHost: x\r\nX-Grande: ${'a'.repeat(20_000)}\r\n\r\n`));
  assert.equal(big.status, 431);
  assert.equal(big.body.error, 'headers_too_large');
  assert.equal((await fetch(`${srv.url}/health`)).status, 200, 'the server goes on');
});

test('answers: a request that does not arrive in time gets 408 request_timeout in the Error body', async () => {
  const slow = await startHostile({ HEADERS_TIMEOUT_S: '0.3', REQUEST_TIMEOUT_S: '0.3' }, { jobs: 'inline' });
  try {
    const text = await raw(slow, `POST /api/v1/tools/split-rows/run HTTP/1.1\r\nHost: ${new URL(slow.url).host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"fi`, 20_000);
    const { status, body } = parseRaw(text);
    assert.equal(status, 408, text.slice(0, 200));
    assert.equal(body.error, 'request_timeout');
  } finally {
    await slow.close();
  }
});

test('origin: on a loopback bind a foreign browser Origin is refused (403 forbidden_origin) over REST multipart and MCP; own and none pass', async () => {
  const own = srv.url;
  const form = () => {
    const f = new FormData();
    f.append('file', new Blob(['a,b\n1,2\n']), 'x.csv');
    return f;
  };
  const runsBefore = await runsCounted(srv);
  for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1:1', `${own}.evil.example`, 'http://localhost']) {
    const rest = await fetch(`${srv.url}/api/v1/tools/split-rows/run?lang=en`, { method: 'POST', headers: { origin }, body: form() });
    const body = await assertErrorShape(rest, 'forbidden_origin', 'en');
    assert.ok(body.message.includes(origin), body.message);
    const mcp = await fetch(`${srv.url}/mcp`, { method: 'POST', headers: { origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    await assertErrorShape(mcp, 'forbidden_origin');
  }
  assert.equal(await runsCounted(srv), runsBefore, 'refused before anything ran');
  assert.equal((await fetch(`${srv.url}/api/v1/tools/split-rows/run`, { method: 'POST', headers: { origin: own }, body: form() })).status, 200, 'the service\'s own page');
  assert.equal((await fetch(`${srv.url}/api/v1/tools/split-rows/run`, { method: 'POST', body: form() })).status, 200, 'no Origin: not a browser');
  const port = new URL(own).port;
  const viaName = await withHost(`${own}/mcp`, { method: 'POST', headers: { host: `localhost:${port}`, origin: `http://localhost:${port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
  assert.equal(viaName.status, 200, 'own origin under another loopback name');

  const allowed = await startHostile({ ALLOWED_ORIGINS: 'https://app.example' }, { jobs: 'inline' });
  try {
    assert.equal((await fetch(`${allowed.url}/api/v1/tools/split-rows/run`, { method: 'POST', headers: { origin: 'https://app.example' }, body: form() })).status, 200);
    await assertErrorShape(await fetch(`${allowed.url}/api/v1/tools/split-rows/run`, { method: 'POST', headers: { origin: allowed.url }, body: form() }), 'forbidden_origin');
  } finally {
    await allowed.close();
  }
});

test('origin: on a public bind any Origin passes unless ALLOWED_ORIGINS says otherwise (decisions.md)', async () => {
  const { startServer } = await import('../helpers/http.ts');
  const open = await startServer({ HOST: '0.0.0.0' }, { jobs: 'inline' });
  try {
    const res = await fetch(`${open.url}/api/v1/tools/split-rows/run`, { method: 'POST', headers: { origin: 'https://otra.example', 'content-type': 'application/json' }, body: CSV_BODY });
    assert.equal(res.status, 200);
  } finally {
    await open.close();
  }
});

test('llms.txt: a configured PUBLIC_BASE_URL is what it advertises, whatever the Host; it varies on Accept-Language only', async () => {
  assert.throws(() => parseConfig({ PUBLIC_BASE_URL: 'ftp://tools.example.com' }), /PUBLIC_BASE_URL/);
  assert.throws(() => parseConfig({ PUBLIC_BASE_URL: 'https://tools.example.com/?x=1' }), /PUBLIC_BASE_URL/);
  assert.throws(() => parseConfig({ PUBLIC_BASE_URL: 'https://user:pw@tools.example.com' }), /PUBLIC_BASE_URL/);
  assert.equal(parseConfig({ PUBLIC_BASE_URL: 'HTTPS://Tools.Example.com:443/base/' }).PUBLIC_BASE_URL, 'https://tools.example.com/base');
  const pub = await startHostile({ PUBLIC_BASE_URL: 'https://tools.example.com/base/', TRUST_PROXY: 'true' }, { jobs: 'inline' });
  try {
    const res = await fetch(`${pub.url}/llms.txt`, { headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' } });
    const text = await res.text();
    assert.ok(text.includes('https://tools.example.com/base/mcp'), 'the MCP URL from the configured base');
    assert.ok(text.includes('https://tools.example.com/base/api/v1/tools/'), 'the REST URLs too');
    assert.ok(!text.includes('evil.example') && !text.includes(pub.url), 'nothing from the request');
    assert.equal(res.headers.get('vary'), 'Accept-Language');
    assert.match(res.headers.get('cache-control') ?? '', /public/);
  } finally {
    await pub.close();
  }
});

test('llms.txt: without a base URL, only http/https from a trusted X-Forwarded-Proto, a checked host, and Vary on each', async () => {
  const proxied = await startHostile({ TRUST_PROXY: 'true' }, { jobs: 'inline' });
  try {
    const host = new URL(proxied.url).host;
    const get = (headers: Record<string, string>) => fetch(`${proxied.url}/llms.txt`, { headers });
    const mcpUrl = async (headers: Record<string, string>) => /`([^`\s]+\/mcp)`/.exec(await (await get(headers)).text())?.[1];
    assert.equal(await mcpUrl({ 'x-forwarded-proto': 'javascript' }), `http://${host}/mcp`);
    assert.equal(await mcpUrl({ 'x-forwarded-proto': 'HTTPS' }), `https://${host}/mcp`);
    assert.equal(await mcpUrl({ 'x-forwarded-proto': 'https, http' }), `https://${host}/mcp`);
    assert.equal(await mcpUrl({ 'x-forwarded-host': 'Tools.Example.com:8443' }), 'http://tools.example.com:8443/mcp');
    for (const bad of ['evil.example/"><script>', 'a b', 'x@evil.example', 'ejemplo_malo.com', '[::1']) {
      await assertErrorShape(await get({ 'x-forwarded-host': bad }), 'bad_request', 'es', 'rest.errors.host');
    }
    const res = await get({});
    assert.equal(res.headers.get('vary'), 'Host, X-Forwarded-Host, X-Forwarded-Proto, Accept-Language');
  } finally {
    await proxied.close();
  }
  // Without TRUST_PROXY the forwarded headers are the client's own words: ignored.
  const direct = await fetch(`${srv.url}/llms.txt`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' } });
  const text = await direct.text();
  assert.ok(text.includes(`${srv.url}/mcp`) && !text.includes('evil.example') && !text.includes('https://'));
  assert.equal(direct.headers.get('vary'), 'Host, Accept-Language');
});

test('llms.txt: honours Accept-Language (the lang query first), and says which language it is in', async () => {
  const en = await (await fetch(`${srv.url}/llms.txt?lang=en`)).text();
  const es = await (await fetch(`${srv.url}/llms.txt?lang=es`)).text();
  assert.notEqual(en, es);
  const negotiated = await fetch(`${srv.url}/llms.txt`, { headers: { 'accept-language': 'en-US,en;q=0.9' } });
  assert.equal(await negotiated.text(), en);
  assert.equal(negotiated.headers.get('content-language'), 'en');
  const preferred = await fetch(`${srv.url}/llms.txt`, { headers: { 'accept-language': 'fr, es;q=0.8, en;q=0.5' } });
  assert.equal(await preferred.text(), es);
  assert.equal(await (await fetch(`${srv.url}/llms.txt?lang=es`, { headers: { 'accept-language': 'en' } })).text(), es);
  assert.equal(await (await fetch(`${srv.url}/llms.txt`, { headers: { 'accept-language': 'de' } })).text(), es, 'neither: Spanish');
});

test('quota: a key holder at its quota is told about its key, not told to use one; anonymous callers are (REST and MCP, es and en)', async () => {
  const q = await startHostile({ ANON_RUNS_PER_HOUR: '1' }, { jobs: 'inline' });
  try {
    const { secret } = await q.kernel.keys.create('limitada', 1);
    const post = (headers: Record<string, string>, lang: Lang) => fetch(`${q.url}/api/v1/tools/split-rows/run?lang=${lang}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: CSV_BODY });
    const mcp = (headers: Record<string, string>, lang: Lang) =>
      fetch(`${q.url}/mcp?lang=${lang}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'split-rows', arguments: JSON.parse(CSV_BODY) } }) });
    assert.equal((await post({ 'x-api-key': secret }, 'es')).status, 200);
    assert.equal((await post({}, 'es')).status, 200);
    for (const lang of ['es', 'en'] as const) {
      const keyed = await assertErrorShape(await post({ 'x-api-key': secret }, lang), 'quota_exceeded', lang, 'error-details.quota_exceeded_key');
      const anonymous = await assertErrorShape(await post({}, lang), 'quota_exceeded', lang);
      assert.notEqual(keyed.message, anonymous.message);
      const viaMcp = ((await (await mcp({ authorization: `Bearer ${secret}` }, lang)).json()) as Json).result.structuredContent;
      assert.equal(viaMcp.error, 'quota_exceeded');
      assert.match(viaMcp.message, textPattern(lang, 'error-details.quota_exceeded_key'));
    }
  } finally {
    await q.close();
  }
});

test('413: an oversized JSON body is refused in the language of the lang query or Accept-Language, declared or chunked', async () => {
  const small = await startHostile({ MAX_INPUT_MB: '0.05' }, { jobs: 'inline' });
  try {
    const big = JSON.stringify({ file: { name: 'x.csv', contentBase64: 'A'.repeat(1_200_000) }, language: 'en' });
    const run = `${small.url}/api/v1/tools/split-rows/run`;
    // An async iterable body has no length: fetch sends it chunked, so only the parser's own bound can refuse it.
    const chunked = async function* () {
      yield new TextEncoder().encode(big);
    };
    const cases: Array<[string, Record<string, string>, Lang]> = [
      ['?lang=en', {}, 'en'],
      ['', { 'accept-language': 'en' }, 'en'],
      ['', {}, 'es'],
    ];
    for (const [query, headers, lang] of cases) {
      await assertErrorShape(await fetch(`${run}${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: big }), 'input_too_large', lang);
      await assertErrorShape(await fetch(`${run}${query}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: chunked(), duplex: 'half' } as RequestInit), 'input_too_large', lang);
    }
  } finally {
    await small.close();
  }
});

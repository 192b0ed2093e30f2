// The HTTP layer under abuse: bad base64, bodies past the limit (declared or chunked), compressed bodies
// (gzip bombs among them), multipart with 1,000 parts or cut short, a wrong type for every option of every
// registered tool, unknown and prototype-named properties, JSON-RPC abuse on /mcp, and slow clients cut off
// by the configured timeouts. No outcome here depends on how fast the machine is: a server that never
// answers or never closes a connection hangs its test, which the runner's timeout fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createConnection, type Socket } from 'node:net';
import { gzipSync, deflateSync, brotliCompressSync, constants as zc, createGzip } from 'node:zlib';
import { parseConfig } from '../../tools/core/config.ts';
import { ERROR_STATUS } from '../../tools/core/errors.ts';
import type { Format, InputFile } from '../../tools/core/files.ts';
import { listTools } from '../../tools/core/registry.ts';
import { jsonSchemaOf } from '../../tools/core/schema.ts';
import { fixture, inputFile } from '../helpers/run-tool.ts';
import { assertCleanMessage, assertRefusal, assertServes, runsCounted, send, type Answer, type Json, hostileSuite, startHostile } from './harness.ts';
import { xlsxOf } from './packages.ts';

// A small input bound keeps the bodies of these tests small: the limits scale from it.
const MAX_INPUT_MB = 0.5;
const suite = hostileSuite({ MAX_JOBS: '2', JOB_MEMORY_MB: '256', MAX_INPUT_MB: String(MAX_INPUT_MB), MAX_FILE_PARTS: '20' }, assertServes);

const run = (tool: string) => `${suite.srv.url}/api/v1/tools/${tool}/run`;
const CSV = inputFile('datos.csv', 'id,nombre\n1,Ana\n2,Íñigo\n');
const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64');

/** A REST answer as an Answer (for assertRefusal). */
async function answerOf(res: Response, via: 'json' | 'multipart' = 'json'): Promise<Answer> {
  return { via, status: res.status, body: await res.json(), ms: 0 };
}

/** A JSON-RPC error answer from /mcp: the right status, a JSON-RPC error object, and no internals. */
async function assertRpcError(res: Response, status: number) {
  assert.equal(res.status, status);
  const body: Json = await res.json();
  assert.equal(body.jsonrpc, '2.0');
  assert.equal(typeof body.error?.code, 'number');
  assert.ok(!/\n\s*at |\/(work|tmp|home)\/|node_modules|\.ts:\d/.test(JSON.stringify(body)), JSON.stringify(body));
}

test('http: invalid base64 is 400 invalid_option naming the file field, over JSON and MCP', async () => {
  for (const contentBase64 of ['¡esto no es base64!', 'QUJD*', 'data:text/csv;base64,QUJD', 'QQ=QQ==', 'A']) {
    for (const via of ['json', 'mcp'] as const) {
      const a = await sendRaw(via, 'split-rows', { file: { name: 'x.csv', contentBase64 } });
      assertRefusal(a, 'invalid_option', { option: 'file', secrets: [contentBase64] });
    }
  }
  const a = await sendRaw('json', 'merge-stack', { files: [{ name: 'a.csv', contentBase64: b64('a\n1\n') }, { name: 'b.csv', contentBase64: '%%%' }] });
  assertRefusal(a, 'invalid_option', { option: 'files' });
  await assertServes(suite.srv);
});

/** A call whose arguments are given as they are (no file objects built), over JSON or MCP. */
async function sendRaw(via: 'json' | 'mcp', tool: string, args: Record<string, unknown>): Promise<Answer> {
  if (via === 'json') return answerOf(await fetch(run(tool), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(args) }));
  const res = await (await suite.srv.mcp()).callTool({ name: tool, arguments: args });
  const body = res.structuredContent as Json;
  return { via, status: res.isError ? ERROR_STATUS[body.error as keyof typeof ERROR_STATUS] : 200, body, text: (res.content as { text: string }[])[0].text, ms: 0 };
}

test('http: a JSON body past the limit is 413 input_too_large, declared or chunked, on /api and /mcp', async () => {
  const big = JSON.stringify({ file: { name: 'x.csv', contentBase64: 'A'.repeat(3 * 2 ** 20) } });
  const declared = await fetch(run('split-rows'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
  assertRefusal(await answerOf(declared), 'input_too_large');
  // Chunked: no Content-Length to refuse early, so the parser's own bound must hold.
  const chunked = await fetch(run('split-rows'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: streamOf(big), duplex: 'half' } as RequestInit);
  assertRefusal(await answerOf(chunked), 'input_too_large');
  const mcp = await fetch(`${suite.srv.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: big });
  await assertRpcError(mcp, 413);
  await assertServes(suite.srv);
});

function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.subarray(at, at + 65536));
      at += 65536;
    },
  });
}

/** A gzip stream of `{"file":{"name":"x.csv","contentBase64":"AAAA…"}}` decoding to `mb` MB, made without holding it. */
async function gzipBomb(mb: number): Promise<Buffer> {
  const z = createGzip({ level: 9 });
  const out: Buffer[] = [];
  z.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((r) => z.on('end', r));
  z.write('{"file":{"name":"x.csv","contentBase64":"');
  const block = Buffer.alloc(2 ** 20, 'A');
  for (let i = 0; i < mb; i++) if (!z.write(block)) await new Promise((r) => z.once('drain', r));
  z.end('"}}');
  await done;
  return Buffer.concat(out);
}

test('http: compressed bodies (gzip, deflate, br, a 1 GB gzip bomb) are refused before anything is inflated, on /api and /mcp', async () => {
  const body = JSON.stringify({ file: { name: 'x.csv', contentBase64: b64('a\n1\n') }, format: 'csv' });
  const bomb = await gzipBomb(1024);
  assert.ok(bomb.length < 2 * 2 ** 20, `bomb of ${bomb.length} bytes`);
  const heap0 = process.memoryUsage().heapUsed;
  const bodies: Array<[string, Uint8Array | string]> = [
    ['gzip', gzipSync(body)],
    ['deflate', deflateSync(body)],
    ['br', brotliCompressSync(body, { params: { [zc.BROTLI_PARAM_QUALITY]: 4 } })],
    ['gzip', bomb],
    ['gzip', gzipSync(body).subarray(0, 20)],
    ['zip-bomb', body],
    ['GZIP, identity', gzipSync(body)],
  ];
  for (const [coding, bytes] of bodies) {
    const res = await fetch(run('split-rows'), { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': coding }, body: bytes });
    const a = await answerOf(res);
    assertRefusal(a, 'invalid_option');
    assert.ok(a.body.message.includes(coding.toLowerCase()), a.body.message);
    const mcp = await fetch(`${suite.srv.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': coding, accept: 'application/json, text/event-stream' }, body: bytes });
    await assertRpcError(mcp, 415);
  }
  // multipart is refused the same way.
  const form = await fetch(run('split-rows'), { method: 'POST', headers: { 'content-type': 'multipart/form-data; boundary=x', 'content-encoding': 'gzip' }, body: gzipSync('--x--\r\n') });
  assertRefusal(await answerOf(form, 'multipart'), 'invalid_option');
  // `identity` is no coding at all.
  const plain = await fetch(run('split-rows'), { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'identity' }, body });
  assert.equal(plain.status, 200);
  await plain.arrayBuffer();
  const grown = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;
  assert.ok(grown < 200, `heap grew ${grown.toFixed(0)} MB while refusing compressed bodies`);
  await assertServes(suite.srv);
});

/**
 * Streams a chunked body of `total` bytes over a raw socket, writing only as the server reads, and stops once
 * an answer arrives: the bytes sent by then tell whether the server answered at the limit or read it all.
 */
function chunkedUpload(path: string, total: number, type = 'application/json'): Promise<{ text: string; sentWhenAnswered: number }> {
  const url = new URL(suite.srv.url);
  return new Promise((resolve) => {
    const s = createConnection({ host: url.hostname, port: Number(url.port) });
    const chunks: Buffer[] = [];
    let sent = 0;
    let sentWhenAnswered = -1;
    s.on('data', (c: Buffer) => {
      if (sentWhenAnswered < 0) sentWhenAnswered = sent;
      chunks.push(c);
    });
    s.on('error', () => {});
    s.on('close', () => resolve({ text: Buffer.concat(chunks).toString('latin1'), sentWhenAnswered }));
    s.write(`POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: ${type}\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n`);
    const block = Buffer.alloc(64 * 1024, 'A');
    const frame = Buffer.concat([Buffer.from(`${block.length.toString(16)}\r\n`), block, Buffer.from('\r\n')]);
    const start = '{"file":{"name":"x.csv","contentBase64":"';
    s.write(`${start.length.toString(16)}\r\n${start}\r\n`);
    const pump = () => {
      while (sentWhenAnswered < 0 && sent < total && !s.destroyed) {
        sent += block.length;
        if (!s.write(frame)) return void s.once('drain', pump);
      }
      if (sentWhenAnswered < 0 && !s.destroyed) s.write('0\r\n\r\n');
    };
    pump();
  });
}

test('http: a chunked body past the limit is answered 413 as the count passes it, not once it has all arrived', async () => {
  const total = 256 * 2 ** 20;
  const limit = Math.ceil((MAX_INPUT_MB * 2 ** 20 * 4) / 3) + 2 ** 20;
  for (const path of ['/api/v1/tools/split-rows/run', '/mcp']) {
    const up = await chunkedUpload(path, total);
    assert.match(up.text, /^HTTP\/1\.1 413 /, path);
    assert.ok(up.sentWhenAnswered > limit, `${path}: answered after ${up.sentWhenAnswered} bytes, before the limit was even reached`);
    // What the server read past the limit is bounded by its linger (4 limits), plus what the sockets buffer.
    assert.ok(up.sentWhenAnswered < 8 * limit + 32 * 2 ** 20, `${path}: answered only after ${up.sentWhenAnswered} of ${total} bytes`);
  }
  await assertServes(suite.srv);
});

const BOUNDARY = 'hostilBoundary';
const filePart = (field: string, name: string, content: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\nContent-Type: text/csv\r\n\r\n${content}\r\n`;
const fieldPart = (name: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const postMultipart = (tool: string, body: string) => fetch(run(tool), { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body });

test('http: multipart with 1,000 file parts or 1,000 fields is a clean 400, and the server goes on', async () => {
  const files = Array.from({ length: 1000 }, (_, i) => filePart('files', `f${i}.csv`, 'a\n1\n')).join('') + `--${BOUNDARY}--\r\n`;
  assertRefusal(await answerOf(await postMultipart('merge-stack', files), 'multipart'), 'too_many_files', { option: 'files' });
  const fields = filePart('file', 'x.csv', 'a\n1\n') + Array.from({ length: 1000 }, (_, i) => fieldPart(`campo${i}`, 'x')).join('') + `--${BOUNDARY}--\r\n`;
  assertRefusal(await answerOf(await postMultipart('split-rows', fields), 'multipart'), 'invalid_option');
  const empty = Array.from({ length: 1000 }, () => `--${BOUNDARY}\r\n\r\n\r\n`).join('') + `--${BOUNDARY}--\r\n`;
  const res = await postMultipart('split-rows', empty);
  assert.equal(res.status, 400);
  assertCleanMessage(((await res.json()) as Json).message);
  await assertServes(suite.srv);
});

/** Sends raw bytes (then half-closes, if asked) and collects whatever comes back until the server closes. */
function raw(bytes: string | Buffer, o: { halfClose?: boolean } = {}): Promise<{ text: string }> {
  const url = new URL(suite.srv.url);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const s = createConnection({ host: url.hostname, port: Number(url.port) });
    s.on('data', (c) => chunks.push(c));
    s.on('error', () => {});
    s.on('close', () => resolve({ text: Buffer.concat(chunks).toString('utf8') }));
    s.write(bytes, () => o.halfClose && s.end());
  });
}

test('http: a multipart body cut short (client half-closes, or lies about its length) is 400, not a hang', async () => {
  const body = filePart('file', 'x.csv', 'a\n1\n2\n3\n').slice(0, 60);
  const head = `POST /api/v1/tools/split-rows/run HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nConnection: close\r\n`;
  const chunked = await raw(`${head}Transfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`);
  assert.match(chunked.text, /^HTTP\/1\.1 400/);
  assert.equal(JSON.parse(chunked.text.slice(chunked.text.indexOf('\r\n\r\n') + 4).replace(/^[0-9a-f]+\r\n|\r\n0\r\n\r\n$/g, '')).error, 'invalid_option');
  // The client half-closes with 4,940 of its 5,000 bytes unsent: the server closes too (this resolves)
  // instead of waiting for bytes that cannot come.
  await raw(`${head}Content-Length: 5000\r\n\r\n${body}`, { halfClose: true });
  await assertServes(suite.srv);
});

/** A small valid input in the first format of a tool's list that the test can make. */
function sampleFiles(tool: ReturnType<typeof listTools>[number]): InputFile[] {
  const makers: Partial<Record<Format, () => InputFile>> = {
    csv: () => CSV,
    xlsx: () => inputFile('datos.xlsx', xlsxOf([{ name: 'Hoja1', rows: [['id', 'nombre'], [1, 'Ana']] }])),
    xls: () => fixture('ventas.xls'),
    json: () => inputFile('datos.json', '[{"id":1,"nombre":"Ana"}]'),
    xml: () => inputFile('datos.xml', '<datos><fila><id>1</id><nombre>Ana</nombre></fila><fila><id>2</id><nombre>Bo</nombre></fila></datos>'),
    html: () => inputFile('datos.html', '<table><tr><th>id</th><th>nombre</th></tr><tr><td>1</td><td>Ana</td></tr></table>'),
    md: () => inputFile('datos.md', '| id | nombre |\n| --- | --- |\n| 1 | Ana |\n'),
  };
  const format = tool.input.formats.find((f) => makers[f]);
  if (!format) return [];
  const one = makers[format]!();
  return tool.input.kind === 'files' ? Array.from({ length: tool.input.min }, (_, i) => ({ ...one, name: `${i}-${one.name}` })) : [one];
}

type Prop = { type?: string; enum?: unknown[]; anyOf?: Prop[] };
/** JSON types a property admits. */
function typesOf(p: Prop): Set<string> {
  const out = new Set<string>();
  if (p.type) out.add(p.type);
  if (p.type === 'integer') out.add('integer');
  for (const alt of p.anyOf ?? []) typesOf(alt).forEach((t) => out.add(t));
  return out;
}
/** A value a required option accepts with the sample files (whose first title is `id`). */
function validValue(p: Prop): unknown {
  if (p.enum) return p.enum[0];
  const types = typesOf(p);
  if (types.has('string')) return 'id';
  if (types.has('integer') || types.has('number')) return 1;
  if (types.has('boolean')) return true;
  return undefined;
}
const jsonType = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);
/** Values of a JSON type the property does not admit (an integer is also a number). */
function wrongValues(p: Prop): unknown[] {
  const admitted = typesOf(p);
  return [{ nope: 1 }, ['x'], 2.5, 7, true, null, 'quizá-no'].filter((v) => {
    const t = jsonType(v);
    if (admitted.has(t)) return false;
    if (t === 'integer' && admitted.has('number')) return false;
    return true;
  });
}

test('http: a value of the wrong type for every option of every registered tool is 400 invalid_option naming it', async () => {
  const before = await runsCounted(suite.srv);
  let runs = 0;
  let checked = 0;
  for (const tool of listTools()) {
    const files = sampleFiles(tool);
    if (files.length === 0) continue;
    const schema = jsonSchemaOf(tool, 'es');
    const props = schema.properties ?? {};
    // Required options get a valid value, so that the one wrong option is the only fault.
    const base: Record<string, unknown> = {};
    // A further file (merge-by-key's lookup-file) is a file like the main one: given, and not an option to break here.
    const more = (tool.input.more ?? []).map((m) => m.field);
    for (const name of more) base[name] = { name: files[0].name, contentBase64: Buffer.from(files[0].bytes).toString('base64') };
    for (const name of schema.required ?? []) if (name !== tool.input.kind && !more.includes(name)) base[name] = validValue(props[name] as Prop);
    for (const [name, prop] of Object.entries(props)) {
      if (name === tool.input.kind || more.includes(name)) continue;
      for (const value of wrongValues(prop as Prop)) {
        for (const via of ['json', 'mcp'] as const) {
          const a = await send(suite.srv, via, tool.id, files, { ...base, [name]: value });
          runs++;
          assertRefusal(a, 'invalid_option', { option: name });
          checked++;
        }
      }
      // Over multipart every value is text: a boolean, integer or closed set given words it does not know.
      const p = prop as Prop;
      if (typesOf(p).has('boolean') || typesOf(p).has('integer') || p.enum) {
        const a = await send(suite.srv, 'multipart', tool.id, files, { ...base, [name]: 'quizá-no' });
        runs++;
        assertRefusal(a, 'invalid_option', { option: name });
        checked++;
      }
    }
  }
  assert.ok(checked > 100, `only ${checked} wrong-type cases were generated`);
  assert.equal(await runsCounted(suite.srv), before + runs, 'one usage event per run, refused ones included');
  await assertServes(suite.srv);
});

test('http: the file field itself given the wrong type or shape is 400 invalid_option naming it', async () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['split-rows', { file: 'datos.csv' }, 'file'],
    ['split-rows', { file: [{ name: 'x.csv', contentBase64: b64('a\n1\n') }] }, 'file'],
    ['split-rows', { file: { name: 'x.csv', contentBase64: b64('a\n1\n'), path: '/etc/passwd' } }, 'file'],
    ['split-rows', { file: { name: 'x'.repeat(300) + '.csv', contentBase64: b64('a\n1\n') } }, 'file'],
    ['split-rows', { file: { name: 7, contentBase64: b64('a\n1\n') } }, 'file'],
    ['merge-stack', { files: { name: 'x.csv', contentBase64: b64('a\n1\n') } }, 'files'],
    ['merge-stack', { files: [null, 3] }, 'files'],
  ];
  for (const [tool, args, option] of cases) {
    for (const via of ['json', 'mcp'] as const) assertRefusal(await sendRaw(via, tool, args), 'invalid_option', { option });
  }
});

test('http: unknown properties, prototype names included, are 400 unknown_option through every door', async () => {
  const file = { name: 'x.csv', contentBase64: b64('a\n1\n') };
  for (const key of ['nope', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty']) {
    // JSON.parse makes "__proto__" an own property, as a hostile client would send it.
    const text = `{"file":${JSON.stringify(file)},${JSON.stringify(key)}:{"polluted":true}}`;
    const res = await fetch(run('split-rows'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
    assertRefusal(await answerOf(res), 'unknown_option', { option: key });
    assertRefusal(await sendRaw('mcp', 'split-rows', JSON.parse(text)), 'unknown_option', { option: key });
    const form = filePart('file', 'x.csv', 'a\n1\n') + fieldPart(key, 'true') + `--${BOUNDARY}--\r\n`;
    assertRefusal(await answerOf(await postMultipart('split-rows', form), 'multipart'), 'unknown_option', { option: key });
  }
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('http: names echoed in messages (files, options) carry no control characters', async () => {
  const name = '\u0000\u001b[31mrojo\u0007\r\nX-Inyectada: 1.pdf';
  for (const via of ['json', 'mcp'] as const) {
    const a = await sendRaw(via, 'split-rows', { file: { name, contentBase64: b64('a\n1\n') } });
    assertRefusal(a, 'unsupported_format', { option: 'file' });
    assert.ok(a.body.message.includes('[31mrojo'), 'the name is still recognizable');
    const u = await sendRaw(via, 'split-rows', { file: { name: 'x.csv', contentBase64: b64('a\n1\n') }, 'op\u001bción\n': 1 });
    assertRefusal(u, 'unknown_option');
    assert.ok(!/[\u0000-\u001f]/.test(u.body.option), JSON.stringify(u.body.option));
  }
});

test('http: malformed, deeply nested and enormous-key JSON bodies are clean 400s', async () => {
  const bodies = ['{', '{"file":', '[]', 'null', '"x"', '[' .repeat(100_000), `{"a":${'['.repeat(50_000)}${']'.repeat(50_000)}}`, `{${Array.from({ length: 20_000 }, (_, i) => `"k${i}":1`).join(',')}}`];
  for (const body of bodies) {
    const res = await fetch(run('split-rows'), { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(res.status, 400, body.slice(0, 30));
    const json: Json = await res.json();
    assert.equal(json.ok, false);
    assertCleanMessage(json.message);
  }
  await assertServes(suite.srv);
});

test('http: JSON-RPC abuse on /mcp (bad shapes, unknown methods, a batch of 200 calls) gets clean answers', async () => {
  const post = (body: string) => fetch(`${suite.srv.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
  await assertRpcError(await post('{"jsonrpc":"2.0"'), 400);
  for (const body of ['{"jsonrpc":"2.0","id":1}', '{"jsonrpc":"2.0","id":1,"method":"no/existe"}', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"split-rows","arguments":[1,2]}}']) {
    const res = await post(body);
    assert.ok(res.status < 500, `${body}: ${res.status}`);
    assert.ok(!/\n\s*at |\/(work|tmp)\/|node_modules/.test(await res.text()));
  }
  const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'split-rows', arguments: { file: { name: 'x.csv', contentBase64: b64('a\n1\n') } } } });
  const batch = await post(JSON.stringify(Array.from({ length: 200 }, (_, i) => call(i + 1))));
  assert.ok(batch.status < 500, `batch: ${batch.status}`);
  const text = await batch.text();
  assert.ok(!/internal_error/.test(text), 'no call of the batch failed inside');
  await assertServes(suite.srv);
});

/**
 * Opens a socket and sends `parts` one by one every `everyMs`; resolves when the server closes it, saying how
 * many parts were still unsent then. The client never closes it itself: a server that never does hangs here.
 */
function trickle(base: string, parts: string[], everyMs: number): Promise<{ unsent: number; text: string }> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const s: Socket = createConnection({ host: url.hostname, port: Number(url.port) });
    let i = 0;
    const tick = setInterval(() => {
      if (i < parts.length && !s.destroyed) s.write(parts[i++]);
    }, everyMs);
    s.on('data', (c) => chunks.push(c));
    s.on('error', () => {});
    s.on('close', () => {
      clearInterval(tick);
      resolve({ unsent: parts.length - i, text: Buffer.concat(chunks).toString('latin1') });
    });
  });
}

test('http: the socket timeouts are configuration, checked at start-up', () => {
  const c = parseConfig({});
  assert.deepEqual([c.HEADERS_TIMEOUT_S, c.REQUEST_TIMEOUT_S, c.KEEP_ALIVE_TIMEOUT_S], [10, 120, 5]);
  assert.throws(() => parseConfig({ HEADERS_TIMEOUT_S: '30', REQUEST_TIMEOUT_S: '20' }), /REQUEST_TIMEOUT_S/);
  assert.throws(() => parseConfig({ HEADERS_TIMEOUT_S: '0' }), /HEADERS_TIMEOUT_S/);
});

test('http: slow clients are cut off by HEADERS_TIMEOUT_S / REQUEST_TIMEOUT_S while others are served', async () => {
  const slow = await startHostile({ HEADERS_TIMEOUT_S: '1', REQUEST_TIMEOUT_S: '2', KEEP_ALIVE_TIMEOUT_S: '1' }, { jobs: 'inline' });
  const url = new URL(slow.url);
  try {
    assert.equal(slow.server.headersTimeout, 1000);
    assert.equal(slow.server.requestTimeout, 2000);
    assert.equal(slow.server.keepAliveTimeout, 1000);
    const head = `POST /api/v1/tools/split-rows/run HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
    const body = `{"file":{"name":"x.csv","contentBase64":"${'A'.repeat(900)}`;
    // Each slow client would take many times its bound to finish; the server must cut each one off (the
    // promise resolves only once it closes the socket) while it still has much left to send.
    const [headers, stalled, trickled, silent] = await Promise.all([
      // Headers one byte every 200 ms: the whole head would take over 20 s.
      trickle(slow.url, [...head], 200),
      // Headers at once, 40 body bytes, then nothing.
      trickle(slow.url, [head, body.slice(0, 40)], 10),
      // The body one byte every 100 ms: 1,000 bytes would take 100 s.
      trickle(slow.url, [head, ...body], 100),
      // Connects and sends nothing.
      trickle(slow.url, [], 1000),
      // Meanwhile an ordinary client is served.
      (async () => {
        const res = await fetch(`${slow.url}/health`);
        assert.equal(res.status, 200);
      })(),
    ]);
    assert.ok(headers.unsent > head.length / 2, `slow headers were read until ${headers.unsent} bytes were left`);
    assert.ok(trickled.unsent > body.length / 2, `a trickled body was read until ${trickled.unsent} bytes were left`);
    assert.equal(stalled.unsent, 0);
    for (const r of [headers, stalled, trickled, silent]) assert.ok(r.text === '' || /^HTTP\/1\.1 408/.test(r.text), r.text.slice(0, 80));
    // An idle keep-alive connection is closed by the server.
    const kept = await trickle(slow.url, [`GET /health HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`], 10);
    assert.match(kept.text, /^HTTP\/1\.1 200/);
  } finally {
    await slow.close();
  }
});

// Large files through every door, with the job processes: the JSON reader's long-string path (files decoded
// in the request's buffer), the multipart reader's one buffer for all file parts (and its chunked fallback),
// the hand-back and the download. Every door gives the bytes the tool gives in this process, and the limits
// and refusals of small bodies hold for large ones. A download goes out as its result arrives from the job
// process; one whose result stops arriving ends short of its length.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { unzipSync } from 'fflate';
import type { Request } from 'express';
import { readMultipart } from '../../bridge/multipart.ts';
import { execute } from '../../tools/core/execute.ts';
import type { InputFile } from '../../tools/core/files.ts';
import { SKELETON_MIN_BODY } from '../../tools/core/json-text.ts';
import { getTool } from '../../tools/core/registry.ts';
import { optionsSchema, parseOptions } from '../../tools/core/schema.ts';
import { transferables } from '../../tools/core/transfer.ts';
import { readJson } from '../../tools/core/http-body.ts';
import type { DecodedBase64 } from '../../tools/core/base64.ts';
import { bigCsv } from '../helpers/generate.ts';
import { inputFile } from '../helpers/run-tool.ts';
import { patternAt } from '../helpers/big-result-job.ts';
import { runsCounted, send, sendDownload, startHostile, type HostileServer, type Json } from '../hostile/harness.ts';

const BIG_RESULT_JOB = new URL('../helpers/big-result-job.ts', import.meta.url);

let srv: HostileServer;
before(async () => {
  srv = await startHostile({ MAX_JOBS: '2', MAX_INPUT_MB: '4' });
});
after(() => srv.close());

// Each file's base64 is past the JSON reader's threshold on its own.
const big = (rows: number, name: string) => inputFile(name, bigCsv(rows));
const A = big(9000, 'ventas.csv');
const B = big(7000, 'más-ventas.csv');
assert.ok(Math.ceil(B.bytes.length / 3) * 4 > SKELETON_MIN_BODY);

/** The tool's result files in this process (download: several zipped), as the job process computes them. */
async function inProcess(tool: string, files: InputFile[], options: Record<string, unknown>, download: boolean) {
  const t = getTool(tool);
  const r = await execute(t, files, parseOptions(optionsSchema(t), options), { lang: 'es', download });
  return r.files.map((f) => ({ name: f.name, bytes: Buffer.from(f.bytes) }));
}

/** Entries of a ZIP, or the file itself, keyed by name. */
const contents = (name: string, bytes: Uint8Array): Record<string, Buffer> =>
  name.endsWith('.zip') ? Object.fromEntries(Object.entries(unzipSync(bytes)).map(([k, v]) => [k, Buffer.from(v)])) : { [name]: Buffer.from(bytes) };

const cases: Array<{ tool: string; files: InputFile[]; options: Record<string, unknown> }> = [
  { tool: 'excel-to-json', files: [A], options: {} },
  { tool: 'merge-stack', files: [A, B], options: {} },
  { tool: 'split-rows', files: [A], options: { 'rows-per-file': 4000, format: 'csv' } },
];

for (const c of cases) {
  test(`large files: ${c.tool} gives the same bytes over JSON, multipart, download and MCP as in this process`, async () => {
    const inline = await inProcess(c.tool, c.files, c.options, false);
    const zipped = await inProcess(c.tool, c.files, c.options, true);
    const expected = Object.assign({}, ...zipped.map((f) => contents(f.name, f.bytes)));
    for (const via of ['json', 'multipart'] as const) {
      const d = await sendDownload(srv, via, c.tool, c.files, c.options);
      assert.equal(d.status, 200, `${via}: ${Buffer.from(d.bytes).toString().slice(0, 200)}`);
      const name = /filename\*=UTF-8''([^;]+)/.exec(d.headers.get('content-disposition') ?? '')![1];
      assert.equal(decodeURIComponent(name), zipped[0].name);
      assert.deepEqual(contents(zipped[0].name, d.bytes), expected, `${via} download`);
    }
    for (const via of ['json', 'multipart', 'mcp'] as const) {
      const a = await send(srv, via, c.tool, c.files, c.options);
      assert.equal(a.status, 200, `${via}: ${JSON.stringify(a.body).slice(0, 200)}`);
      const got = via === 'mcp' ? a.resources!.map((r) => Buffer.from(r.blob, 'base64')) : (a.body as Json).files.map((f: Json) => Buffer.from(f.contentBase64, 'base64'));
      assert.deepEqual(got, inline.map((f) => f.bytes), `${via} inline`);
    }
  });
}

test('large files: the limits and refusals of small bodies hold on the long-string path', async () => {
  // Past MAX_INPUT_MB (4 MB) by its declared size, then by its decoded size within the body limit.
  const tooBig = inputFile('grande.csv', bigCsv(90_000));
  assert.ok(tooBig.bytes.length > 4 * 1024 * 1024);
  for (const via of ['json', 'multipart'] as const) {
    const a = await send(srv, via, 'excel-to-json', [tooBig]);
    assert.deepEqual([a.status, a.body.error], [413, 'input_too_large'], via);
  }
  const b64 = Buffer.from(A.bytes).toString('base64');
  const post = (body: string) => fetch(`${srv.url}/api/v1/tools/excel-to-json/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  // A long text that is not base64, one with whitespace the rule drops, one with a control character (not JSON).
  const invalid = await post(JSON.stringify({ file: { name: 'a.csv', contentBase64: b64.slice(0, 4 * 100_000) + '*' + b64.slice(4 * 100_000) } }));
  const short = await post('{"file":{"name":"a.csv","contentBase64":"*"}}');
  assert.deepEqual([invalid.status, await invalid.json()], [short.status, await short.json()], 'refused as a short text is');
  const spaced = await post(JSON.stringify({ file: { name: 'a.csv', contentBase64: b64.slice(0, 4 * 100_000) + ' ' + b64.slice(4 * 100_000) } }));
  assert.equal(spaced.status, 200, 'whitespace is dropped, as for a short text');
  await spaced.arrayBuffer();
  const control = await post(`{"file":{"name":"a.csv","contentBase64":"${b64.slice(0, 4 * 100_000)}\u0001${b64.slice(4 * 100_000)}"}}`);
  const notJson = await post('{"file":{"name":"a.csv","contentBase64":"\u0001"}}');
  assert.deepEqual([control.status, await control.json()], [notJson.status, await notJson.json()], 'refused as a body that is not JSON');
  // The file object's shape is checked before its text, as for a short one.
  const extra = await post(JSON.stringify({ file: { name: 'a.csv', contentBase64: '*'.repeat(SKELETON_MIN_BODY), size: 1 } }));
  assert.deepEqual([extra.status, ((await extra.json()) as Json).error], [400, 'invalid_option']);
});

/** A request stand-in for readMultipart: the body's bytes in chunks, with or without a declared length. */
function formRequest(parts: Array<{ name: string; bytes: Uint8Array }>, declare: boolean, chunk = 16_384, cutter?: (body: Buffer) => Buffer[]): Request {
  const boundary = 'fronteraXYZ';
  const body = Buffer.concat([
    ...parts.flatMap((p) => [Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${p.name}"\r\n\r\n`), Buffer.from(p.bytes), Buffer.from('\r\n')]),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="has-header"\r\n\r\ntrue\r\n--${boundary}--\r\n`),
  ]);
  const req = new PassThrough() as unknown as Request & PassThrough;
  Object.assign(req, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, ...(declare ? { 'content-length': String(body.length) } : {}) }, complete: false });
  const chunks = cutter ? cutter(body) : Array.from({ length: Math.ceil(body.length / chunk) }, (_, i) => body.subarray(i * chunk, (i + 1) * chunk));
  Object.assign(req, { sent: chunks });
  setImmediate(() => {
    for (const c of chunks) req.write(c);
    (req as unknown as { complete: boolean }).complete = true;
    req.end();
  });
  return req;
}

test('multipart: every file part lands in one buffer of the declared length, let go whole; without a length, as before', async () => {
  const limits = { maxInputBytes: 4 * 1024 * 1024, maxInputMb: 4, maxFileParts: 5, maxDiscardBytes: 1 << 20 };
  const parts = [A, B, inputFile('vacío.csv', '')];
  const declared = await readMultipart(formRequest(parts, true), limits);
  assert.deepEqual(declared.files.map((f) => [f.name, Buffer.compare(Buffer.from(f.bytes), Buffer.from(parts.find((p) => p.name === f.name)!.bytes))]), parts.map((p) => [p.name, 0]));
  assert.equal(new Set(declared.files.map((f) => f.bytes.buffer)).size, 1, 'one buffer for every part');
  assert.deepEqual(transferables(declared.files.map((f) => f.bytes)), [declared.files[0].bytes.buffer], 'let go once, whole');
  assert.deepEqual(declared.fields, { 'has-header': 'true' });
  const chunked = await readMultipart(formRequest(parts, false), limits);
  assert.deepEqual(chunked.files.map((f) => Buffer.from(f.bytes)), declared.files.map((f) => Buffer.from(f.bytes)));
  // Small parts in one piece: busboy announces every part before the first one's bytes reach its stream.
  const small = [inputFile('a.csv', 'x\n1\n'), inputFile('b.csv', 'y\n22\n'), inputFile('c.csv', 'z\n333\n')];
  const together = await readMultipart(formRequest(small, true, 1 << 20), limits);
  assert.deepEqual(together.files.map((f) => [f.name, Buffer.from(f.bytes).toString()]), small.map((f) => [f.name, Buffer.from(f.bytes).toString()]));
  assert.equal(new Set(together.files.map((f) => f.bytes.buffer)).size, 1, 'in the one buffer too, each after the bytes still waiting for the part before');
});

test('multipart and JSON readers: a body chunk in a buffer of its own (as Node\'s HTTP parser gives it) is let go once read, never one a reader still needs', async () => {
  const limits = { maxInputBytes: 4 * 1024 * 1024, maxInputMb: 4, maxFileParts: 5, maxDiscardBytes: 1 << 20 };
  const big = (name: string, n: number) => inputFile(name, Uint8Array.from({ length: n }, (_, i) => (i * 31 + name.length) & 0xff));
  const parts = [big('uno.bin', 200_000), big('dos.bin', 100_003)];
  // Cut at an odd size, so that delimiters, headers and the field's text span chunks.
  const cut = 16_411;
  const owned = (body: Buffer) => {
    const chunks: Buffer[] = [];
    for (let at = 0; at < body.length; at += cut) chunks.push(Buffer.from(body.subarray(at, at + cut)));
    return chunks;
  };
  for (const declare of [true, false]) {
    const req = formRequest(parts, declare, cut, owned);
    const form = await readMultipart(req, limits);
    assert.deepEqual(form.files.map((f) => [f.name, Buffer.compare(Buffer.from(f.bytes), Buffer.from(parts.find((p) => p.name === f.name)!.bytes))]), parts.map((p) => [p.name, 0]));
    assert.deepEqual(form.fields, { 'has-header': 'true' });
    const sent = (req as unknown as { sent: Buffer[] }).sent;
    // With a declared length every file byte is in the one buffer: the chunks are let go (all but the last,
    // under the 16 KB worth a detach); without one, the files are the chunks themselves, which stay.
    assert.ok(sent.at(-1)!.length < 16_384);
    assert.deepEqual([...new Set(sent.slice(0, -1).map((c) => c.buffer.byteLength === 0))], [declare], `declared length: ${declare}`);
  }
  const body = Buffer.from(JSON.stringify({ file: { name: 'uno.bin', contentBase64: Buffer.from(parts[0].bytes).toString('base64') } }));
  const req = new PassThrough() as unknown as IncomingMessage & PassThrough;
  Object.assign(req, { headers: { 'content-type': 'application/json', 'content-length': String(body.length) }, complete: false });
  const chunks = owned(body);
  setImmediate(() => {
    for (const c of chunks) req.write(c);
    req.end();
  });
  const parsed = (await readJson(req, 1 << 22)) as { file: { name: string; contentBase64: DecodedBase64 } };
  assert.equal(Buffer.compare(Buffer.from(parsed.file.contentBase64.bytes!), Buffer.from(parts[0].bytes)), 0);
  assert.ok(chunks.slice(0, -1).every((c) => c.buffer.byteLength === 0), 'every chunk let go');
});

const BIG_RESULT = 48 * 1024 * 1024;
const bigRequest = (n: number) => inputFile('big.csv', String(n));

test('streamed downloads: a large result goes out as it arrives, byte for byte, counted once', async () => {
  const big = await startHostile({ MAX_JOBS: '1', MAX_RESULT_MB: '100' }, { workerModule: BIG_RESULT_JOB });
  try {
    const before = await runsCounted(big);
    const d = await sendDownload(big, 'multipart', 'csv-to-excel', [bigRequest(BIG_RESULT)]);
    assert.equal(d.status, 200);
    assert.equal(Number(d.headers.get('content-length')), BIG_RESULT);
    assert.equal(d.bytes.length, BIG_RESULT);
    for (let i = 0; i < BIG_RESULT; i += 4093) assert.equal(d.bytes[i], patternAt(i), `byte ${i}`);
    assert.equal(await runsCounted(big), before + 1);
    // The slot is free again once the bytes are in: the next run is not refused as busy.
    const next = await sendDownload(big, 'json', 'csv-to-excel', [bigRequest(1000)]);
    assert.equal(next.status, 200);
  } finally {
    await big.close();
  }
});

test('streamed downloads: a result that stops arriving is its error before the answer begins, and a cut connection after; the run counts as failed, the server goes on', async () => {
  const big = await startHostile({ MAX_JOBS: '1', MAX_RESULT_MB: '100' }, { workerModule: BIG_RESULT_JOB });
  const outcomes = async () => (await (await fetch(`${big.url}/metrics`)).text()).match(/^spreadsheet_tools_runs_total\{.*outcome="[a-z_]+"[^}]*\} \d+/gm)!.map((l) => /outcome="([a-z_]+)".*\} (\d+)/.exec(l)!.slice(1).join(' '));
  /** A job process that announces BIG_RESULT bytes, sends `sent` of them and dies (big-result-job.ts). */
  const post = (sent: number) =>
    fetch(`${big.url}/api/v1/tools/csv-to-excel/run?download=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ file: { name: 'cut.csv', contentBase64: Buffer.from(`${BIG_RESULT} ${sent}`).toString('base64') } }) });
  try {
    // Fewer bytes than the answer waits for before it begins (256 KB): the error is the answer.
    const early = await post(1000);
    assert.deepEqual([early.status, ((await early.json()) as Json).error], [413, 'too_complex']);
    const cut = await post(1 << 20);
    assert.equal(cut.status, 200, 'the answer had begun');
    assert.equal(Number(cut.headers.get('content-length')), BIG_RESULT);
    await assert.rejects(cut.arrayBuffer(), 'the body ends short of its length');
    const after = await sendDownload(big, 'multipart', 'csv-to-excel', [bigRequest(5000)]);
    assert.equal(after.status, 200);
    assert.equal(after.bytes[4999], patternAt(4999));
    assert.deepEqual((await outcomes()).sort(), ['ok 1', 'too_complex 2']);
  } finally {
    await big.close();
  }
});

// multipart/form-data through the real HTTP server: limits, malformed and truncated bodies, field rules.
// Raw sockets send what fetch will not; after each abuse the server must still answer /health.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { t } from '../../locales/index.ts';
import { formOf, postForm, rawHttp, startServer, type TestServer } from '../helpers/http.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const MAX_PARTS = 3;
let srv: TestServer;
before(async () => {
  // MAX_INPUT_MB=0.01 is 10,485 bytes for all files of a call together.
  srv = await startServer({ MAX_INPUT_MB: '0.01', MAX_FILE_PARTS: String(MAX_PARTS) }, { jobs: 'inline' });
});
after(() => srv.close());

const BOUNDARY = 'XyZbOuNdArY';
const CRLF = '\r\n';

function filePart(field: string, name: string, content: string): string {
  return `--${BOUNDARY}${CRLF}Content-Disposition: form-data; name="${field}"; filename="${name}"${CRLF}Content-Type: text/csv${CRLF}${CRLF}${content}${CRLF}`;
}
const closing = `--${BOUNDARY}--${CRLF}`;

function request(path: string, body: string, o: { contentLength?: number; keepAlive?: boolean } = {}): string {
  const length = o.contentLength ?? Buffer.byteLength(body);
  return (
    `POST ${path} HTTP/1.1${CRLF}Host: 127.0.0.1${CRLF}Content-Type: multipart/form-data; boundary=${BOUNDARY}${CRLF}` +
    `Content-Length: ${length}${CRLF}Connection: ${o.keepAlive ? 'keep-alive' : 'close'}${CRLF}${CRLF}${body}`
  );
}

function bodyOf(raw: string): Json {
  return JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
}

async function healthy() {
  const res = await fetch(`${srv.url}/health`);
  assert.equal(res.status, 200);
}

const expectError = async (res: Response, status: number, code: string, option: string | null = null) => {
  assert.equal(res.status, status);
  const body: Json = await res.json();
  assert.deepEqual([body.ok, body.error, body.option], [false, code, option]);
  return body;
};

test('a small form runs, and a UTF-8 file name reaches the kernel intact', async () => {
  const ok = await postForm(srv.url, 'split-rows', formOf([{ field: 'file', name: 'año.csv', content: 'a\n1\n' }], { format: 'csv' }));
  assert.equal(ok.status, 200);
  const wrong = await postForm(srv.url, 'split-rows', formOf([{ field: 'file', name: 'año.pdf', content: 'a\n1\n' }], { language: 'en' }));
  const body = await expectError(wrong, 400, 'unsupported_format', 'file');
  assert.match(body.message, /año\.pdf/);
});

test('a file part over MAX_INPUT_MB is 413 input_too_large; the server goes on', async () => {
  const res = await postForm(srv.url, 'split-rows', formOf([{ field: 'file', name: 'big.csv', content: 'a\n'.repeat(30_000) }]));
  await expectError(res, 413, 'input_too_large', 'files');
  await healthy();
});

test('files each under the bound but over it together are 413 input_too_large', async () => {
  const half = 'a\n'.repeat(3_000);
  const form = formOf([
    { name: 'a.csv', content: half },
    { name: 'b.csv', content: half },
  ]);
  await expectError(await postForm(srv.url, 'merge-stack', form), 413, 'input_too_large', 'files');
  await healthy();
});

test('more file parts than MAX_FILE_PARTS is refused with too_many_files', async () => {
  const files = Array.from({ length: MAX_PARTS + 1 }, (_, i) => ({ name: `f${i}.csv`, content: 'a\n1\n' }));
  const body = await expectError(await postForm(srv.url, 'merge-stack', formOf(files)), 400, 'too_many_files', 'files');
  assert.match(body.message, new RegExp(String(MAX_PARTS)));
});

test('too many text fields are refused with invalid_option', async () => {
  const fields = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, 'x']));
  const res = await postForm(srv.url, 'split-rows', formOf([{ field: 'file', name: 'a.csv', content: 'a\n1\n' }], fields));
  await expectError(res, 400, 'invalid_option');
});

test('a repeated field, a text field named file, an unnamed file part and an unknown file field are refused', async () => {
  const file = { field: 'file', name: 'a.csv', content: 'a\n1\n' };
  const repeated = formOf([file], { format: 'csv' });
  repeated.append('format', 'xlsx');
  await expectError(await postForm(srv.url, 'split-rows', repeated), 400, 'invalid_option', 'format');

  const textFile = formOf([], { file: 'a,b\n1,2\n' });
  await expectError(await postForm(srv.url, 'split-rows', textFile), 400, 'invalid_option', 'file');

  const unnamed = request('/api/v1/tools/split-rows/run', filePart('file', '', 'a\n1\n') + closing);
  const r1 = await rawHttp(srv.url, unnamed);
  assert.equal(r1.status, 400);
  assert.deepEqual([bodyOf(r1.text).error, bodyOf(r1.text).option], ['invalid_option', 'file']);

  const other = formOf([{ field: 'upload', name: 'a.csv', content: 'a\n1\n' }]);
  await expectError(await postForm(srv.url, 'split-rows', other), 400, 'unknown_option', 'upload');
});

test('a form without file parts is missing_file, as the same call in JSON', async () => {
  await expectError(await postForm(srv.url, 'split-rows', formOf([], { format: 'csv' })), 400, 'missing_file', 'file');
});

test('a multipart content type without a boundary is 400', async () => {
  const res = await fetch(`${srv.url}/api/v1/tools/split-rows/run`, { method: 'POST', headers: { 'content-type': 'multipart/form-data' }, body: 'x' });
  await expectError(res, 400, 'invalid_option');
});

test('a truncated multipart body (no closing boundary) is 400 with an Error body', async () => {
  const raw = request('/api/v1/tools/split-rows/run?lang=en', filePart('file', 'a.csv', 'a\n1\n').slice(0, -2));
  const answer = await rawHttp(srv.url, raw);
  assert.equal(answer.status, 400);
  const body = bodyOf(answer.text);
  assert.deepEqual([body.ok, body.error], [false, 'invalid_option']);
  assert.equal(body.message, t('en', 'rest.errors.multipart_malformed'));
  await healthy();
});

test('a malformed part header is 400', async () => {
  const raw = request('/api/v1/tools/split-rows/run', `--${BOUNDARY}${CRLF}Content-Disposition form-data${CRLF}${CRLF}x${CRLF}${closing}`);
  const answer = await rawHttp(srv.url, raw);
  assert.equal(answer.status, 400);
  await healthy();
});

test('a client that stops sending mid-body (half-close or drop) does not crash or hang the server', async () => {
  const partial = filePart('file', 'a.csv', 'a\n1\n2\n3\n');
  for (const end of ['half', 'destroy'] as const) {
    const raw = request('/api/v1/tools/split-rows/run', partial, { contentLength: partial.length + 5_000 });
    const answer = await rawHttp(srv.url, raw, { end, timeoutMs: 1000 });
    if (answer.status !== null) assert.equal(answer.status, 400);
    await healthy();
  }
  assert.equal(srv.kernel.jobs.active, 0);
});

/** Streams `total` body bytes after `head` + `first`, stopping when the server closes; returns what it answered. */
function hugeUpload(head: string, first: string, total: number): Promise<{ text: string; sent: number }> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port: Number(new URL(srv.url).port) });
    const chunks: Buffer[] = [];
    let sent = Buffer.byteLength(first);
    let closed = false;
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      resolve({ text: Buffer.concat(chunks).toString('latin1'), sent });
    });
    socket.write(head + first);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const pump = () => {
      while (!closed && sent < total) {
        const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += piece.length;
        if (!socket.write(piece)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

const TOTAL = 64 * 1024 * 1024;

test('after refusing a huge multipart upload the server stops reading it: 413 first, then it closes', async () => {
  // Keep-alive: the server must end the connection itself rather than read the whole body to reuse it.
  const head = request('/api/v1/tools/split-rows/run', '', { contentLength: TOTAL, keepAlive: true });
  const answer = await hugeUpload(head, filePart('file', 'big.csv', '').slice(0, -2), TOTAL);
  assert.match(answer.text, /^HTTP\/1\.1 413 /);
  assert.equal(bodyOf(answer.text).error, 'input_too_large');
  assert.ok(answer.sent < TOTAL, `the server read all ${answer.sent} bytes instead of closing`);
  await healthy();
});

test('a JSON body declared over the limit is refused before it is read, and the connection closed', async () => {
  const head =
    `POST /api/v1/tools/split-rows/run HTTP/1.1${CRLF}Host: 127.0.0.1${CRLF}Content-Type: application/json${CRLF}` +
    `Content-Length: ${TOTAL}${CRLF}Connection: keep-alive${CRLF}${CRLF}`;
  const answer = await hugeUpload(head, '{"file": {"name": "a.csv", "contentBase64": "', TOTAL);
  assert.match(answer.text, /^HTTP\/1\.1 413 /);
  const body = bodyOf(answer.text);
  assert.deepEqual([body.error, body.option], ['input_too_large', null]);
  assert.ok(answer.sent < TOTAL, `the server read all ${answer.sent} bytes instead of closing`);
  await healthy();
});

test('a huge upload to an unknown tool gets its 404 at once and is not read to the end', async () => {
  const head = request('/api/v1/tools/no-such-tool/run', '', { contentLength: TOTAL, keepAlive: true });
  const answer = await hugeUpload(head, filePart('file', 'big.csv', '').slice(0, -2), TOTAL);
  assert.match(answer.text, /^HTTP\/1\.1 404 /);
  assert.equal(bodyOf(answer.text).error, 'unknown_tool');
  assert.ok(answer.sent < TOTAL, `the server read all ${answer.sent} bytes instead of closing`);
  await healthy();
});

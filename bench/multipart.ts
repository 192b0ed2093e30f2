// The multipart reader (bridge/multipart-scan.ts) against busboy 1.6.0 (the reader it replaced, kept in
// test/helpers/multipart-busboy.ts), on the bench's medium CSV (100,000 rows, ~12 MB) in one file part:
// in this process, fed in 64 KB chunks as fast as the reader takes them; and over a real socket, sent by curl
// from /dev/shm to a bare node:http server, timed inside the server from the request's arrival to the form.
// A raw read of the body (bytes counted) is the floor. Runs alternate between the readers so that a busy moment hurts both alike; medians are printed.
//   node --import tsx bench/multipart.ts     (BENCH_ROWS=100000, BENCH_RUNS=15)
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import type { Request } from 'express';
import { readMultipart, type MultipartBody, type MultipartLimits } from '../bridge/multipart.ts';
import { readMultipartBusboy } from '../test/helpers/multipart-busboy.ts';
import { mediumRows, TITLES, toCsv } from './inputs.ts';
import { median } from './measure.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const CHUNK = 64 * 1024;
const BOUNDARY = '----WebKitFormBoundary7MA4YWxkTrZu0gW';
const LIMITS: MultipartLimits = { maxInputBytes: 100 * 1024 * 1024, maxInputMb: 100, maxFileParts: 10, maxDiscardBytes: 100 * 1024 * 1024 };
const readers: [string, (req: Request, limits: MultipartLimits) => Promise<MultipartBody>][] = [
  ['busboy 1.6.0', readMultipartBusboy],
  ['scanner', readMultipart],
  // The floor: the body's bytes read and counted, nothing parsed.
  ['raw body', rawBody],
];

const csv = toCsv(TITLES, mediumRows(ROWS));
const body = Buffer.concat([
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="format"\r\n\r\ncsv\r\n`),
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="medium.csv"\r\nContent-Type: text/csv\r\n\r\n`),
  csv,
  Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
]);
const headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(body.length) };

function rawBody(req: Request): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    let n = 0;
    req.on('data', (chunk: Buffer) => (n += chunk.length));
    req.on('error', reject);
    req.on('end', () => (n === body.length ? resolve(RAW) : reject(new Error(`read ${n} bytes`))));
  });
}
const RAW: MultipartBody = { files: [], fields: {} };

function check(form: MultipartBody): void {
  if (form === RAW) return;
  const file = form.files[0];
  if (form.files.length !== 1 || file.bytes.length !== csv.length || !Buffer.from(file.bytes).equals(csv) || form.fields.format !== 'csv') throw new Error('the form did not read back');
}

/** A request that hands the body over in 64 KB chunks, each when the reader asks for more. */
function chunkedRequest(): Request {
  let at = 0;
  const req = new Readable({
    read() {
      if (at >= body.length) {
        (req as unknown as { complete: boolean }).complete = true;
        this.push(null);
        return;
      }
      this.push(body.subarray(at, at + CHUNK));
      at += CHUNK;
    },
  });
  return Object.assign(req, { headers, complete: false, httpVersion: '1.1', socket: { destroyed: true } }) as unknown as Request;
}

async function inProcess(): Promise<Map<string, number[]>> {
  const times = new Map<string, number[]>(readers.map(([name]) => [name, []]));
  for (let run = -2; run < RUNS; run++) {
    for (const [name, read] of run % 2 === 0 ? readers : [...readers].reverse()) {
      const t0 = performance.now();
      const form = await read(chunkedRequest(), LIMITS);
      const ms = performance.now() - t0;
      check(form);
      if (run >= 0) times.get(name)!.push(ms);
    }
  }
  return times;
}

async function overSocket(): Promise<Map<string, number[]>> {
  const file = `/dev/shm/multipart-bench-${process.pid}.bin`;
  writeFileSync(file, body);
  const times = new Map<string, number[]>(readers.map(([name]) => [name, []]));
  const read = new Map(readers);
  let last = 0;
  const server = createServer((req: IncomingMessage, res) => {
    const t0 = performance.now();
    read
      .get(decodeURIComponent(req.url!.slice(1)))!(req as Request, LIMITS)
      .then((form) => {
        last = performance.now() - t0;
        check(form);
        res.end('ok');
      })
      .catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
  try {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    for (let run = -2; run < RUNS; run++) {
      for (const [name] of run % 2 === 0 ? readers : [...readers].reverse()) {
        const url = `http://127.0.0.1:${port}/${encodeURIComponent(name)}`;
        const { stdout } = await promisify(execFile)('curl', ['-sS', '--data-binary', `@${file}`, '-H', `Content-Type: ${headers['content-type']}`, url], { timeout: 60_000 });
        if (stdout !== 'ok') throw new Error(`${name}: ${stdout}`);
        if (run >= 0) times.get(name)!.push(last);
      }
    }
  } finally {
    server.close();
    rmSync(file, { force: true });
  }
  return times;
}

const fmt = (xs: number[]) => `median ${median(xs)!.toFixed(1)} ms (min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)})`;
console.log(`multipart: one ${(csv.length / 1024 / 1024).toFixed(1)} MB CSV file part (${ROWS} rows), ${RUNS} runs each, alternated`);
for (const [where, times] of [['in process, 64 KB chunks', await inProcess()], ['over a socket, curl --data-binary', await overSocket()]] as const) {
  console.log(`  ${where}:`);
  for (const [name, xs] of times) console.log(`    ${name.padEnd(14)} ${fmt(xs)}`);
}

// Early refusals reach the client: a body refused before it is read (413 from its Content-Length, 503 busy)
// or while it is read (a chunked body past the limit) is answered, then the connection is closed in stages
// (half-close, then the rest of the body read and dropped, within bounds), so that clients that send their
// whole body before reading (Python's http.client and urllib) see the answer instead of a reset, as Node's
// fetch and http.request do. Each client kind tries many times: a race lost once is a failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bodyLimitBytes, parseConfig } from '../../tools/core/config.ts';
import { fileObject, postRun, startServer, type TestServer } from '../helpers/http.ts';

const MAX_INPUT_MB = '1';
const LIMIT = bodyLimitBytes(parseConfig({ MAX_INPUT_MB }));
const TRIES = 20;
const HOLD = new URL('../helpers/hold-job.ts', import.meta.url);

/** A JSON run body of `bytes` bytes (its base64 past the limit when `bytes` is). */
const jsonOf = (bytes: number) => Buffer.from(`{"file":{"name":"x.csv","contentBase64":"${'QUJD'.repeat(Math.ceil((bytes - 45) / 4))}"}}`);

/** Statuses seen by Node's fetch and http.request over `TRIES` posts each; a failed request counts as its error code. */
async function nodeClients(url: string, body: Buffer | (() => AsyncIterable<Uint8Array>), headers: Record<string, string>): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  const count = (k: string) => (seen[k] = (seen[k] ?? 0) + 1);
  for (let i = 0; i < TRIES; i++) {
    try {
      const payload = typeof body === 'function' ? { body: ReadableStreamFrom(body()), duplex: 'half' } : { body };
      const res = await fetch(url, { method: 'POST', headers, ...payload } as RequestInit);
      count(`fetch ${res.status}`);
      await res.arrayBuffer();
    } catch (err) {
      count(`fetch ${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`);
    }
    if (typeof body === 'function') continue;
    count(
      await new Promise<string>((resolve) => {
        const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
          res.resume();
          resolve(`http.request ${res.statusCode}`);
        });
        req.on('error', (err: NodeJS.ErrnoException) => resolve(`http.request ${err.code}`));
        req.end(body);
      }),
    );
  }
  return seen;
}

function ReadableStreamFrom(it: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = it[Symbol.asyncIterator]();
  return new ReadableStream({
    async pull(c) {
      const { value, done } = await iterator.next();
      if (done) c.close();
      else c.enqueue(value);
    },
  });
}

const PYTHON = `
import http.client, json, sys, urllib.error, urllib.request
url, size, tries, chunked = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == 'chunked'
host, port = url.split('//')[1].split('/')[0].split(':')
path = '/' + url.split('//')[1].split('/', 1)[1]
prefix = b'{"file":{"name":"x.csv","contentBase64":"'
body = prefix + b'QUJD' * ((size - len(prefix) - 3) // 4) + b'"}}'
seen = {}
def count(k): seen[k] = seen.get(k, 0) + 1
def pieces():
    for i in range(0, len(body), 65536): yield body[i:i + 65536]
for _ in range(tries):
    try:
        c = http.client.HTTPConnection(host, int(port))
        if chunked: c.request('POST', path, pieces(), {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream'}, encode_chunked=True)
        else: c.request('POST', path, body, {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream'})
        r = c.getresponse(); r.read(); count('http.client %d' % r.status); c.close()
    except Exception as e: count('http.client ' + type(e).__name__)
    if chunked: continue
    try:
        urllib.request.urlopen(urllib.request.Request(url, data=body, method='POST', headers={'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream'})).read()
        count('urllib 200')
    except urllib.error.HTTPError as e: count('urllib %d' % e.code)
    except Exception as e: count('urllib ' + type(e).__name__)
print(json.dumps(seen))
`;

/** Statuses seen by Python's http.client and urllib over `TRIES` posts each of a `size`-byte JSON body. */
function pythonClients(url: string, size: number, mode: 'length' | 'chunked'): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', PYTHON, url, String(size), String(TRIES), mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Record<string, number>) : reject(new Error(`python3 exit ${code}: ${out}`))));
  });
}

/** Every try of every client saw `status`. */
function assertAllSaw(seen: Record<string, number>, status: number, clients: string[], what: string): void {
  const expected = Object.fromEntries(clients.map((c) => [`${c} ${status}`, TRIES]));
  assert.deepEqual(seen, expected, what);
}

async function withServer(env: Record<string, string>, fn: (srv: TestServer) => Promise<void>, workerModule?: URL) {
  const srv = await startServer({ MAX_INPUT_MB, ...env }, workerModule ? { workerModule } : { jobs: 'inline' });
  try {
    await fn(srv);
  } finally {
    await srv.close();
  }
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

test('refusals: a body declared past the limit gets its 413 through every client, on /api and /mcp', async () => {
  await withServer({}, async (srv) => {
    const body = jsonOf(Math.round(2.5 * LIMIT));
    for (const path of ['/api/v1/tools/split-rows/run', '/mcp']) {
      assertAllSaw(await nodeClients(srv.url + path, body, JSON_HEADERS), 413, ['fetch', 'http.request'], `node, ${path}`);
      assertAllSaw(await pythonClients(srv.url + path, body.length, 'length'), 413, ['http.client', 'urllib'], `python, ${path}`);
    }
    const ok = await postRun(srv.url, 'split-rows', { file: fileObject('x.csv', 'a\n1\n') });
    assert.equal(ok.status, 200);
  });
});

test('refusals: a chunked body past the limit gets its 413 through every client', async () => {
  await withServer({}, async (srv) => {
    const size = Math.round(2.5 * LIMIT);
    const stream = async function* () {
      const body = jsonOf(size);
      for (let at = 0; at < body.length; at += 65536) yield body.subarray(at, at + 65536);
    };
    for (const path of ['/api/v1/tools/split-rows/run', '/mcp']) {
      assertAllSaw(await nodeClients(srv.url + path, stream, JSON_HEADERS), 413, ['fetch'], `node, ${path}`);
      assertAllSaw(await pythonClients(srv.url + path, size, 'chunked'), 413, ['http.client'], `python, ${path}`);
    }
  });
});

test('refusals: with the only job slot held, a run gets its 503 busy through every client', async () => {
  await withServer(
    { MAX_JOBS: '1' },
    async (srv) => {
      const dir = mkdtempSync(join(tmpdir(), 'st-hold-'));
      const marker = join(dir, 'let-go');
      const held = postRun(srv.url, 'split-rows', { file: fileObject('hold.csv', marker) });
      try {
        while (srv.kernel.jobs.active === 0) await new Promise((r) => setTimeout(r, 10));
        // Within the limit (read to its end, the connection kept) and past it (closed in stages).
        for (const size of [Math.round(0.8 * LIMIT), Math.round(2.5 * LIMIT)]) {
          const expected = size > LIMIT ? 413 : 503;
          assertAllSaw(await nodeClients(`${srv.url}/api/v1/tools/split-rows/run`, jsonOf(size), JSON_HEADERS), expected, ['fetch', 'http.request'], `node, ${size} bytes`);
          assertAllSaw(await pythonClients(`${srv.url}/api/v1/tools/split-rows/run`, size, 'length'), expected, ['http.client', 'urllib'], `python, ${size} bytes`);
        }
        // Of unknown length (chunked): counted as the largest body, refused busy, closed in stages.
        assertAllSaw(await pythonClients(`${srv.url}/api/v1/tools/split-rows/run`, Math.round(0.8 * LIMIT), 'chunked'), 503, ['http.client'], 'python, chunked');
      } finally {
        writeFileSync(marker, '');
        // Removed once the held run has answered (its job looks for the marker until then).
        assert.equal((await held.finally(() => rmSync(dir, { recursive: true, force: true }))).status, 200);
      }
    },
    HOLD,
  );
});

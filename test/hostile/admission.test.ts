// Early refusals (tools/core/admission.ts): when every job slot is taken, a run is answered 503 busy before
// its body is read; bodies in flight are bounded overall and per client address, so that concurrent uploads
// cannot exhaust memory and one address cannot keep others out. Raw sockets send headers whose bodies never
// come: an answer that arrives anyway proves the body was not waited for.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createConnection, type Socket } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bodyLimitBytes } from '../../tools/core/config.ts';
import { runsCounted, startHostile, type HostileServer } from './harness.ts';

let srv: HostileServer;
let limit: number;
before(async () => {
  // The hold job keeps a slot taken for as long as a test needs it (test/helpers/hold-job.ts).
  srv = await startHostile({ MAX_JOBS: '1', MAX_INPUT_MB: '1', ANON_RUNS_PER_HOUR: '50' }, { workerModule: new URL('../helpers/hold-job.ts', import.meta.url) });
  limit = bodyLimitBytes(srv.config);
});
after(() => srv?.close());

/** Resolves once `check` holds, looking again every 10 ms (no time limit: the runner's timeout is the bound). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 10));
}

interface Held {
  socket: Socket;
  /** Resolves with what the server sent once it answers (or closes). */
  answer: Promise<string>;
}

/** A run whose headers declare `length` body bytes, of which only `sent` are sent; the socket stays open. */
function holdRun(o: { length: number; sent?: number; body?: string; from?: string; path?: string; type?: string }): Held {
  const url = new URL(srv.url);
  const socket = createConnection({ host: url.hostname, port: Number(url.port), localAddress: o.from ?? '127.0.0.1' });
  const chunks: Buffer[] = [];
  const answer = new Promise<string>((resolve) => {
    socket.on('data', (c) => {
      chunks.push(c);
      const text = Buffer.concat(chunks).toString('utf8');
      // Enough to read: the head and a JSON body whose length the head declares.
      const m = /content-length: (\d+)/i.exec(text);
      const start = text.indexOf('\r\n\r\n');
      if (m && start > 0 && Buffer.byteLength(text.slice(start + 4)) >= Number(m[1])) resolve(text);
    });
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', () => {});
  });
  const head = `POST ${o.path ?? '/api/v1/tools/split-rows/run'} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: ${o.type ?? 'application/json'}\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${o.length}\r\n\r\n`;
  socket.write(head + (o.body ?? '{"file":'.slice(0, o.sent ?? 0)));
  return { socket, answer };
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
const headerOf = (raw: string, name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(raw)?.[1]?.trim();
const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));

async function smallRun(from = '127.0.0.1'): Promise<number> {
  // `{}`: a whole body without a file, refused as missing_file (400) once admitted, or earlier as busy (503).
  const held = holdRun({ length: 2, body: '{}', from });
  const raw = await held.answer;
  held.socket.destroy();
  return statusOf(raw);
}

test('admission: with every slot taken, a run is 503 busy at once, its body never read, quota untouched', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'st-hold-'));
  const marker = join(dir, 'let-go');
  const slow = srv.kernel.jobs.run({ toolId: 'split-rows', files: [{ name: 'hold.csv', bytes: new TextEncoder().encode(marker) }], opts: { 'rows-per-file': 1_000_000, 'has-header': true, 'repeat-header': true, format: 'xlsx' }, lang: 'es', download: true });
  try {
    await until(() => srv.kernel.jobs.active === 1);
    const before = await runsCounted(srv);
    const held = holdRun({ length: limit, sent: 3 });
    // Answered at all: the body (of which 3 bytes were sent) was not waited for.
    const raw = await held.answer;
    held.socket.destroy();
    assert.equal(statusOf(raw), 503);
    assert.equal(bodyOf(raw).error, 'busy');
    assert.ok(Number(headerOf(raw, 'retry-after')) >= 1);
    assert.equal(headerOf(raw, 'ratelimit-limit'), '50');
    assert.equal(headerOf(raw, 'ratelimit-remaining'), '50', 'a busy refusal uses no quota');
    assert.equal(await runsCounted(srv), before + 1, 'the refusal is one usage event');
  } finally {
    writeFileSync(marker, '');
    // Removed once the held job has ended (it looks for the marker until then).
    await slow.finally(() => rmSync(dir, { recursive: true, force: true }));
  }
});

test('admission: bodies in flight are bounded per address and overall, and freed when their requests end', async () => {
  assert.equal(srv.kernel.jobs.active, 0);
  // MAX_JOBS = 1: one full body per address, three overall.
  const a = holdRun({ length: limit, sent: 3, from: '127.0.0.1' });
  await until(() => srv.kernel.admission.inFlight === limit);
  assert.equal(await smallRun('127.0.0.1'), 503, 'a second body from the same address waits for the first');
  assert.equal(await smallRun('127.0.0.2'), 400, 'another address is still served (its body without a file is refused as such)');
  const b = holdRun({ length: limit, sent: 3, from: '127.0.0.2' });
  const c = holdRun({ length: limit, sent: 3, from: '127.0.0.3' });
  await until(() => srv.kernel.admission.inFlight === 3 * limit);
  assert.equal(await smallRun('127.0.0.4'), 503, 'three full bodies in flight fill the budget for everyone');
  // MCP messages share the budget.
  const mcp = holdRun({ length: 100, from: '127.0.0.5', path: '/mcp' });
  const raw = await mcp.answer;
  mcp.socket.destroy();
  assert.equal(statusOf(raw), 503);
  assert.ok(Number(headerOf(raw, 'retry-after')) >= 1);
  for (const h of [a, b, c]) h.socket.destroy();
  // Every reservation is released when its connection closes (else this waits until the runner's timeout).
  await until(() => srv.kernel.admission.inFlight === 0);
  assert.equal(await smallRun('127.0.0.4'), 400, 'served again');
});

// SIGTERM on one replica: the run in flight answers 200, a request that reaches a connection still open after
// the signal is refused 503 `busy` with Connection: close instead of starting a new run, and the process exits
// 0. The late request is made deterministic by opening its connection and sending part of its headers before
// the signal (such a connection is not idle, so stopping waits for it) and the rest after.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createConnection, type Socket } from 'node:net';
import { bigCsv } from '../helpers/generate.ts';
import { startReplica } from './processes.ts';

function rawConnection(port: number) {
  const socket: Socket = createConnection({ host: '127.0.0.1', port });
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => {});
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1'))));
  return { socket, closed };
}

test('stopping: the run in flight completes, a request arriving after SIGTERM is refused, exit 0', { timeout: 180_000 }, async () => {
  const replica = await startReplica({ MAX_JOBS: '1', SHUTDOWN_TIMEOUT_S: '120', HEADERS_TIMEOUT_S: '120', REQUEST_TIMEOUT_S: '120', ANON_RUNS_PER_HOUR: '100' });
  try {
    const port = Number(new URL(replica.url).port);
    const body = JSON.stringify({ file: { name: 'lento.csv', contentBase64: Buffer.from(bigCsv(60_000)).toString('base64') }, 'rows-per-file': 1_000_000 });
    const running = rawConnection(port);
    running.socket.write(`POST /api/v1/tools/split-rows/run?download=true HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    for (let i = 0; ; i++) {
      const h = (await (await fetch(`${replica.url}/health`, { headers: { connection: 'close' } })).json()) as { jobs: number };
      if (h.jobs > 0) break;
      assert.ok(i < 2000, 'the run never started');
      await new Promise((r) => setTimeout(r, 10));
    }
    const late = rawConnection(port);
    late.socket.write(`POST /api/v1/tools/excel-to-json/run?lang=en HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    // One more round trip, begun after those bytes were sent: once it is answered, the server has read them.
    await (await fetch(`${replica.url}/health`, { headers: { connection: 'close' } })).arrayBuffer();
    replica.child.kill('SIGTERM');
    await replica.waitFor(/SIGTERM, finishing requests in flight/);
    late.socket.write('Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}');

    const first = await running.closed;
    assert.match(first, /^HTTP\/1\.1 200 /, 'the run in flight completes');
    assert.ok(first.length > 100_000);
    const second = await late.closed;
    assert.match(second, /^HTTP\/1\.1 503 /, second.slice(0, 200));
    assert.match(second, /\r\nconnection: close\r\n/i);
    assert.match(second, /\r\nretry-after: \d+\r\n/i);
    assert.match(second, /"error":"busy"/);
    assert.match(second, /"message":"The server/, 'in the language the request asked for');
    assert.equal(await replica.exited, 0);
  } finally {
    await replica.kill();
  }
});

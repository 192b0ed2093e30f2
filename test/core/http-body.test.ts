import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { discardRest } from '../../tools/core/http-body.ts';

const LIMIT = 1 << 20;

/**
 * A server that refuses every request at once, before its body has arrived, as a busy run is refused;
 * `answered` settles when the answer has gone out and the server has done what it does with the socket next.
 */
async function refusingServer(): Promise<{ server: Server; answered: Promise<void> }> {
  let done: () => void = () => {};
  const answered = new Promise<void>((r) => (done = r));
  const server = createServer((req, res) => {
    discardRest(req, LIMIT, res);
    res.on('finish', () => {
      // Node's close follows the answer in the same turn (destroySoon); a closed socket says so at once.
      const timer = setTimeout(done, 200);
      req.socket.once('close', () => (clearTimeout(timer), done()));
    });
    res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"busy"}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, answered };
}

/**
 * Sends the head and half of a body, waits until the server has answered, then sends the rest and only then
 * reads, as a client that writes its whole body before it reads (Python's urllib) does.
 */
async function answerAfterSendingAll(port: number, answered: Promise<void>): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  try {
    await once(socket, 'connect');
    socket.pause();
    const body = Buffer.alloc(256 * 1024, 'a');
    socket.write(`POST /run HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`);
    socket.write(body.subarray(0, body.length / 2));
    await answered;
    await new Promise<void>((resolve) => socket.write(body.subarray(body.length / 2), () => resolve()));
    // Time for a reset to come back, were the server to send one.
    await new Promise((r) => setTimeout(r, 100));
    let received = '';
    const ended = new Promise<string>((resolve) => {
      socket.on('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code}`));
      socket.on('end', () => resolve('end'));
    });
    socket.on('data', (d) => (received += d));
    socket.resume();
    const how = await ended;
    return `${received.split('\r\n')[0]} / ${how}`;
  } finally {
    socket.destroy();
  }
}

test('a body within the limit refused early: a client that asked to close still gets a clean close after its whole body', async () => {
  const { server, answered } = await refusingServer();
  try {
    const { port } = server.address() as AddressInfo;
    assert.equal(await answerAfterSendingAll(port, answered), 'HTTP/1.1 503 Service Unavailable / end');
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

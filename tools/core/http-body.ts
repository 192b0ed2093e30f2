// What both front doors do with a request body they refuse before reading it (busy, over budget): neither
// keep it nor slam the connection on a client that is still sending.
import type { IncomingMessage } from 'node:http';

/**
 * Discards the rest of a refused body without keeping it. Reading on (rather than closing at once) lets the
 * client finish its upload and read the error; a client that keeps sending past `maxBytes` is cut off.
 */
export function discardRest(req: IncomingMessage, maxBytes: number): void {
  if (req.complete || req.destroyed) return;
  if (Number(req.headers['content-length']) <= maxBytes) draining.add(req);
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > maxBytes) req.socket.destroy();
  });
  req.resume();
}

const draining = new WeakSet<IncomingMessage>();

/**
 * Whether the request's body is (or will be) read to its end, so that its connection can carry the next
 * request. When it is not, an early answer says `Connection: close`; when it is, saying so would make Node
 * close the socket while the client is still sending, and a client such as fetch loses the answer (EPIPE).
 */
export function bodyWillEnd(req: IncomingMessage): boolean {
  return req.complete || draining.has(req);
}

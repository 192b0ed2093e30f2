// What both front doors do with a request body they refuse before reading it (busy, over budget): neither
// keep it nor slam the connection on a client that is still sending.
import type { IncomingMessage } from 'node:http';

/**
 * Discards the rest of a refused body without keeping it. Reading on (rather than closing at once) lets the
 * client finish its upload and read the error; a client that keeps sending past `maxBytes` is cut off.
 */
export function discardRest(req: IncomingMessage, maxBytes: number): void {
  if (req.complete || req.destroyed) return;
  let seen = 0;
  req.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > maxBytes) req.socket.destroy();
  });
  req.resume();
}

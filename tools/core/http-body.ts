// Request bodies at both front doors: the JSON reader, and what a refusal does with a body it will not read.
//
// The JSON reader replaces body-parser's because body-parser reads a refused body to its end before it
// answers (a chunked 200 MB body past the limit was answered after all of it had arrived), and inflates
// gzip and deflate bodies on the main thread while the admission budget counts their compressed size.
// Here a body is counted as it arrives and refused the moment it passes the limit, content codings are
// refused before any byte is read, and a body of declared length is read into one buffer of that length.
//
// A refused body is never kept. Either it is read to its end and thrown away, so that the connection can
// carry the next request (a body within the limit, refused early as busy); or the answer goes out with
// `Connection: close` and the connection is closed in stages: the answer, then a half-close, then whatever
// the client still sends is read and dropped for a bounded time and byte count, then the socket is closed.
// Closing at once would make the kernel reset the connection while the client is still sending, and a client
// that sends its whole body before it reads (Python's http.client and urllib, for instance) loses the answer.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { parseJsonBody } from './json-text.ts';
import { releaseChunk } from './transfer.ts';

/** How long a refused connection is kept reading (and dropping) what the client still sends. */
export const LINGER_MS = 10_000;
/** Bytes dropped while lingering, as a multiple of the body limit; past it the connection is closed. */
export const LINGER_LIMITS = 4;

/** A failure to read a body, in body-parser's shape (status and type), which the error handlers map. */
export interface BodyError extends Error {
  status: number;
  type: string;
  expose: true;
}

function bodyError(status: number, type: string, message: string): BodyError {
  return Object.assign(new Error(message), { status, type, expose: true as const });
}

const draining = new WeakSet<IncomingMessage>();
const lingering = new WeakSet<Socket>();

/**
 * What a refusal does with the rest of a body: read to its end when it declares at most `maxBytes`, else
 * (larger, or of unknown length) answered with `Connection: close` (set on `res` when given; the error
 * handlers set it from bodyWillEnd) and closed in stages once answered. Whoever was reading it must have
 * stopped (unpiped, or its listener removed): from here on its bytes are dropped.
 */
export function discardRest(req: IncomingMessage, maxBytes: number, res?: ServerResponse): void {
  if (req.complete || req.destroyed) return;
  const declared = req.headers['content-length'];
  req.removeAllListeners('data');
  req.resume();
  if (declared !== undefined && Number(declared) <= maxBytes) {
    draining.add(req);
    // A client that asked to close (urllib does) gets the answer and then Node's close while it may still be
    // sending: that close must be the staged one too, or the kernel resets the connection under the answer.
    if (asksToClose(req)) closeInStages(req.socket, maxBytes);
    return;
  }
  if (res && !res.headersSent) res.setHeader('Connection', 'close');
  closeInStages(req.socket, LINGER_LIMITS * maxBytes);
}

function asksToClose(req: IncomingMessage): boolean {
  const connection = String(req.headers.connection ?? '').toLowerCase();
  return /(^|,)\s*close\s*(,|$)/.test(connection) || (req.httpVersion === '1.0' && !/keep-alive/.test(connection));
}

/**
 * Whether the request's body is (or will be) read to its end, so that its connection can carry the next
 * request. When it is not, an early answer must say `Connection: close` (which starts the staged close);
 * when it is, saying so would close the socket while the client is still sending.
 */
export function bodyWillEnd(req: IncomingMessage): boolean {
  return req.complete || draining.has(req);
}

/**
 * Node ends a `Connection: close` answer with `socket.destroySoon()`: the answer, then a close that resets a
 * connection the client is still writing to. On this socket it becomes a half-close, and what still arrives
 * is dropped until `maxBytes` more or LINGER_MS have passed (or the client closes).
 */
function closeInStages(socket: Socket, maxBytes: number): void {
  if (lingering.has(socket) || socket.destroyed) return;
  lingering.add(socket);
  let seen = 0;
  let closing = false;
  // Counting from now: a listener here also has the HTTP parser hand the bytes to JavaScript.
  socket.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (closing && seen > maxBytes) socket.destroy();
  });
  socket.destroySoon = function lingeringClose(this: Socket) {
    closing = true;
    this.end();
    this.resume();
    if (seen > maxBytes) return void this.destroy();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
}

const isJson = (req: IncomingMessage) => /^application\/json\s*(;|$)/i.test(String(req.headers['content-type'] ?? ''));

/** A request's Content-Encoding when it is one that would need decoding (anything but identity), else null. */
export function contentCoding(req: IncomingMessage): string | null {
  const coding = String(req.headers['content-encoding'] ?? '').trim().toLowerCase();
  return coding === '' || coding === 'identity' ? null : coding;
}

/**
 * Reads a JSON body of at most `limit` bytes: undefined without a body (or when it is not JSON), `{}` for an
 * empty one (as body-parser does). Like body-parser in strict mode, only an object or an array is JSON here.
 * Rejects with a BodyError: 413 the moment the count passes the limit (the rest discarded as above), 415 for
 * a content coding or a charset other than UTF-8, 400 for a body cut short or that does not parse.
 */
export function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const hasBody = req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
  if (!hasBody || !isJson(req)) return Promise.resolve(undefined);
  const coding = contentCoding(req);
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(String(req.headers['content-type']))?.[1].toLowerCase();
  const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
  const refuse = (err: BodyError) => {
    discardRest(req, limit);
    return Promise.reject(err);
  };
  if (coding !== null) return refuse(bodyError(415, 'encoding.unsupported', `content coding ${coding} is not accepted`));
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return refuse(bodyError(415, 'charset.unsupported', `charset ${charset} is not accepted`));
  if (declared !== undefined && !(declared <= limit)) return refuse(bodyError(413, 'entity.too.large', 'request entity too large'));

  return new Promise((resolve, reject) => {
    // A declared length is read into one buffer of that length; chunks are kept only without one.
    const whole = declared !== undefined ? Buffer.allocUnsafe(declared) : null;
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const done = (err: BodyError | null, value?: unknown) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('aborted', onAborted);
      req.off('close', onClose);
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit || (whole !== null && received > whole.length)) {
        done(bodyError(413, 'entity.too.large', 'request entity too large'));
        discardRest(req, limit);
      } else if (whole !== null) {
        chunk.copy(whole, received - chunk.length);
        releaseChunk(chunk);
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      if (whole !== null && received !== whole.length) return done(bodyError(400, 'request.size.invalid', 'request size did not match content length'));
      try {
        done(null, parseJsonBody(whole ?? Buffer.concat(chunks)));
      } catch (err) {
        done(Object.assign(bodyError(400, 'entity.parse.failed', (err as Error).message), { body: undefined }));
      }
    };
    const onAborted = () => done(bodyError(400, 'request.aborted', 'request aborted'));
    const onClose = () => {
      if (!req.complete) onAborted();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('aborted', onAborted);
    req.on('close', onClose);
  });
}

/** readJson as a middleware: the body goes to `req.body`, a failure to `next`. */
export function jsonBody(limit: number) {
  return function readJsonBody(req: IncomingMessage & { body?: unknown }, _res: unknown, next: (err?: unknown) => void): void {
    readJson(req, limit).then(
      (body) => {
        req.body = body;
        next();
      },
      next,
    );
  };
}

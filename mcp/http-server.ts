// The HTTP server around the app, with every socket timeout set from Config. Node's defaults (headers 60 s,
// request 300 s, checked only every 30 s) let slow clients hold sockets for minutes; these bounds are
// checked at least once a second, so a client is cut off close to the bound it passed.
import { createServer, STATUS_CODES, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { DEFAULT_LANG } from '../locales/index.ts';
import type { Config } from '../tools/core/config.ts';
import { ERROR_STATUS, ToolError, type ErrorCode } from '../tools/core/errors.ts';
import { errorBody } from '../tools/core/wire.ts';

type Timeouts = Pick<Config, 'HEADERS_TIMEOUT_S' | 'REQUEST_TIMEOUT_S' | 'KEEP_ALIVE_TIMEOUT_S'>;

/** An HTTP server for `app` with the configured header, request and keep-alive timeouts. */
export function createHttpServer(app: RequestListener, config: Timeouts): Server {
  const headersMs = Math.round(config.HEADERS_TIMEOUT_S * 1000);
  const server = createServer(
    {
      headersTimeout: headersMs,
      requestTimeout: Math.round(config.REQUEST_TIMEOUT_S * 1000),
      keepAliveTimeout: Math.round(config.KEEP_ALIVE_TIMEOUT_S * 1000),
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersMs / 4))),
    },
    app,
  );
  server.on('clientError', answerClientError);
  return server;
}

/** Node's own answers to a request it cannot parse, by its error code; anything else is 400. */
const CLIENT_ERRORS: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'headers_too_large',
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
};

/**
 * A request Node could not parse (a malformed request line or header, a bad chunk) or that timed out: the
 * Error body with the status Node would send, and the connection closed, since what follows on it cannot be
 * trusted to start a request. No request was parsed, so there is no language to honour: the default.
 */
function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  // A connection reset has nobody to tell; one whose answer has begun cannot carry another (Node's own rule).
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || !socket.writable || answering) {
    socket.destroy();
    return;
  }
  const code = CLIENT_ERRORS[err.code ?? ''] ?? 'bad_request';
  const body = Buffer.from(JSON.stringify(errorBody(new ToolError(code), DEFAULT_LANG)), 'utf8');
  const status = ERROR_STATUS[code];
  socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${body.length}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n`);
  socket.end(body);
}

/** Starts listening; resolves with the server once it is bound (port 0 picks a free one). */
export function listen(app: RequestListener, config: Timeouts & Pick<Config, 'PORT' | 'HOST'>): Promise<Server> {
  const server = createHttpServer(app, config);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.PORT, config.HOST, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** `http://host:port` of a listening server. */
export function urlOf(server: Server): string {
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `http://${host}:${addr.port}`;
}

// The HTTP server around the app, with every socket timeout set from Config. Node's defaults (headers 60 s,
// request 300 s, checked only every 30 s) let slow clients hold sockets for minutes; these bounds are
// checked at least once a second, so a client is cut off close to the bound it passed.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../tools/core/config.ts';

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
  return server;
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

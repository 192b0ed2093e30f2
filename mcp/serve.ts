// The service: read config, build the app, listen, and shut down gracefully on SIGTERM/SIGINT (main.ts loads it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolveLang } from '../locales/index.ts';
import { createApp } from './app.ts';
import { listen, urlOf } from './http-server.ts';
import { parseConfig, readMachine, type Config } from '../tools/core/config.ts';
import { ToolError } from '../tools/core/errors.ts';
import { BUSY_RETRY_AFTER_S } from '../tools/core/jobs.ts';
import { createKernel } from '../tools/core/kernel.ts';
import { listTools } from '../tools/core/registry.ts';
import { errorBody } from '../tools/core/wire.ts';

/** How long start-up waits for Redis (REDIS_URL) before serving with per-replica quotas until it answers. */
const REDIS_START_WAIT_MS = 10_000;

function loadConfig(): Config {
  try {
    return parseConfig(process.env, readMachine());
  } catch (err) {
    console.error(`spreadsheet-tools: ${(err as Error).message}`);
    process.exit(1);
  }
}
const config = loadConfig();
const kernel = createKernel(config);
if (!(await kernel.ready(REDIS_START_WAIT_MS))) console.warn(`spreadsheet-tools: Redis did not answer within ${REDIS_START_WAIT_MS / 1000} s; serving with this replica's own quotas until it does`);

let stopping = false;
const app = createApp(kernel);
/** While stopping, a request that reaches a connection still open is refused (503, then the connection closes). */
function serve(req: IncomingMessage, res: ServerResponse) {
  if (!stopping) return app(req, res);
  const lang = resolveLang(new URL(req.url ?? '/', 'http://x').searchParams.get('lang'));
  const body = JSON.stringify(errorBody(new ToolError('busy', { retryAfter: BUSY_RETRY_AFTER_S }), lang));
  res.writeHead(503, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Retry-After': String(BUSY_RETRY_AFTER_S), Connection: 'close' });
  res.end(body);
}

// Socket timeouts come from Config (HEADERS_TIMEOUT_S, REQUEST_TIMEOUT_S, KEEP_ALIVE_TIMEOUT_S): see http-server.ts.
const server = await listen(serve, config).catch((err: Error) => {
  console.error(`spreadsheet-tools: cannot listen on ${config.HOST}:${config.PORT}: ${err.message}`);
  process.exit(1);
});
console.log(`spreadsheet-tools listening on ${urlOf(server)} (${listTools().length} tools; MCP at /mcp; MAX_JOBS ${config.MAX_JOBS}, JOB_MEMORY_MB ${config.JOB_MEMORY_MB})`);

/**
 * Stops accepting connections and new requests, lets the requests in flight finish (bounded by
 * SHUTDOWN_TIMEOUT_S), writes what the key store still holds, lets go of Redis, then exits 0.
 */
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`spreadsheet-tools: ${signal}, finishing requests in flight`);
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const idleTimer = setInterval(() => server.closeIdleConnections(), 200);
  await Promise.race([closed, new Promise((r) => setTimeout(r, config.SHUTDOWN_TIMEOUT_S * 1000).unref())]);
  clearInterval(idleTimer);
  await kernel.close(0);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

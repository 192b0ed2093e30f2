// Process entry: read config, build the app, listen, and shut down gracefully on SIGTERM/SIGINT.
import { createApp } from './app.ts';
import { parseConfig, type Config } from '../tools/core/config.ts';
import { createKernel } from '../tools/core/kernel.ts';
import { listTools } from '../tools/core/registry.ts';

function loadConfig(): Config {
  try {
    return parseConfig();
  } catch (err) {
    console.error(`spreadsheet-tools: ${(err as Error).message}`);
    process.exit(1);
  }
}
const config = loadConfig();
const kernel = createKernel(config);
const server = createApp(kernel).listen(config.PORT, config.HOST, () => {
  const addr = server.address();
  const where = typeof addr === 'object' && addr ? `${addr.address}:${addr.port}` : String(addr);
  console.log(`spreadsheet-tools listening on http://${where} (${listTools().length} tools; MCP at /mcp)`);
});
// Slow clients must not hold sockets: bound the time for headers and for the whole request.
server.headersTimeout = 20_000;
server.requestTimeout = 120_000;
server.keepAliveTimeout = 5_000;

let stopping = false;
/** Stops accepting, lets requests in flight finish (bounded by SHUTDOWN_TIMEOUT_S), then exits 0. */
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

// Process entry: read config, build the app, listen, and shut down gracefully on SIGTERM/SIGINT.
import { createApp } from './app.ts';
import { listen, urlOf } from './http-server.ts';
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
// Socket timeouts come from Config (HEADERS_TIMEOUT_S, REQUEST_TIMEOUT_S, KEEP_ALIVE_TIMEOUT_S): see http-server.ts.
const server = await listen(createApp(kernel), config).catch((err: Error) => {
  console.error(`spreadsheet-tools: cannot listen on ${config.HOST}:${config.PORT}: ${err.message}`);
  process.exit(1);
});
console.log(`spreadsheet-tools listening on ${urlOf(server)} (${listTools().length} tools; MCP at /mcp)`);

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

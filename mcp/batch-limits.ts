// What one POST /mcp may ask for. A JSON-RPC batch is answered as one JSON body once every message in it is
// done: a batch of 100 tools/list made the process serialize 100 lists at once (the event loop stalled for
// every other client), and a batch of tool calls would hold several runs' results (up to 8 MB each inline)
// in one answer and take several job slots for one request.
// Current clients never batch (MCP 2025-06-18 dropped batching); older ones batch a notification with a
// request or two. So a batch is refused whole, before anything in it runs, when it holds more than
// MAX_BATCH_MESSAGES messages or more than MAX_CALLS_PER_REQUEST tools/call.
import { t, type Lang } from '../locales/index.ts';

export const MAX_BATCH_MESSAGES = 10;
export const MAX_CALLS_PER_REQUEST = 1;

/** Why this parsed body is refused (the JSON-RPC error message, in `lang`), or undefined when it is within bounds. */
export function batchRefusal(body: unknown, lang: Lang): string | undefined {
  if (!Array.isArray(body)) return undefined;
  if (body.length > MAX_BATCH_MESSAGES) return t(lang, 'mcp.batch.tooMany', { max: MAX_BATCH_MESSAGES, count: body.length });
  const calls = body.filter((m) => m !== null && typeof m === 'object' && (m as { method?: unknown }).method === 'tools/call').length;
  if (calls > MAX_CALLS_PER_REQUEST) return t(lang, 'mcp.batch.calls', { max: MAX_CALLS_PER_REQUEST, count: calls });
  return undefined;
}

// POST /mcp: Streamable HTTP, stateless. A new Server and transport per request (no session id),
// JSON responses, the body read by our own JSON reader with our limit (tools/core/http-body.ts; the SDK's is 4 MB).
import express, { type NextFunction, type Request, type Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { resolveLang } from '../locales/index.ts';
import { bodyLimitBytes } from '../tools/core/config.ts';
import type { Kernel } from '../tools/core/kernel.ts';
import { apiKeyFrom, rateHeaders } from '../tools/core/wire.ts';
import { isBodyParserError } from '../tools/core/wire.ts';
import { bodyWillEnd, contentCoding, discardRest, jsonBody } from '../tools/core/http-body.ts';
import { ToolError } from '../tools/core/errors.ts';
import { batchRefusal } from './batch-limits.ts';
import { selectionFromQuery } from './selection.ts';
import { buildMcpServer, type OnRate } from './server.ts';

function rpcError(res: Response, status: number, code: number, message: string) {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * Takes the `arguments` of each tools/call out of the body, as JSON.parse made them, and hands the SDK the
 * body with empty ones in their place. The SDK validates arguments only as "a plain object" (the low-level
 * Server checks no tool schema), and its copy is built key by key: a `__proto__` key would set the copy's
 * prototype, and a `constructor` key makes it refuse the whole request. The kernel sees every key the
 * client sent, as an ordinary name, and refuses unknown ones with `unknown_option`. A request id used
 * twice in one batch keeps its arguments in place (the handler could not tell the two calls apart).
 */
function takeCallArguments(body: unknown): { body: unknown; raw: Map<string | number, Record<string, unknown>> } {
  const raw = new Map<string | number, Record<string, unknown>>();
  const messages = Array.isArray(body) ? body : [body];
  const ids = new Map<unknown, number>();
  for (const m of messages) if (m && typeof m === 'object') ids.set(m.id, (ids.get(m.id) ?? 0) + 1);
  const out = messages.map((m) => {
    if (!m || typeof m !== 'object' || m.method !== 'tools/call' || !(typeof m.id === 'string' || typeof m.id === 'number') || ids.get(m.id) !== 1) return m;
    const params = m.params;
    const args = params && typeof params === 'object' ? params.arguments : undefined;
    if (!args || typeof args !== 'object' || Array.isArray(args)) return m;
    raw.set(m.id, args);
    return { ...m, params: { ...params, arguments: {} } };
  });
  return { body: Array.isArray(body) ? out : out[0], raw };
}

export function createMcpRouter(kernel: Kernel): express.Router {
  const router = express.Router();
  const bodyLimit = bodyLimitBytes(kernel.config);
  // Bodies in flight share the kernel's budget with REST runs; past it the message is not read (tools/call
  // under a full slot pool is answered `busy` by invoke, as a tool error, once the body is read).
  const admit = (req: Request, res: Response, next: NextFunction) => {
    // A compressed body would be inflated on this thread, for far more than the bytes the budget counts.
    const coding = contentCoding(req);
    if (coding !== null) {
      discardRest(req, bodyLimit, res);
      return rpcError(res, 415, -32600, `Content-Encoding "${coding.slice(0, 50).replace(/[^\x20-\x7e]/g, '?')}" is not accepted: send the body uncompressed.`);
    }
    const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
    if (declared !== undefined && declared > bodyLimit) {
      discardRest(req, bodyLimit, res);
      return rpcError(res, 413, -32600, 'Request body too large');
    }
    try {
      res.on('close', kernel.admission.body(req.ip ?? req.socket.remoteAddress ?? '', declared));
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      discardRest(req, bodyLimit, res);
      res.setHeader('Retry-After', String(err.detail.retryAfter ?? 1));
      return rpcError(res, 503, -32000, 'Server busy: too many requests in progress. Retry after the Retry-After seconds.');
    }
    next();
  };
  router.post('/', admit, jsonBody(bodyLimit) as unknown as express.RequestHandler, async (req: Request, res: Response) => {
    const caller = { ip: req.ip ?? req.socket.remoteAddress ?? '', apiKey: apiKeyFrom(req.headers), lang: resolveLang(req.query.lang) };
    const refusal = batchRefusal(req.body, caller.lang);
    if (refusal) return rpcError(res, 400, -32600, refusal);
    const { body, raw } = takeCallArguments(req.body);
    const onRate: OnRate = (rate, retryAfter) => {
      if (!res.headersSent) for (const [k, v] of Object.entries(rateHeaders(rate, retryAfter))) res.setHeader(k, v);
    };
    const server = buildMcpServer(kernel, caller, onRate, (id) => raw.get(id), selectionFromQuery(req.query, caller.lang));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (err) {
      console.error('mcp request failed:', err);
      if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error');
    }
  });
  router.all('/', (_req, res) => {
    res.setHeader('Allow', 'POST');
    rpcError(res, 405, -32000, 'Method not allowed: this server is stateless, use POST.');
  });
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // As in the bridge: an unread body ends the connection, and the client is told not to reuse it.
    if (!bodyWillEnd(req) && !res.headersSent) res.setHeader('Connection', 'close');
    if (isBodyParserError(err)) {
      if (err.type === 'entity.too.large' || err.status === 413) return rpcError(res, 413, -32600, 'Request body too large');
      if (err.type === 'entity.parse.failed') return rpcError(res, 400, -32700, 'Parse error');
      // A body cut short, a broken compressed stream, an encoding or charset we do not read.
      return rpcError(res, err.status, -32600, 'Invalid request: the body could not be read (incomplete, or in an encoding or character set that is not accepted).');
    }
    console.error('mcp request failed:', err);
    rpcError(res, 500, -32603, 'Internal error');
  });
  return router;
}

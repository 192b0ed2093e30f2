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
import { asToolError, ERROR_STATUS, ToolError } from '../tools/core/errors.ts';
import { refusal } from '../tools/core/invoke.ts';
import { errorBody, type ErrorBody } from '../tools/core/wire.ts';
import { requestLang } from '../tools/core/http-answer.ts';
import { batchRefusal } from './batch-limits.ts';
import { selectionFromQuery } from './selection.ts';
import { buildMcpServer, type OnRate } from './server.ts';

function rpcError(res: Response, status: number, code: number, message: string, data?: ErrorBody) {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id: null });
}

/**
 * A refusal of the whole HTTP request (no message of it was read) as a JSON-RPC error: the message is the
 * Error body's localized text, and `data` the Error body itself, with its stable code.
 */
function rpcRefusal(req: Request, res: Response, status: number, rpcCode: number, err: ToolError) {
  const body = errorBody(err, requestLang(req));
  rpcError(res, status, rpcCode, body.message, body);
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

/** Messages at most this large are read even from a caller past its quota: initialize, tools/list, a small call. */
const SMALL_MESSAGE_BYTES = 64 * 1024;

export function createMcpRouter(kernel: Kernel): express.Router {
  const router = express.Router();
  const bodyLimit = bodyLimitBytes(kernel.config);
  const callerOf = (req: Request) => ({ ip: req.ip ?? req.socket.remoteAddress ?? '', apiKey: apiKeyFrom(req.headers), lang: resolveLang(req.query.lang) });
  // Bodies in flight share the kernel's budget with REST runs; past it the message is not read (tools/call
  // under a full slot pool is answered `busy` by invoke, as a tool error, once the body is read). A caller
  // past its quota has a large body refused before it is read: only a tools/call needs one, and it would be
  // refused anyway, so a flood of large bodies (malformed ones included) costs nothing once the quota is spent.
  // A body refused for what it is (compressed, too large) counts a run of its caller, as one that cannot be read.
  const admit = async (req: Request, res: Response, next: NextFunction) => {
    // A compressed body would be inflated on this thread, for far more than the bytes the budget counts.
    const coding = contentCoding(req);
    if (coding !== null) {
      discardRest(req, bodyLimit, res);
      await kernel.admission.unreadable(callerOf(req));
      return rpcRefusal(req, res, 415, -32600, new ToolError('invalid_option', { messageKey: 'rest.errors.content_encoding', params: { received: coding.slice(0, 50) } }));
    }
    const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
    if (declared !== undefined && declared > bodyLimit) {
      discardRest(req, bodyLimit, res);
      await kernel.admission.unreadable(callerOf(req));
      return rpcRefusal(req, res, 413, -32600, new ToolError('input_too_large', { params: { max: kernel.config.MAX_INPUT_MB } }));
    }
    try {
      if (!(declared !== undefined && declared <= SMALL_MESSAGE_BYTES)) {
        const spent = await kernel.admission.exhausted(callerOf(req));
        if (spent) throw refusal('quota_exceeded', { retryAfter: spent.reset, rate: spent });
      }
      res.on('close', kernel.admission.body(req.ip ?? req.socket.remoteAddress ?? '', declared));
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      discardRest(req, bodyLimit, res);
      if (!bodyWillEnd(req)) res.setHeader('Connection', 'close');
      for (const [k, v] of Object.entries(rateHeaders(err.detail.rate, err.detail.retryAfter ?? 1))) res.setHeader(k, v);
      return rpcRefusal(req, res, ERROR_STATUS[err.code], -32000, err);
    }
    next();
  };
  router.post('/', admit, jsonBody(bodyLimit) as unknown as express.RequestHandler, async (req: Request, res: Response) => {
    const caller = callerOf(req);
    const tooMuch = batchRefusal(req.body, caller.lang);
    if (tooMuch) return rpcError(res, 400, -32600, tooMuch);
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
      if (!res.headersSent) rpcRefusal(req, res, 500, -32603, asToolError(err));
    }
  });
  router.all('/', (req, res) => {
    res.setHeader('Allow', 'POST');
    rpcRefusal(req, res, 405, -32000, new ToolError('method_not_allowed', { messageKey: 'mcp.errors.method', params: { method: req.method.slice(0, 20) } }));
  });
  router.use(async (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    // As in the bridge: an unread body ends the connection, and the client is told not to reuse it.
    if (!bodyWillEnd(req) && !res.headersSent) res.setHeader('Connection', 'close');
    if (isBodyParserError(err)) {
      // A body that cannot be read may have been a tools/call: it counts as a run of its caller, so that a
      // flood of them runs into the quota (and, past it, into the refusal before reading above).
      await kernel.admission.unreadable(callerOf(req));
      if (err.type === 'entity.too.large' || err.status === 413) return rpcRefusal(req, res, 413, -32600, new ToolError('input_too_large', { params: { max: kernel.config.MAX_INPUT_MB } }));
      if (err.type === 'entity.parse.failed') return rpcRefusal(req, res, 400, -32700, new ToolError('invalid_option', { messageKey: 'mcp.errors.parse' }));
      // A body cut short, a broken compressed stream, an encoding or charset we do not read.
      return rpcRefusal(req, res, err.status, -32600, new ToolError('invalid_option', { messageKey: 'rest.errors.body_unreadable' }));
    }
    rpcRefusal(req, res, 500, -32603, asToolError(err));
  });
  return router;
}

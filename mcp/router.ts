// POST /mcp: Streamable HTTP, stateless. A new Server and transport per request (no session id),
// JSON responses, the body parsed by our own express.json with our limit (the SDK's is 4 MB).
import express, { type NextFunction, type Request, type Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { resolveLang } from '../locales/index.ts';
import { bodyLimitBytes } from '../tools/core/config.ts';
import type { Kernel } from '../tools/core/kernel.ts';
import { apiKeyFrom, rateHeaders } from '../tools/core/wire.ts';
import { buildMcpServer } from './server.ts';

function rpcError(res: Response, status: number, code: number, message: string) {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

export function createMcpRouter(kernel: Kernel): express.Router {
  const router = express.Router();
  router.post('/', express.json({ limit: bodyLimitBytes(kernel.config) }), async (req: Request, res: Response) => {
    const caller = { ip: req.ip ?? req.socket.remoteAddress ?? '', apiKey: apiKeyFrom(req.headers), lang: resolveLang(req.query.lang) };
    const server = buildMcpServer(kernel, caller, (rate, retryAfter) => {
      if (!res.headersSent) for (const [k, v] of Object.entries(rateHeaders(rate, retryAfter))) res.setHeader(k, v);
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (err) {
      console.error('mcp request failed:', err);
      if (!res.headersSent) rpcError(res, 500, -32603, 'Internal error');
    }
  });
  router.all('/', (_req, res) => {
    res.setHeader('Allow', 'POST');
    rpcError(res, 405, -32000, 'Method not allowed: this server is stateless, use POST.');
  });
  router.use((err: { type?: string; status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    if (err.type === 'entity.too.large') return rpcError(res, 413, -32600, 'Request body too large');
    if (err.type === 'entity.parse.failed') return rpcError(res, 400, -32700, 'Parse error');
    console.error('mcp request failed:', err);
    rpcError(res, err.status && err.status < 500 ? err.status : 500, -32603, 'Internal error');
  });
  return router;
}

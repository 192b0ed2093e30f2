// The Express app: /mcp, the REST bridge, /admin, the playground (/), /health and /metrics, on one port.
// Each adapter parses its own bodies with limits from Config (framework defaults are far below ours).
import express from 'express';
import { createAdminRouter } from '../bridge/admin/router.ts';
import { createBridgeRouter, finalErrorHandler, notFoundHandler } from '../bridge/router.ts';
import type { Kernel } from '../tools/core/kernel.ts';
import { createWebRouter } from '../web/router.ts';
import { hostCheck } from './host-check.ts';
import { createMcpRouter } from './router.ts';

export function createApp(kernel: Kernel): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxyValue(kernel.config.TRUST_PROXY));
  app.use(hostCheck(kernel.config));
  app.get('/health', (_req, res) => {
    res.json({ ok: true, jobs: kernel.jobs.active, maxJobs: kernel.config.MAX_JOBS });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(kernel.usage.registry.contentType).send(await kernel.usage.registry.metrics());
  });
  app.use('/mcp', createMcpRouter(kernel));
  app.use('/admin', createAdminRouter(kernel));
  app.use(createWebRouter());
  app.use(createBridgeRouter(kernel));
  app.use(notFoundHandler);
  app.use(finalErrorHandler(kernel.config.MAX_INPUT_MB));
  return app;
}

/** Express's trust-proxy value from TRUST_PROXY: booleans and hop counts as such, anything else as given. */
function trustProxyValue(raw: string): boolean | number | string {
  if (raw === 'true') return true;
  if (raw === 'false' || raw === '') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

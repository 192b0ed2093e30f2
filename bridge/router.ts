// The REST bridge: everything under /api/v1, plus /llms.txt. Mounted at the root by mcp/app.ts.
import express from 'express';
import type { Kernel } from '../tools/core/kernel.ts';
import { getCatalogue, getCatalogueEntry } from './catalogue.ts';
import { bridgeErrorHandler } from './http-error.ts';
import { llmsTxtHandler } from './llms-txt.ts';
import { openApiHandler } from './openapi.ts';
import { runHandlers } from './run.ts';

export function createBridgeRouter(kernel: Kernel): express.Router {
  const router = express.Router();
  router.get('/api/v1/tools', getCatalogue);
  router.get('/api/v1/tools/:tool', getCatalogueEntry);
  router.get('/api/v1/openapi.json', openApiHandler(kernel.config));
  router.get('/llms.txt', llmsTxtHandler(kernel.config));
  router.post('/api/v1/tools/:tool/run', ...runHandlers(kernel));
  // Scoped to our paths, so errors of other routers that fall through this one are not answered here.
  router.use(['/api/v1', '/llms.txt'], bridgeErrorHandler(kernel.config.MAX_INPUT_MB));
  return router;
}

// The REST bridge: everything under /api/v1, plus /llms.txt. Mounted at the root by mcp/app.ts, after every
// other router, so that its last handlers answer whatever no route took, in the Error body like the rest.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Kernel } from '../tools/core/kernel.ts';
import { ToolError } from '../tools/core/errors.ts';
import { getTool } from '../tools/core/registry.ts';
import { getCatalogue, getCatalogueEntry } from './catalogue.ts';
import { requestLang, sendError } from '../tools/core/http-answer.ts';
import { bridgeErrorHandler, toRequestError } from './http-error.ts';
import { llmsTxtHandler } from './llms-txt.ts';
import { openApiHandler } from './openapi.ts';
import { runHandlers } from './run.ts';

/** What a method-bound path answers to another method: 405 naming the methods it takes (`Allow`). */
function methodNotAllowed(allow: string, checkTool = false) {
  return function answerMethodNotAllowed(req: Request, res: Response): void {
    if (checkTool) getTool(String(req.params.tool));
    res.setHeader('Allow', allow);
    throw new ToolError('method_not_allowed', { params: { method: req.method.slice(0, 20), path: req.path.slice(0, 200), allow } });
  };
}

export function createBridgeRouter(kernel: Kernel): express.Router {
  const router = express.Router();
  const GET = 'GET, HEAD';
  router.get('/api/v1/tools', getCatalogue);
  router.all('/api/v1/tools', methodNotAllowed(GET));
  router.get('/api/v1/tools/:tool', getCatalogueEntry);
  router.all('/api/v1/tools/:tool', methodNotAllowed(GET));
  router.get('/api/v1/openapi.json', openApiHandler(kernel.config));
  router.all('/api/v1/openapi.json', methodNotAllowed(GET));
  router.get('/llms.txt', llmsTxtHandler(kernel.config));
  router.all('/llms.txt', methodNotAllowed(GET));
  router.post('/api/v1/tools/:tool/run', ...runHandlers(kernel));
  router.all('/api/v1/tools/:tool/run', methodNotAllowed('POST', true));
  // Scoped to our paths, so errors of other routers that fall through this one are not answered here.
  router.use(['/api/v1', '/llms.txt'], bridgeErrorHandler(kernel.config.MAX_INPUT_MB));
  return router;
}

/** The last handler of the app: a path no router took is 404 `not_found`, never a framework's HTML page. */
export function notFoundHandler(req: Request, res: Response): void {
  sendError(res, new ToolError('not_found', { params: { method: req.method.slice(0, 20), path: req.path.slice(0, 200) } }), requestLang(req));
}

/** The last error handler of the app, for errors no router answered: the Error body, never an HTML page or a stack. */
export function finalErrorHandler(maxInputMb: number) {
  return function handleFinalError(err: unknown, req: Request, res: Response, next: NextFunction): void {
    if (res.headersSent) {
      next(err);
      return;
    }
    sendError(res, toRequestError(err, maxInputMb), requestLang(req));
  };
}

// /admin: a small page and JSON API to issue, list and revoke API keys. Disabled (404) unless
// ADMIN_TOKEN is set; every API call must present that token as a bearer token (401 otherwise).
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import * as v from 'valibot';
import { resolveLang } from '../../locales/index.ts';
import type { Kernel } from '../../tools/core/kernel.ts';
import { adminPage } from './page.ts';

const digest = (s: string) => createHash('sha256').update(s).digest();

const CreateKey = v.strictObject({
  label: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100)),
  quota: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1_000_000_000))), null),
});

export function createAdminRouter(kernel: Kernel): express.Router {
  const router = express.Router();
  const token = kernel.config.ADMIN_TOKEN;
  if (!token) {
    router.use((_req, res) => {
      res.status(404).json({ ok: false, error: 'not_found', message: 'Administration is disabled: set ADMIN_TOKEN to enable it.', option: null });
    });
    return router;
  }
  const expected = digest(token);

  function requireToken(req: Request, res: Response, next: NextFunction) {
    const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
    if (m && timingSafeEqual(digest(m[1].trim()), expected)) return next();
    res.setHeader('WWW-Authenticate', 'Bearer realm="admin"');
    res.status(401).json({ ok: false, error: 'unauthorized', message: 'Missing or wrong admin token.', option: null });
  }

  router.get('/', (req, res) => {
    res.setHeader('Content-Security-Policy', "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'");
    res.type('html').send(adminPage(resolveLang(req.query.lang)));
  });
  router.use('/api', requireToken, express.json({ limit: '16kb' }));
  router.get('/api/keys', async (_req, res) => {
    res.json({ ok: true, keys: await kernel.keys.list() });
  });
  router.post('/api/keys', async (req, res) => {
    const parsed = v.safeParse(CreateKey, req.body ?? {});
    if (!parsed.success) {
      const option = parsed.issues[0].path?.[0]?.key;
      res.status(400).json({ ok: false, error: 'invalid_option', message: parsed.issues[0].message, option: typeof option === 'string' ? option : null });
      return;
    }
    const { key, secret } = await kernel.keys.create(parsed.output.label, parsed.output.quota);
    res.status(201).json({ ok: true, key, secret });
  });
  router.delete('/api/keys/:id', async (req, res) => {
    if (await kernel.keys.revoke(req.params.id)) res.json({ ok: true });
    else res.status(404).json({ ok: false, error: 'not_found', message: 'No key with that id.', option: 'id' });
  });
  router.use((err: { type?: string; status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    const status = err.status && err.status < 500 ? err.status : 500;
    if (status === 500) console.error('admin request failed:', err);
    res.status(status).json({ ok: false, error: status === 500 ? 'internal_error' : 'invalid_option', message: status === 500 ? 'Internal error' : 'Invalid request body', option: null });
  });
  return router;
}

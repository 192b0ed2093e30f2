// /admin: the admin page (web/public/admin.html, at /admin and /admin/ alike) and its JSON API to list, issue,
// edit and revoke API keys. Disabled (404) unless ADMIN_TOKEN is set; every API call must present that token
// as a bearer token. Wrong tokens are logged (never the token itself) and limited per client address: past
// the limit the address gets 429 for the rest of the window, whatever token it sends.
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import * as v from 'valibot';
import { resolveLang, t, type Lang } from '../../locales/index.ts';
import type { Kernel } from '../../tools/core/kernel.ts';
import { sendPage } from '../../web/router.ts';

/** Wrong tokens one client address may send per window before it is refused outright. */
export const ADMIN_GUESSES = 10;
export const ADMIN_GUESS_WINDOW_S = 15 * 60;

const digest = (s: string) => createHash('sha256').update(s).digest();

const label = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100));
const quota = v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1_000_000_000)));
const CreateKey = v.strictObject({ label, quota: v.optional(quota, null) });
const UpdateKey = v.strictObject({ label: v.optional(label), quota: v.optional(quota) });

/** Why an admin call is refused: its status and the stable code it answers (the message key is `admin.errors.<why>`). */
const REFUSALS = {
  disabled: [404, 'not_found'],
  unauthorized: [401, 'unauthorized'],
  too_many_attempts: [429, 'too_many_attempts'],
  not_found: [404, 'not_found'],
  invalid_option: [400, 'invalid_option'],
  invalid_body: [400, 'invalid_option'],
  internal_error: [500, 'internal_error'],
} as const;
type AdminError = keyof typeof REFUSALS;

/** An answer in the Error body shape, its message in the language of `?lang=`. */
function fail(req: Request, res: Response, why: AdminError, option: string | null = null, params: Record<string, string | number> = {}): void {
  const lang: Lang = resolveLang(req.query.lang);
  const [status, code] = REFUSALS[why];
  res.status(status).set('Cache-Control', 'no-store').json({ ok: false, error: code, message: t(lang, `admin.errors.${why}`, params), option });
}

/** The first issue of a refused body, as `invalid_option` naming the field. */
function refuse(req: Request, res: Response, issues: v.BaseIssue<unknown>[]): void {
  const key = issues[0].path?.[0]?.key;
  if (typeof key === 'string' && (key === 'label' || key === 'quota')) fail(req, res, 'invalid_option', key, { option: key });
  else fail(req, res, 'invalid_body');
}

export function createAdminRouter(kernel: Kernel): express.Router {
  const router = express.Router();
  const token = kernel.config.ADMIN_TOKEN;
  if (!token) {
    router.use((req, res) => fail(req, res, 'disabled'));
    return router;
  }
  const expected = digest(token);
  const guesses = new RateLimiterMemory({ points: ADMIN_GUESSES, duration: ADMIN_GUESS_WINDOW_S });

  async function requireToken(req: Request, res: Response, next: NextFunction) {
    const address = req.ip ?? req.socket.remoteAddress ?? '';
    const seen = await guesses.get(address);
    if (seen && seen.consumedPoints >= ADMIN_GUESSES) {
      const retryAfter = Math.max(1, Math.ceil(seen.msBeforeNext / 1000));
      res.set('Retry-After', String(retryAfter));
      return fail(req, res, 'too_many_attempts', null, { retryAfter });
    }
    const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
    if (m && timingSafeEqual(digest(m[1].trim()), expected)) return next();
    if (m) {
      // Counted and logged only when a token was presented: a request without one guesses nothing.
      const after = await guesses.penalty(address, 1);
      console.warn(`admin: wrong token from ${address} (${after.consumedPoints} of ${ADMIN_GUESSES} in ${ADMIN_GUESS_WINDOW_S / 60} min)`);
      if (after.consumedPoints === ADMIN_GUESSES) console.warn(`admin: ${address} refused for ${Math.ceil(after.msBeforeNext / 1000)} s after ${ADMIN_GUESSES} wrong tokens`);
    }
    res.setHeader('WWW-Authenticate', 'Bearer realm="admin"');
    fail(req, res, 'unauthorized');
  }

  /** The keys with their use this hour, newest first, and the quota of a key that has none of its own. */
  async function listing() {
    const keys = await kernel.keys.list();
    const ids = keys.map((k) => k.id);
    const [hours, last] = await Promise.all([Promise.all(ids.map((id) => kernel.keys.usage(id, 1))), kernel.keys.lastUsed(ids)]);
    return {
      ok: true,
      defaultQuota: kernel.config.KEY_RUNS_PER_HOUR,
      keys: keys.map((k, i) => ({ ...k, runsThisHour: hours[i]?.at(-1)?.runs ?? 0, lastUsedAt: last.get(k.id) ?? null })).reverse(),
    };
  }

  // `/admin` and `/admin/` alike: the page's script calls /admin/api by an absolute path.
  router.get('/', (req, res) => sendPage(req, res, 'admin'));
  router.use('/api', requireToken, express.json({ limit: '16kb' }), (_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  router.get('/api/keys', async (_req, res) => {
    res.json(await listing());
  });
  router.post('/api/keys', async (req, res) => {
    const parsed = v.safeParse(CreateKey, req.body ?? {});
    if (!parsed.success) return refuse(req, res, parsed.issues);
    const { key, secret } = await kernel.keys.create(parsed.output.label, parsed.output.quota);
    console.log(`admin: key ${key.id} created`);
    res.status(201).json({ ok: true, key, secret });
  });
  router.patch('/api/keys/:id', async (req, res) => {
    const parsed = v.safeParse(UpdateKey, req.body ?? {});
    if (!parsed.success) return refuse(req, res, parsed.issues);
    const key = await kernel.keys.update(req.params.id, parsed.output);
    if (!key) return fail(req, res, 'not_found', 'id');
    console.log(`admin: key ${key.id} changed`);
    res.json({ ok: true, key });
  });
  router.delete('/api/keys/:id', async (req, res) => {
    if (!(await kernel.keys.revoke(req.params.id))) return fail(req, res, 'not_found', 'id');
    console.log(`admin: key ${req.params.id} revoked`);
    res.json({ ok: true });
  });
  router.use('/api', (req, res) => fail(req, res, 'not_found'));
  router.use((err: { status?: number }, req: Request, res: Response, _next: NextFunction) => {
    const status = err.status && err.status < 500 ? err.status : 500;
    if (status === 500) console.error('admin request failed:', err);
    fail(req, res, status === 500 ? 'internal_error' : 'invalid_body');
  });
  return router;
}

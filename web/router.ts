// The pages for people: the playground at `/` and the admin page's files, served from memory with a
// Content-Security-Policy that allows scripts and styles from this origin only (no inline code anywhere).
// Their texts come from locales/*.json, served as /assets/i18n/<lang>.json; the pages call the public API.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response } from 'express';
import { allKeys, LANGS, t } from '../locales/index.ts';

export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const asset = (body: Buffer, type: string): Asset => ({ body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` });

const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));

/** Locale keys the pages use: their own subtrees, and the name of a ZIP of several results. */
const PAGE_TEXT = (key: string) => key.startsWith('web.') || key.startsWith('admin.') || key === 'names.zip';

function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name), `${prefix}${entry.name}/`);
      else if (TYPES[extname(entry.name)] && entry.name !== 'tsconfig.json') {
        assets.set(`${prefix}${entry.name}`, asset(readFileSync(join(dir, entry.name)), TYPES[extname(entry.name)]));
      }
    }
  };
  walk(PUBLIC_DIR, '');
  // The one library the pages use (fflate: the ZIP of several results), served from the installed package.
  const fflate = join(dirname(createRequire(import.meta.url).resolve('fflate/package.json')), 'esm', 'browser.js');
  assets.set('vendor/fflate.js', asset(readFileSync(fflate), TYPES['.js']));
  for (const lang of LANGS) {
    const texts = Object.fromEntries(allKeys(lang).filter(PAGE_TEXT).map((k) => [k, t(lang, k)]));
    assets.set(`i18n/${lang}.json`, asset(Buffer.from(JSON.stringify(texts)), TYPES['.json']));
  }
  return assets;
}

let assets: Map<string, Asset> | undefined;
const assetsOf = () => (assets ??= loadAssets());

/** Sends one asset with the page headers; a matching If-None-Match is answered 304. */
function send(req: Request, res: Response, a: Asset): void {
  res.set({
    'Content-Type': a.type,
    'Content-Security-Policy': PAGE_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cache-Control': 'no-cache',
    ETag: a.etag,
  });
  if (req.headers['if-none-match'] === a.etag) {
    res.status(304).end();
    return;
  }
  res.set('Content-Length', String(a.body.length));
  res.end(req.method === 'HEAD' ? undefined : a.body);
}

/** Sends one of the HTML pages (`index`, `admin`). */
export function sendPage(req: Request, res: Response, page: 'index' | 'admin'): void {
  send(req, res, assetsOf().get(`${page}.html`)!);
}

/** `/` (the playground) and `/assets/*`; any other path falls through to the routers after this one. */
export function createWebRouter(): express.Router {
  const router = express.Router();
  assetsOf();
  router.get('/', (req, res) => sendPage(req, res, 'index'));
  router.get('/assets/*path', (req, res, next) => {
    const path = (req.params as { path: string[] }).path.join('/');
    const a = path.endsWith('.html') ? undefined : assetsOf().get(path);
    if (a) send(req, res, a);
    else next();
  });
  return router;
}

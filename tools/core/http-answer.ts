// What every HTTP answer of the service shares, whichever front door or check writes it: the language a
// request is answered in before its body says otherwise, and the Error body with its status and headers.
// Framework-free (a Node ServerResponse), so that the app-wide checks, both doors and the server's own
// error answers write one shape.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { DEFAULT_LANG, isLang, LANGS, type Lang } from '../../locales/index.ts';
import { ERROR_STATUS, type ToolError } from './errors.ts';
import { errorBody, rateHeaders } from './wire.ts';

/** What requestLang reads of a request; an Express request has it all. */
export interface LangSource {
  query: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** The best of `langs` by Accept-Language (Express's, through `negotiator`), or false. */
  acceptsLanguages(...langs: string[]): string | false;
}

/**
 * The language of what the service writes for a request before its body says otherwise (a run's `language`):
 * the `lang` query, else the best of Accept-Language, else Spanish. `query` is the request's, when the caller
 * has it parsed already (Express parses it again on every read).
 */
export function requestLang(req: LangSource, query: Record<string, unknown> = req.query): Lang {
  const lang = query.lang;
  if (isLang(lang)) return lang;
  if (!req.headers['accept-language']) return DEFAULT_LANG;
  const best = req.acceptsLanguages(...LANGS);
  return isLang(best) ? best : DEFAULT_LANG;
}

/**
 * Sends the Error body of `err` with its status and headers: Retry-After on 429 and 503, RateLimit-* when the
 * caller's quota is known. Written with end(): an ETag on an error serves nothing (no error is ever a fresh
 * 304), and hashing each body cost every refusal.
 */
export function sendError(res: ServerResponse, err: ToolError, lang: Lang): void {
  const status = ERROR_STATUS[err.code];
  const body = Buffer.from(JSON.stringify(errorBody(err, lang)), 'utf8');
  let retryAfter: number | undefined;
  if (status === 429 || status === 503) retryAfter = err.detail.retryAfter ?? err.detail.rate?.reset ?? 1;
  res.statusCode = status;
  for (const [k, v] of Object.entries(rateHeaders(err.detail.rate, retryAfter))) res.setHeader(k, v);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(body.length));
  res.end(body);
}

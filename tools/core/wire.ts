// The wire shapes both front doors send: RunResponse and the Error body (spec "Resources and their fields").
import { t, type Lang } from '../../locales/index.ts';
import type { Message } from './define.ts';
import { ToolError } from './errors.ts';
import type { InvokeResult } from './invoke.ts';
import { printable, printableParams, type Preview } from './output.ts';

export interface ErrorBody {
  ok: false;
  error: string;
  message: string;
  option: string | null;
}

export interface WireFile {
  name: string;
  contentType: string;
  size: number;
  contentBase64?: string;
  uri?: string;
}

export interface RunResponse {
  ok: true;
  tool: string;
  files: WireFile[];
  preview: Preview | null;
  textPreview: string | null;
  messages: Message[];
}

/** The Error body of a ToolError, its message in `lang` with every placeholder filled. */
export function errorBody(err: ToolError, lang: Lang): ErrorBody {
  const d = err.detail;
  const params: Record<string, string | number> = {
    option: d.option ?? '',
    retryAfter: d.retryAfter ?? '',
    limit: d.rate?.limit ?? '',
    ...d.params,
  };
  return { ok: false, error: err.code, message: t(lang, d.messageKey ?? `errors.${err.code}`, printableParams(params)), option: d.option === undefined ? null : printable(d.option) };
}

/** RunResponse with the bytes inline as base64 (REST JSON). */
export function runResponse(r: InvokeResult): RunResponse {
  return {
    ok: true,
    tool: r.tool,
    files: r.files.map((f) => ({ name: f.name, contentType: f.contentType, size: f.bytes.byteLength, contentBase64: Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength).toString('base64') })),
    preview: r.preview,
    textPreview: r.textPreview,
    messages: r.messages,
  };
}

/** Result bytes encoded to base64 at a time (a multiple of 3): each piece's text is short-lived. */
const BASE64_PIECE = 3 * 256 * 1024;

/**
 * The RunResponse as the bytes of its JSON text, the same bytes as `JSON.stringify(runResponse(r))`: each file's
 * base64 is written piece by piece into the one buffer of the answer's final length, so no whole base64 text,
 * whole JSON text or re-encoding of either exists (for an 8 MB result, 21 MB less at once and two copies fewer).
 */
export function runResponseBytes(r: InvokeResult): Buffer {
  const text: string[] = [];
  const head = JSON.stringify({ ok: true, tool: r.tool });
  text.push(`${head.slice(0, -1)},"files":[`);
  r.files.forEach((f, i) => {
    const meta = JSON.stringify({ name: f.name, contentType: f.contentType, size: f.bytes.byteLength });
    text.push(`${i > 0 ? ',' : ''}${meta.slice(0, -1)},"contentBase64":"`);
    text.push('"}');
  });
  text.push(`],${JSON.stringify({ preview: r.preview, textPreview: r.textPreview, messages: r.messages }).slice(1)}`);
  const base64Length = (n: number) => Math.ceil(n / 3) * 4;
  const total = text.reduce((n, s) => n + Buffer.byteLength(s, 'utf8'), 0) + r.files.reduce((n, f) => n + base64Length(f.bytes.byteLength), 0);
  const out = Buffer.allocUnsafe(total);
  let at = out.write(text[0], 0, 'utf8');
  r.files.forEach((f, i) => {
    at += out.write(text[1 + 2 * i], at, 'utf8');
    const bytes = Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength);
    for (let from = 0; from < bytes.length; from += BASE64_PIECE) at += out.write(bytes.toString('base64', from, from + BASE64_PIECE), at, 'latin1');
    at += out.write(text[2 + 2 * i], at, 'utf8');
  });
  at += out.write(text[text.length - 1], at, 'utf8');
  if (at !== total) throw new Error(`RunResponse of ${at} bytes, ${total} expected`);
  return out;
}

const first = (h: string | string[] | undefined) => (Array.isArray(h) ? h[0] : h);

/**
 * The API key a request carries: `Authorization: Bearer <key>` or `X-Api-Key: <key>`; undefined when neither
 * header is sent. An Authorization header in any other form (`Bearer` alone, `Token sk_…`, a bare key) is
 * null: credentials that were sent but cannot be read are refused (`invalid_api_key`), never ignored.
 */
export function apiKeyFrom(headers: Record<string, string | string[] | undefined>): string | null | undefined {
  const auth = first(headers.authorization);
  if (auth !== undefined) {
    const m = /^Bearer +(\S+)$/i.exec(auth.trim());
    return m ? m[1] : null;
  }
  const x = first(headers['x-api-key']);
  return x === undefined ? undefined : x.trim();
}

/** RateLimit-* (IETF draft) and Retry-After headers for a run answer. */
export function rateHeaders(rate: { limit: number; remaining: number; reset: number } | undefined, retryAfter?: number): Record<string, string> {
  const h: Record<string, string> = {};
  if (rate) {
    h['RateLimit-Limit'] = String(rate.limit);
    h['RateLimit-Remaining'] = String(rate.remaining);
    h['RateLimit-Reset'] = String(rate.reset);
  }
  if (retryAfter !== undefined) h['Retry-After'] = String(Math.max(1, Math.ceil(retryAfter)));
  return h;
}

/**
 * The http-errors that body-parser raises: with a `type` (`entity.too.large`, `entity.parse.failed`…), or
 * without one when the decompressor fails (a truncated gzip body is a zlib error wrapped as a 400).
 */
export function isBodyParserError(err: unknown): err is Error & { type?: string; status: number } {
  if (err instanceof ToolError) return false;
  const e = err as { type?: unknown; status?: unknown; expose?: unknown } | null;
  return !!e && typeof e.status === 'number' && e.status >= 400 && e.status < 500 && (typeof e.type === 'string' || e.expose === true);
}

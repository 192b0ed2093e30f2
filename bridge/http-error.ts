// Errors on the REST side: a ToolError becomes its status from ERROR_STATUS and the Error body; 429 and 503
// carry Retry-After, and RateLimit-* go out whenever the kernel knew the caller's quota.
import type { NextFunction, Request, Response } from 'express';
import { resolveLang, type Lang } from '../locales/index.ts';
import { asToolError, ERROR_STATUS, ToolError, type ErrorCode, type ErrorDetail } from '../tools/core/errors.ts';
import { bodyWillEnd } from '../tools/core/http-body.ts';
import { errorBody, isBodyParserError, rateHeaders } from '../tools/core/wire.ts';

/**
 * A request the bridge refuses before it reaches the kernel (body framing, content type, query). The code is
 * one of the stable ones; the message comes from its own key (`rest.errors.*`), since the kernel's text
 * for that code talks about options.
 */
export class RequestError extends ToolError {
  constructor(code: ErrorCode, messageKey: string, detail: ErrorDetail = {}) {
    super(code, { ...detail, messageKey });
  }
}

/**
 * Sends the Error body of `err` with its status and headers. Written with end() rather than json(): an ETag
 * on an error serves nothing (no error is ever a fresh 304), and hashing each body cost every refusal.
 */
export function sendToolError(res: Response, err: ToolError, lang: Lang): void {
  const status = ERROR_STATUS[err.code];
  const body = Buffer.from(JSON.stringify(errorBody(err, lang)), 'utf8');
  let retryAfter: number | undefined;
  if (status === 429 || status === 503) retryAfter = err.detail.retryAfter ?? err.detail.rate?.reset ?? 1;
  res.status(status).set(rateHeaders(err.detail.rate, retryAfter)).set({
    'Cache-Control': 'no-store',
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(body.length),
  });
  res.end(body);
}

/** Maps a body-parser failure to the stable codes: too large is 413, anything else about the body is 400. */
export function fromBodyParserError(err: Error & { type?: string; status: number }, maxMb: number): ToolError {
  if (err.status === 413 || err.type === 'entity.too.large') return new ToolError('input_too_large', { params: { max: maxMb } });
  if (err.type === 'entity.parse.failed') return new RequestError('invalid_option', 'rest.errors.malformed_json');
  return new RequestError('invalid_option', 'rest.errors.body_unreadable');
}

/**
 * The bridge's error handler. ToolErrors keep their code; body-parser errors map as above; anything else is
 * `internal_error` (its cause logged by asToolError, never sent). The language is the one the request chose
 * (`res.locals.lang`, set by the run route from the body's `language`), else the `lang` query.
 */
export function bridgeErrorHandler(maxInputMb: number) {
  return function handleBridgeError(err: unknown, req: Request, res: Response, next: NextFunction): void {
    if (res.headersSent) {
      next(err);
      return;
    }
    answerError(req, res, err, maxInputMb);
  };
}

/** What the error handler answers, for a handler that answers a refusal itself instead of passing it on. */
export function answerError(req: Request, res: Response, err: unknown, maxInputMb: number): void {
  // A body left unread ends the connection after this answer: say so, or a keep-alive client sends its next
  // request on a socket that is about to close.
  if (!bodyWillEnd(req)) res.setHeader('Connection', 'close');
  const lang: Lang = res.locals.lang ?? resolveLang(req.query.lang);
  const toolErr = isBodyParserError(err) ? fromBodyParserError(err, maxInputMb) : asToolError(err);
  sendToolError(res, toolErr, lang);
}

// Errors on the REST side: anything thrown while a request is answered becomes a ToolError (body-parser and
// path-decoding failures mapped to their stable codes), answered by sendError (tools/core/http-answer.ts).
import type { NextFunction, Request, Response } from 'express';
import type { Lang } from '../locales/index.ts';
import { asToolError, ToolError, type ErrorCode, type ErrorDetail } from '../tools/core/errors.ts';
import { bodyWillEnd } from '../tools/core/http-body.ts';
import type { Call } from '../tools/core/invoke.ts';
import { requestLang, sendError } from '../tools/core/http-answer.ts';
import { isBodyParserError } from '../tools/core/wire.ts';

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

/** Maps a body-parser failure to the stable codes: too large is 413, anything else about the body is 400. */
export function fromBodyParserError(err: Error & { type?: string; status: number }, maxMb: number): ToolError {
  if (err.status === 413 || err.type === 'entity.too.large') return new ToolError('input_too_large', { params: { max: maxMb } });
  if (err.type === 'entity.parse.failed') return new RequestError('invalid_option', 'rest.errors.malformed_json');
  return new RequestError('invalid_option', 'rest.errors.body_unreadable');
}

/** The router's failure to decode a `%` escape of the path (a URIError it marks 400): the client's, never ours. */
export function isPathDecodeError(err: unknown): boolean {
  return err instanceof URIError && (err as URIError & { status?: number }).status === 400;
}

/** Anything thrown while answering a request, as the ToolError to answer (unexpected ones logged once). */
export function toRequestError(err: unknown, maxInputMb: number): ToolError {
  if (isBodyParserError(err)) return fromBodyParserError(err, maxInputMb);
  if (isPathDecodeError(err)) return new RequestError('bad_request', 'rest.errors.bad_path');
  return asToolError(err);
}

/**
 * The bridge's error handler. ToolErrors keep their code; body-parser errors map as above; anything else is
 * `internal_error` (its cause logged by asToolError, never sent). The language is the one the request chose
 * (`res.locals.lang`, set by the run route from the body's `language`), else requestLang's.
 */
export function bridgeErrorHandler(maxInputMb: number) {
  return async function handleBridgeError(err: unknown, req: Request, res: Response, next: NextFunction): Promise<void> {
    if (res.headersSent) {
      next(err);
      return;
    }
    await answerError(req, res, err, maxInputMb);
  };
}

/**
 * What the error handler answers, for a handler that answers a refusal itself instead of passing it on. A run
 * whose call is open (refused while its body was read) ends it with this refusal: its one usage event, and
 * the quota state for the RateLimit headers.
 */
export async function answerError(req: Request, res: Response, err: unknown, maxInputMb: number): Promise<void> {
  // A body left unread ends the connection after this answer: say so, or a keep-alive client sends its next
  // request on a socket that is about to close.
  if (!bodyWillEnd(req)) res.setHeader('Connection', 'close');
  const lang: Lang = res.locals.lang ?? requestLang(req);
  const toolErr = toRequestError(err, maxInputMb);
  const call = res.locals.call as Call | undefined;
  if (call) toolErr.detail.rate ??= await call.end(toolErr.code, declaredLength(req));
  if (!res.headersSent) sendError(res, toolErr, lang);
}

function declaredLength(req: Request): number {
  const n = Number(req.headers['content-length']);
  return Number.isFinite(n) && n >= 0 ? n : 0;
}

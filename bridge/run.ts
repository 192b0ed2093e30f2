// POST /api/v1/tools/:tool/run: JSON or multipart -> one kernel.invoke -> RunResponse JSON, or the raw file
// with download=true. Everything about tools (validation, limits, quota, packaging) happens in the kernel.
import type { Request, RequestHandler, Response } from 'express';
import { resolveLang, type Lang } from '../locales/index.ts';
import { bodyLimitBytes, MB } from '../tools/core/config.ts';
import { ToolError } from '../tools/core/errors.ts';
import type { InputFile } from '../tools/core/files.ts';
import type { Call, Caller, InvokeResult } from '../tools/core/invoke.ts';
import type { Kernel } from '../tools/core/kernel.ts';
import { plainName } from '../tools/core/output.ts';
import { getTool } from '../tools/core/registry.ts';
import { apiKeyFrom, rateHeaders, runResponseBytes } from '../tools/core/wire.ts';
import { requestLang } from '../tools/core/http-answer.ts';
import { contentCoding, discardRest, jsonBody } from '../tools/core/http-body.ts';
import { mark, runPhases, startMarks, type PhaseMarks } from '../tools/core/phases.ts';
import { release, releaseOwned } from '../tools/core/transfer.ts';
import { answerError, RequestError } from './http-error.ts';
import { coerceFields, readMultipart } from './multipart.ts';
import { PLAIN_FORM_TYPE } from './multipart-scan.ts';

/** Response header carrying the run's messages on a download (the body is the file): JSON, ASCII-escaped. */
export const MESSAGES_HEADER = 'X-Tool-Messages';
/** Messages beyond this many header bytes are left out of the header (they are also in every JSON answer). */
const MAX_MESSAGES_HEADER = 4096;

const ACCEPTED_TYPES = ['application/json', 'multipart/form-data'];

/** `download` from the query: true/false/1/0, absent means false; anything else is refused. */
export function parseDownload(raw: unknown): boolean {
  if (raw === undefined) return false;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new RequestError('invalid_option', 'rest.errors.download', { option: 'download' });
}

/** The JSON content types clients send for a run (the multipart one is the multipart reader's PLAIN_FORM_TYPE). */
const PLAIN_JSON_TYPE = /^application\/json(?:; ?charset=utf-8)?$/i;

/** req.is(ACCEPTED_TYPES), with the common content types told apart without type-is's parse of the header. */
export function kindOf(req: Request): string | false | null {
  const type = req.headers['content-type'];
  // type-is's own test of a body: a Transfer-Encoding, or a Content-Length that reads as a number.
  const hasBody = req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length']));
  if (hasBody && type !== undefined) {
    if (PLAIN_JSON_TYPE.test(type)) return 'application/json';
    if (PLAIN_FORM_TYPE.test(type)) return 'multipart/form-data';
  }
  return req.is(ACCEPTED_TYPES);
}

interface RunLocals {
  download: boolean;
  kind: 'json' | 'multipart';
  /** Read once from the request: its address through the proxy rules, key and query cost a parse each time. */
  caller: Caller;
}

/** The run route's handlers in order: checks that need no body, the JSON parser, then the run itself. */
export function runHandlers(kernel: Kernel): RequestHandler[] {
  const config = kernel.config;
  const maxInputBytes = config.MAX_INPUT_MB * MB;
  const bodyLimit = bodyLimitBytes(config);
  const jsonParser = jsonBody(bodyLimit) as unknown as RequestHandler;

  // The call is opened (key, quota) and its body admitted before any body byte is read; unknown tools, a bad
  // `download` and unsupported content types are refused here too. The unread body is then discarded up to
  // a bound instead of being read to its end.
  const precheck: RequestHandler = async function precheckRun(req, res, next) {
    const marks = startMarks();
    if (marks) watchPhases(req, res, marks);
    try {
      // Express parses the query string again on every read of req.query.
      const query = req.query;
      res.locals.lang = requestLang(req, query);
      const tool = getTool(String(req.params.tool));
      // The run is counted from here, before its body is read: a bad key or no quota left is answered at
      // once, and a body refused while it is read counts like any run refused for its input.
      const declared = req.headers['content-length'] === undefined ? undefined : Number(req.headers['content-length']);
      const caller = callerOf(req, query.lang);
      const call = await kernel.admission.open(tool.id, caller, declared);
      res.locals.call = call;
      const download = parseDownload(query.download);
      const kind = kindOf(req);
      if (kind === null) throw new RequestError('invalid_option', 'rest.errors.empty_body');
      if (kind !== 'application/json' && kind !== 'multipart/form-data') {
        const received = String(req.headers['content-type'] ?? 'none').slice(0, 100);
        throw new RequestError('invalid_option', 'rest.errors.content_type', { params: { received, accepted: ACCEPTED_TYPES.join(', ') } });
      }
      // No body is decoded here: a compressed one would be inflated on this thread, costing far more than the
      // bytes the in-flight budget counted for it (40 requests of 33 KB of gzip took 2 GB).
      const coding = contentCoding(req);
      if (coding !== null) throw new RequestError('invalid_option', 'rest.errors.content_encoding', { params: { received: coding.slice(0, 50) } });
      // A JSON body declared larger than the limit is refused before reading it.
      if (kind === 'application/json' && Number(req.headers['content-length']) > bodyLimit) {
        throw new ToolError('input_too_large', { params: { max: config.MAX_INPUT_MB } });
      }
      const locals: RunLocals = { download, kind: kind === 'application/json' ? 'json' : 'multipart', caller };
      res.locals.run = locals;
      // A run that cannot start (every slot taken, or too many bodies in flight) is answered before its body
      // is read; an admitted body holds its share of the budget until the answer is sent.
      res.on('close', await kernel.admission.reserve(call, caller, declared));
    } catch (err) {
      discardRest(req, bodyLimit, res);
      // Answered here, as the bridge's error handler would: a refusal (busy above all, which a client
      // without patience meets at full speed) need not travel the router's error path.
      await answerError(req, res, err, config.MAX_INPUT_MB);
      return;
    }
    next();
  };

  const run = async function runTool(req: Request, res: Response): Promise<void> {
    const tool = getTool(String(req.params.tool));
    const { download, kind, caller } = res.locals.run as RunLocals;
    let args: Record<string, unknown>;
    let files: InputFile[] | undefined;
    if (kind === 'json') {
      const body: unknown = req.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new RequestError('invalid_option', 'rest.errors.not_object', { params: { received: Array.isArray(body) ? 'array' : body === null ? 'null' : typeof body } });
      }
      args = body as Record<string, unknown>;
    } else {
      const form = await readMultipart(req, {
        maxInputBytes,
        maxInputMb: config.MAX_INPUT_MB,
        maxFileParts: config.MAX_FILE_PARTS,
        maxDiscardBytes: bodyLimit,
      });
      args = coerceFields(tool, form.fields);
      files = form.files;
    }
    // Errors from here on speak the language the call asked for.
    const lang: Lang = resolveLang(args.language, res.locals.lang);
    res.locals.lang = lang;
    const marks = res.locals.marks as PhaseMarks | undefined;
    const result = await kernel.invoke(tool.id, { args, files, download, marks, stream: download }, caller, res.locals.call as Call);
    mark(marks, 'answer');
    if (download) await sendDownload(res, result);
    else sendJson(res, result);
  };

  return [precheck, jsonParser, run];
}

/** Marks the end of the body and publishes the run's marks once its answer is written (tools/core/phases.ts). */
function watchPhases(req: Request, res: Response, marks: PhaseMarks): void {
  res.locals.marks = marks;
  const tool = String(req.params.tool);
  req.once('end', () => mark(marks, 'bodyEnd'));
  res.once('finish', () => {
    mark(marks, 'finish');
    const kind = (res.locals.run as RunLocals | undefined)?.kind ?? 'refused';
    runPhases.publish({ tool, door: kind, status: res.statusCode, marks });
  });
}

/** The caller of a run: client address (per TRUST_PROXY), the key it sends, the `lang` of the URL. */
function callerOf(req: Request, lang: unknown): Caller {
  return { ip: req.ip ?? req.socket.remoteAddress ?? '', apiKey: apiKeyFrom(req.headers), lang: resolveLang(lang) };
}

/** The RunResponse. Written with end() rather than json(): an ETag over megabytes of base64 serves no POST. */
function sendJson(res: Response, result: InvokeResult): void {
  const body = runResponseBytes(result);
  // Nothing reads the result files again, nor the answer once it is written (transfer.ts).
  releaseOwned(result.files.map((f) => f.bytes));
  res.once('finish', () => release([body]));
  res.status(200).set(rateHeaders(result.rate)).set({
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(body.length),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

/**
 * The single result file (the kernel has zipped several) as the body, with its type and a safe file name;
 * written as it arrives from the job process when it is still arriving.
 */
async function sendDownload(res: Response, result: InvokeResult): Promise<void> {
  const file = result.files[0];
  const body = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
  const { streaming } = result;
  // Nothing is said until the first bytes are in: a result that stops before them is answered with its error.
  if (streaming) await arrived(streaming, Math.min(STREAM_CHUNK, body.length));
  // Set one by one on Node's response: Express's set() looks each name up for Content-Type's sake.
  res.statusCode = 200;
  for (const [name, value] of Object.entries(rateHeaders(result.rate))) res.setHeader(name, value);
  // Only here does Express add to the header (a charset, for a text type).
  res.set('Content-Type', file.contentType);
  res.setHeader('Content-Length', String(body.length));
  res.setHeader('Content-Disposition', contentDisposition(file.name));
  res.setHeader('Cache-Control', 'no-store');
  // A result such as HTML must never run in this origin if a browser opens it.
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  const messages = messagesHeader(result.messages);
  if (messages) res.setHeader(MESSAGES_HEADER, messages);
  // Once written, the file is let go at once rather than at the server's next collection (transfer.ts).
  res.once('finish', () => releaseOwned([body]));
  if (streaming) await streamBody(res, body, streaming);
  else res.end(body);
}

/** Bytes written at least this many at a time while a file arrives (fewer only for its last ones). */
const STREAM_CHUNK = 256 * 1024;

type Streaming = NonNullable<InvokeResult['streaming']>;

/** Waits until `bytes` of the file are in; throws the call's error (a ToolError) if they stop coming. */
async function arrived(streaming: Streaming, bytes: number): Promise<void> {
  try {
    while (streaming.received() < bytes) await streaming.more();
  } catch {
    await streaming.done;
    throw new Error('the result stopped arriving');
  }
}

/**
 * Writes a file while the job process is still sending it: each part goes to the socket once it is in (a
 * view of the file's own buffer, no copy), so the answer's writing overlaps its hand-back. The status and
 * headers are out by then, so a transfer that stops cannot become an Error body: the connection is closed
 * short of its Content-Length, which every client reads as a failed download.
 */
async function streamBody(res: Response, body: Buffer, streaming: Streaming): Promise<void> {
  let sent = 0;
  try {
    while (sent < body.length) {
      const received = streaming.received();
      if (received - sent >= STREAM_CHUNK || received === body.length) {
        res.write(body.subarray(sent, received));
        sent = received;
      } else await streaming.more();
    }
    await streaming.done;
    res.end();
  } catch (err) {
    // The call has ended with what stopped the bytes (its usage event); nothing more to wait for here.
    streaming.done.catch(() => {});
    console.error('download stopped while the result arrived:', err);
    res.destroy();
  }
}

/**
 * `attachment` with an ASCII fallback name and the exact UTF-8 name in `filename*` (RFC 6266, RFC 8187):
 * accents in the fallback lose their marks, other non-ASCII characters become `_`.
 */
export function contentDisposition(fileName: string): string {
  // Result names are safe names already; a header must hold whatever it is given (encodeURIComponent throws
  // on a lone surrogate).
  const name = plainName(fileName);
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '_')
    .replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Messages as JSON with every non-ASCII character escaped (header values are Latin-1 at best); null if none. */
export function messagesHeader(messages: InvokeResult['messages']): string | null {
  if (messages.length === 0) return null;
  // Every shorter list is shorter still: when all of them fit, that is the answer, without a text per prefix.
  const all = asciiJson(messages);
  if (all.length <= MAX_MESSAGES_HEADER) return all;
  const kept: InvokeResult['messages'] = [];
  let json = '';
  for (const m of messages) {
    const next = asciiJson([...kept, m]);
    if (next.length > MAX_MESSAGES_HEADER) break;
    kept.push(m);
    json = next;
  }
  return kept.length ? json : null;
}

function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

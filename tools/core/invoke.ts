// The one pipeline both front doors call: tool lookup, caller, quota, files, options, job slot,
// worker run, size checks and the usage event, in that order (design §6).
import { resolveLang, type Lang } from '../../locales/index.ts';
import { MB, type Config } from './config.ts';
import type { Message } from './define.ts';
import { clientOf } from './client-address.ts';
import { asToolError, ToolError, type ErrorDetail, type RateInfo } from './errors.ts';
import { DecodedBase64 } from './base64.ts';
import { checkFiles, decodeBase64, decodedSizeOf, fileFields, type InputFile, type InputSpec } from './files.ts';
import type { JobRunner, Streaming } from './jobs.ts';
import type { KeyStore } from './keys.ts';
import type { OutputFile, Preview } from './output.ts';
import { mark, type PhaseMarks } from './phases.ts';
import type { QuotaStore, QuotaTake } from './quota.ts';
import { getTool } from './registry.ts';
import { optionsSchema, parseOptions } from './schema.ts';
import type { Usage } from './usage.ts';

export interface Caller {
  /** Client address as the request gives it; without a key its client (clientOf) is the quota subject. */
  ip: string;
  /**
   * The key sent: undefined when none. An empty or unknown one is refused, never ignored; null stands for
   * credentials sent in a form that carries no key (`Authorization: Token …`), refused the same way.
   */
  apiKey?: string | null;
  /** Language when the call does not set `language` (MCP `?lang=en`). */
  lang?: Lang;
}

export interface RawInput {
  /** JSON body or MCP arguments: options, and `file`/`files` as `{ name, contentBase64 }` objects. */
  args: Record<string, unknown>;
  /** Files already in binary form (multipart); they take the place of `file`/`files` in `args`. */
  files?: InputFile[];
  /** Answer with the raw file (several become one ZIP) instead of base64 in JSON. */
  download?: boolean;
  /** Where the run's time goes, when something measures it (phases.ts). */
  marks?: PhaseMarks;
  /** With `download`: the caller writes the file as it arrives from the job (InvokeResult.streaming). */
  stream?: boolean;
}

export interface InvokeResult {
  tool: string;
  lang: Lang;
  files: OutputFile[];
  preview: Preview | null;
  textPreview: string | null;
  messages: Message[];
  rate: RateInfo;
  /**
   * A download asked to stream whose file is still arriving: its bytes may be read only as `received()` says.
   * The call ends (its usage event) once they are all in, or with what stopped them (`done` rejects).
   */
  streaming?: Streaming;
}

export interface KernelDeps {
  config: Config;
  jobs: JobRunner;
  keys: KeyStore;
  quota: QuotaStore;
  usage: Usage;
}

/** Files from the JSON arguments, decoded, with the input size bound checked before and after decoding. */
function filesFromArgs(field: string, args: Record<string, unknown>, maxBytes: number): InputFile[] {
  const raw = args[field];
  if (raw === undefined || raw === null) return [];
  const list = field === 'files' ? raw : [raw];
  if (!Array.isArray(list)) throw new ToolError('invalid_option', { option: field, params: { option: field, expected: 'array', received: typeof raw } });
  const objects = list.map((f) => {
    const text = f?.contentBase64;
    const ok = f && typeof f === 'object' && typeof f.name === 'string' && (typeof text === 'string' || text instanceof DecodedBase64) && Object.keys(f).length === 2;
    if (!ok) throw new ToolError('invalid_option', { option: field, params: { option: field, expected: '{ name, contentBase64 }', received: 'object' } });
    return f as { name: string; contentBase64: string | DecodedBase64 };
  });
  const claimed = objects.reduce((n, f) => n + decodedSizeOf(f.contentBase64), 0);
  if (claimed > maxBytes + 2 * objects.length) throw new ToolError('input_too_large', { option: field, params: { max: maxBytes / MB } });
  return objects.map((f) => ({ name: f.name, bytes: decodeBase64(f.contentBase64, field) }));
}

/** Every file of the JSON arguments: the main field's, then each further field's (tagged with it). */
function allFilesFromArgs(spec: InputSpec, args: Record<string, unknown>, maxBytes: number): InputFile[] {
  const files = filesFromArgs(spec.kind, args, maxBytes);
  for (const { field } of spec.more ?? []) {
    const more = filesFromArgs(field, args, maxBytes).map((f) => ({ ...f, field }));
    files.push(...more);
    if (files.reduce((n, f) => n + f.bytes.byteLength, 0) > maxBytes) throw new ToolError('input_too_large', { option: field, params: { max: maxBytes / MB } });
  }
  return files;
}

/** Longest file name accepted, in UTF-16 units as JSON Schema counts them (the file object's maxLength). */
const MAX_FILE_NAME = 255;

/** The same rule for a file's name whichever door it came through (JSON, multipart, MCP): 1 to 255 characters. */
function checkNames(main: string, files: InputFile[]): void {
  for (const f of files) {
    const field = f.field ?? main;
    if (f.name.length === 0 || f.name.length > MAX_FILE_NAME) {
      throw new ToolError('invalid_option', { option: field, messageKey: 'error-details.file_name', params: { option: field, max: MAX_FILE_NAME, length: f.name.length } });
    }
  }
}

/** The quota subject and hourly limit of a caller; a key that is sent must be a live one (`invalid_api_key`). */
export async function quotaSubjectOf(deps: Pick<KernelDeps, 'config' | 'keys'>, caller: Caller): Promise<{ subject: string; limit: number; keyId?: string }> {
  if (caller.apiKey === null) throw new ToolError('invalid_api_key', { messageKey: 'error-details.authorization' });
  if (caller.apiKey !== undefined) {
    const key = await deps.keys.verify(caller.apiKey);
    if (!key) throw new ToolError('invalid_api_key');
    return { subject: `key:${key.id}`, limit: key.quota ?? deps.config.KEY_RUNS_PER_HOUR, keyId: key.id };
  }
  return { subject: `ip:${clientOf(caller.ip)}`, limit: deps.config.ANON_RUNS_PER_HOUR };
}

/**
 * A refusal made before any work, without the stack trace an Error captures (about 12 µs at a router's
 * depth, most of what a busy answer cost its thread): its place in the code is known by its code, and it is
 * never logged. A client that ignores Retry-After meets this at full speed while runs are in progress.
 */
export function refusal(code: 'busy' | 'quota_exceeded', detail: ErrorDetail): ToolError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new ToolError(code, detail);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * One call of a tool, counted: its run taken from the caller's quota when it opened, its one usage event
 * recorded when it ends. A front door that refuses a call before the kernel runs it (a body that cannot be
 * read) ends it with that refusal's code, so every call leaves one event and counts by the same rules.
 */
export interface Call {
  /** The caller's quota state once this call was counted. */
  readonly rate: RateInfo;
  /**
   * Records the call's usage event and, when the outcome must not count (`busy`), gives its run back; returns
   * the quota state to report. Only the first end of a call does anything.
   */
  end(outcome: string, inputBytes: number): Promise<RateInfo>;
}

/**
 * Opens a call: the key (`invalid_api_key`), then one run of the quota (`quota_exceeded`, with a text for key
 * holders that does not send them to get a key). A call refused here has ended: its event is recorded.
 */
export async function openCall(deps: Omit<KernelDeps, 'jobs'>, toolId: string, caller: Caller, o: { started?: number; inputBytes?: number } = {}): Promise<Call> {
  const started = o.started ?? performance.now();
  const record = (outcome: string, inputBytes: number) => deps.usage.record({ tool: toolId, durationMs: performance.now() - started, inputBytes, outcome });
  let subject: string;
  let limit: number;
  let taken: QuotaTake;
  let keyId: string | undefined;
  try {
    ({ subject, limit, keyId } = await quotaSubjectOf(deps, caller));
    taken = await deps.quota.take(subject, limit);
  } catch (err) {
    const e = asToolError(err);
    record(e.code, o.inputBytes ?? 0);
    throw e;
  }
  const rate: RateInfo = { limit: taken.limit, remaining: taken.remaining, reset: taken.reset };
  if (!taken.allowed) {
    record('quota_exceeded', o.inputBytes ?? 0);
    throw refusal('quota_exceeded', { retryAfter: taken.reset, rate, messageKey: keyId !== undefined ? 'error-details.quota_exceeded_key' : undefined });
  }
  let reported: Promise<RateInfo> | null = null;
  return {
    rate,
    end(outcome, inputBytes) {
      reported ??= (async () => {
        // A run refused as busy does not count; one refused for its input does.
        const givenBack = outcome === 'busy';
        if (givenBack) await deps.quota.giveBack(subject, limit);
        record(outcome, inputBytes);
        return givenBack ? { ...rate, remaining: rate.remaining + 1 } : rate;
      })();
      return reported;
    },
  };
}

export function createInvoke(deps: KernelDeps) {
  const { config } = deps;
  const maxInput = config.MAX_INPUT_MB * MB;

  /**
   * Runs one tool call for a caller; throws ToolError (with `rate` set once the quota is known). `call` is the
   * call when a front door opened it already (before reading the body); otherwise it is opened here.
   */
  return async function invoke(toolId: string, input: RawInput, caller: Caller, call?: Call): Promise<InvokeResult> {
    const tool = getTool(toolId);
    const lang = resolveLang(input.args.language, caller.lang);
    let inputBytes = 0;
    const opened = call ?? (await openCall(deps, tool.id, caller));
    try {
      const field = tool.input.kind;
      const fields = fileFields(tool.input);
      const rawOptions = Object.fromEntries(Object.entries(input.args).filter(([k]) => !fields.includes(k)));
      const files = input.files ?? allFilesFromArgs(tool.input, input.args, maxInput);
      inputBytes = files.reduce((n, f) => n + f.bytes.byteLength, 0);
      checkNames(field, files);
      if (inputBytes > maxInput) throw new ToolError('input_too_large', { option: field, params: { max: config.MAX_INPUT_MB } });
      checkFiles(tool.input, files);
      const opts = parseOptions(optionsSchema(tool), rawOptions);

      const download = input.download === true;
      mark(input.marks, 'jobStart');
      const result = await deps.jobs.run({ toolId, files, opts, lang, download, marks: input.marks, stream: input.stream });
      const size = result.files.reduce((n, f) => n + f.bytes.byteLength, 0);
      if (!download && size > config.MAX_INLINE_RESULT_MB * MB) throw new ToolError('result_too_large', { params: { max: config.MAX_INLINE_RESULT_MB } });
      if (download && size > config.MAX_RESULT_MB * MB) throw new ToolError('result_too_large', { params: { max: config.MAX_RESULT_MB } });
      const { streaming } = result;
      if (!streaming) return { tool: tool.id, lang, ...result, rate: await opened.end('ok', inputBytes) };
      // Ending a call that counts gives back nothing: the rate it will report is the one it opened with.
      const done = streaming.done.then(
        async () => void (await opened.end('ok', inputBytes)),
        async (err: unknown) => {
          await opened.end(asToolError(err).code, inputBytes);
          throw err;
        },
      );
      return { tool: tool.id, lang, ...result, rate: opened.rate, streaming: { ...streaming, done } };
    } catch (err) {
      const e = asToolError(err);
      const rate = await opened.end(e.code, inputBytes);
      e.detail.rate ??= rate;
      throw e;
    }
  };
}

export type Invoke = ReturnType<typeof createInvoke>;

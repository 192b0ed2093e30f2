// The one pipeline both front doors call: tool lookup, caller, quota, files, options, job slot,
// worker run, size checks and the usage event, in that order (design §6).
import { resolveLang, type Lang } from '../../locales/index.ts';
import { MB, type Config } from './config.ts';
import type { Message } from './define.ts';
import { asToolError, ToolError, type RateInfo } from './errors.ts';
import { checkFiles, decodeBase64, decodedSizeOf, type InputFile } from './files.ts';
import type { JobRunner } from './jobs.ts';
import type { KeyStore } from './keys.ts';
import type { OutputFile, Preview } from './output.ts';
import type { QuotaStore } from './quota.ts';
import { getTool } from './registry.ts';
import { optionsSchema, parseOptions } from './schema.ts';
import type { Usage } from './usage.ts';

export interface Caller {
  /** Client address, the quota subject without a key. */
  ip: string;
  /** The key sent, if any: an empty or unknown one is refused, never ignored. */
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
}

export interface InvokeResult {
  tool: string;
  lang: Lang;
  files: OutputFile[];
  preview: Preview | null;
  textPreview: string | null;
  messages: Message[];
  rate: RateInfo;
}

export interface KernelDeps {
  config: Config;
  jobs: JobRunner;
  keys: KeyStore;
  quota: QuotaStore;
  usage: Usage;
}

/** Files from the JSON arguments, decoded, with the input size bound checked before and after decoding. */
function filesFromArgs(field: 'file' | 'files', args: Record<string, unknown>, maxBytes: number): InputFile[] {
  const raw = args[field];
  if (raw === undefined || raw === null) return [];
  const list = field === 'files' ? raw : [raw];
  if (!Array.isArray(list)) throw new ToolError('invalid_option', { option: field, params: { option: field, expected: 'array', received: typeof raw } });
  const objects = list.map((f) => {
    const ok = f && typeof f === 'object' && typeof f.name === 'string' && f.name.length > 0 && f.name.length <= 255 && typeof f.contentBase64 === 'string' && Object.keys(f).length === 2;
    if (!ok) throw new ToolError('invalid_option', { option: field, params: { option: field, expected: '{ name, contentBase64 }', received: 'object' } });
    return f as { name: string; contentBase64: string };
  });
  const claimed = objects.reduce((n, f) => n + decodedSizeOf(f.contentBase64), 0);
  if (claimed > maxBytes + 2 * objects.length) throw new ToolError('input_too_large', { option: field, params: { max: maxBytes / MB } });
  return objects.map((f) => ({ name: f.name, bytes: decodeBase64(f.contentBase64, field) }));
}

/** The quota subject and hourly limit of a caller; a key that is sent must be a live one (`invalid_api_key`). */
export async function quotaSubjectOf(deps: Pick<KernelDeps, 'config' | 'keys'>, caller: Caller): Promise<{ subject: string; limit: number }> {
  if (caller.apiKey !== undefined && caller.apiKey !== null) {
    const key = await deps.keys.verify(caller.apiKey);
    if (!key) throw new ToolError('invalid_api_key');
    return { subject: `key:${key.id}`, limit: key.quota ?? deps.config.KEY_RUNS_PER_HOUR };
  }
  return { subject: `ip:${caller.ip}`, limit: deps.config.ANON_RUNS_PER_HOUR };
}

export function createInvoke(deps: KernelDeps) {
  const { config } = deps;
  const maxInput = config.MAX_INPUT_MB * MB;

  /** Runs one tool call for a caller; throws ToolError (with `rate` set once the quota is known). */
  return async function invoke(toolId: string, input: RawInput, caller: Caller): Promise<InvokeResult> {
    const tool = getTool(toolId);
    const lang = resolveLang(input.args.language, caller.lang);
    const started = performance.now();
    let inputBytes = 0;
    let rate: RateInfo | undefined;
    let outcome = 'ok';
    let counted = false;
    let subject = '';
    let limit = 0;
    try {
      ({ subject, limit } = await quotaSubjectOf(deps, caller));
      const taken = await deps.quota.take(subject, limit);
      rate = { limit: taken.limit, remaining: taken.remaining, reset: taken.reset };
      if (!taken.allowed) throw new ToolError('quota_exceeded', { retryAfter: taken.reset });
      counted = true;

      const field = tool.input.kind;
      const { [field]: _files, ...rawOptions } = input.args;
      const files = input.files ?? filesFromArgs(field, input.args, maxInput);
      inputBytes = files.reduce((n, f) => n + f.bytes.byteLength, 0);
      if (inputBytes > maxInput) throw new ToolError('input_too_large', { option: field, params: { max: config.MAX_INPUT_MB } });
      checkFiles(tool.input, files);
      const opts = parseOptions(optionsSchema(tool), rawOptions);

      const download = input.download === true;
      const result = await deps.jobs.run({ toolId, files, opts, lang, download });
      const size = result.files.reduce((n, f) => n + f.bytes.byteLength, 0);
      if (!download && size > config.MAX_INLINE_RESULT_MB * MB) throw new ToolError('result_too_large', { params: { max: config.MAX_INLINE_RESULT_MB } });
      if (download && size > config.MAX_RESULT_MB * MB) throw new ToolError('result_too_large', { params: { max: config.MAX_RESULT_MB } });
      return { tool: tool.id, lang, ...result, rate };
    } catch (err) {
      const e = asToolError(err);
      outcome = e.code;
      // A run refused as busy does not count; one refused for its input does.
      if (e.code === 'busy' && counted) {
        await deps.quota.giveBack(subject, limit);
        if (rate) rate = { ...rate, remaining: rate.remaining + 1 };
      }
      e.detail.rate ??= rate;
      throw e;
    } finally {
      deps.usage.record({ tool: tool.id, durationMs: performance.now() - started, inputBytes, outcome });
    }
  };
}

export type Invoke = ReturnType<typeof createInvoke>;

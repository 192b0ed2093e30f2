// The part of a run that transforms: it runs inside a job process (or inline in tool tests).
import { t, type Lang } from '../../locales/index.ts';
import { DEFAULT_TOOL_LIMITS, type ToolLimits } from './config.ts';
import type { AnyTool, Message, ToolContext } from './define.ts';
import { ToolError } from './errors.ts';
import { mapFormatError } from './format-errors.ts';
import { extensionOf, type InputFile } from './files.ts';
import type { Removed } from '../formats/index.ts';
import { contentTypeOf, EarlyDeflate, previewOf, previewOfFiles, printableParams, safeName, textPreviewOf, uniqueNames, zipFiles, type OutputFile, type Preview } from './output.ts';

export interface RunResult {
  /** The result files, or one ZIP of them when the caller downloads several. */
  files: OutputFile[];
  preview: Preview | null;
  textPreview: string | null;
  messages: Message[];
}

export interface ExecuteOptions {
  lang: Lang;
  /** The caller takes the body as a file: several results become one ZIP. */
  download: boolean;
  signal?: AbortSignal;
  limits?: ToolLimits;
}

/** What the result files of a run left out (Written.removed), by kind and format: one warning each. */
type Lost = Map<string, Removed & { format: string }>;

export function createContext(lang: Lang, signal: AbortSignal, messages: Message[], limits: ToolLimits = DEFAULT_TOOL_LIMITS, early: EarlyDeflate | null = null): ToolContext {
  return {
    lang,
    signal,
    limits,
    t: (key, params) => t(lang, key, params),
    name: (key, params) => t(lang, `names.${key}`, params),
    file: (name, content, o = {}) => {
      const safe = safeName(name, t(lang, 'names.file'));
      const type = o.charset ? contentTypeOf(safe).replace(/charset=[\w-]+/, `charset=${o.charset}`) : contentTypeOf(safe);
      let out: OutputFile;
      if (content instanceof Uint8Array) out = { name: safe, contentType: type, bytes: content };
      else {
        out = { name: safe, contentType: type, bytes: content.bytes, preview: content.preview };
        // The first cell is named in its sheet in a workbook, else in its file (a part's name is final only here).
        if (content.removed) out.removed = { ...content.removed, table: WORKBOOKS.has(extensionOf(safe)) ? content.removed.table : safe };
      }
      early?.made(out);
      return out;
    },
    // Sheet names, titles and file names reach messages as the file has them: made printable here, once.
    message: (level, key, params) => {
      messages.push({ level, text: t(lang, `messages.${key}`, params && printableParams(params)) });
    },
  };
}

const WORKBOOKS = new Set(['xlsx', 'xls', 'ods']);

function tally(lost: Lost, r: Removed, format: string): void {
  const key = `${r.kind} ${format}`;
  const known = lost.get(key);
  if (known) known.count += r.count;
  else lost.set(key, { ...r, format });
}

/** One warning per kind of characters the run's results lost, with their count and the first cell. */
function reportLost(lost: Lost, ctx: ToolContext): void {
  for (const r of lost.values()) {
    ctx.message('warning', r.kind === 'nul' ? 'nul_removed' : 'markup_chars_removed', { count: r.count, format: r.format, cell: r.cell, sheet: r.table });
  }
}

/**
 * The signal of a run that is never aborted here (a job worker is stopped from outside instead): one for all,
 * since tools only read `aborted`, and an AbortController per run cost as much as a small run's lookups.
 */
const NEVER_ABORTED = new AbortController().signal;

/** Runs a tool on checked files and validated options, and packages what it returns. */
export async function execute(tool: AnyTool, files: InputFile[], opts: Record<string, unknown>, o: ExecuteOptions): Promise<RunResult> {
  const messages: Message[] = [];
  const early = o.download ? new EarlyDeflate() : null;
  const ctx = createContext(o.lang, o.signal ?? NEVER_ABORTED, messages, o.limits, early);
  let out: Awaited<ReturnType<AnyTool['run']>>;
  const main = files.filter((f) => f.field === undefined);
  const more = files.filter((f) => f.field !== undefined);
  try {
    out = await tool.run({ file: main[0], files: main, more: Object.fromEntries(more.map((f) => [f.field, f])) }, opts as never, ctx);
  } catch (err) {
    throw mapFormatError(err, tool.input.kind, more);
  }
  if (out.files.length === 0) throw new ToolError('internal_error', { cause: new Error(`${tool.id} returned no file`) });
  // Counted over the files the run returns, not every file it made: a read that started again makes its
  // files again (split-rows names its parts as they are cut).
  const lost: Lost = new Map();
  for (const f of out.files) if (f.removed) tally(lost, f.removed, extensionOf(f.name).toUpperCase());
  reportLost(lost, ctx);
  const names = uniqueNames(out.files.map((f) => f.name));
  // The previews writers kept stay here: only the kernel's preview of them crosses to the caller.
  const results = out.files.map((f, i) => ({ name: names[i], contentType: f.contentType, bytes: f.bytes }));
  // A download answers with the file alone: previews would only be built and copied across threads for nothing.
  if (o.download) {
    return { files: results.length > 1 ? [await zipFiles(results, `${t(o.lang, 'names.zip')}.zip`, early)] : results, preview: null, textPreview: null, messages };
  }
  const textFile = results.find((f) => textPreviewOf(f) !== null);
  return {
    files: results,
    preview: out.preview ? previewOf(out.preview) : previewOfFiles(out.files),
    textPreview: textFile ? textPreviewOf(textFile) : null,
    messages,
  };
}

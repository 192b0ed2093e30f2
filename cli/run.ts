// `spreadsheet-tools <tool> <files…>`: one run through the kernel on this machine, its results written to
// disk (or standard output), its messages on standard error. Exit codes tell the caller's mistakes from the
// data's and from failures (see exitCodeOf).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { catalogueEntry } from '../bridge/catalogue.ts';
import { coerceFields } from '../bridge/multipart.ts';
import { resolveLang, t, type Lang } from '../locales/index.ts';
import { MB } from '../tools/core/config.ts';
import type { AnyTool } from '../tools/core/define.ts';
import { asToolError, ERROR_STATUS, ToolError, type ErrorCode } from '../tools/core/errors.ts';
import type { InputFile } from '../tools/core/files.ts';
import type { InvokeResult } from '../tools/core/invoke.ts';
import type { Kernel } from '../tools/core/kernel.ts';
import { zipFiles, type OutputFile } from '../tools/core/output.ts';
import { errorBody } from '../tools/core/wire.ts';
import { parseToolArgs, UsageError, type ToolArgs } from './args.ts';
import { toolHelp } from './help.ts';
import { LOCAL_CALLER, localConfig, localKernel } from './local.ts';

export const EXIT = { ok: 0, failure: 1, usage: 2, input: 3 } as const;

/** Mistakes in the command line itself. */
const USAGE_CODES = new Set<ErrorCode>(['unknown_tool', 'unknown_option', 'invalid_option', 'missing_file', 'too_many_files', 'too_few_files']);

/** 2 for a command line to fix, 3 for input data refused (format, damage, limits), 1 for anything else. */
export function exitCodeOf(code: ErrorCode): number {
  if (USAGE_CODES.has(code)) return EXIT.usage;
  const status: number = ERROR_STATUS[code];
  return status === 400 || status === 413 ? EXIT.input : EXIT.failure;
}

const say = (line: string) => process.stderr.write(`${line}\n`);

function sizeText(n: number): string {
  return n < 1024 ? `${n} B` : n < MB ? `${(n / 1024).toFixed(1)} KB` : `${(n / MB).toFixed(1)} MB`;
}

/** The input files, checked to exist and to fit MAX_INPUT_MB before any is read. */
function readInputs(paths: string[], maxMb: number, more: Record<string, string> = {}): InputFile[] {
  const fields = Object.entries(more);
  const files = readPaths([...paths, ...fields.map(([, path]) => path)], maxMb);
  // The further files (`--lookup-file`) come after the main ones, tagged with their field.
  return files.map((f, i) => (i < paths.length ? f : { ...f, field: fields[i - paths.length][0] }));
}

function readPaths(paths: string[], maxMb: number): InputFile[] {
  let total = 0;
  for (const path of paths) {
    let size: number;
    try {
      const st = statSync(path);
      if (!st.isFile()) throw new UsageError('file-unreadable', { path, reason: 'not-a-file' });
      size = st.size;
    } catch (err) {
      if (err instanceof UsageError) throw err;
      const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not-found' : (err as Error).message;
      throw new UsageError('file-unreadable', { path, reason });
    }
    total += size;
  }
  if (total > maxMb * MB) throw new ToolError('input_too_large', { params: { max: maxMb } });
  return paths.map((path) => ({ name: basename(path), bytes: new Uint8Array(readFileSync(path)) }));
}

interface Write {
  path: string;
  bytes: Uint8Array;
}

/** Where each result goes: a folder (one file each), one file (a ZIP when there are several), or stdout. */
async function plan(files: OutputFile[], output: string | undefined, zipName: string): Promise<Write[] | 'stdout'> {
  if (output === '-') return 'stdout';
  const folder = output === undefined || output.endsWith('/') || output.endsWith(sep) || (existsSync(output) && statSync(output).isDirectory());
  if (folder) return files.map((f) => ({ path: join(output ?? '.', f.name), bytes: f.bytes }));
  return [{ path: output, bytes: files.length === 1 ? files[0].bytes : (await zipFiles(files, zipName)).bytes }];
}

/** A result that could not be written. */
class WriteError extends Error {
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super((cause as Error).message);
  }
}

/**
 * Creates `dir` and its missing parents one by one. Node's own recursive mkdir never returns under /proc
 * (it retries the ENOENT it gets there without end); one level at a time fails at once instead.
 */
function makeFolders(dir: string): void {
  if (existsSync(dir)) return;
  makeFolders(dirname(dir));
  mkdirSync(dir);
}

/** Writes each file whole or not at all (a temporary name, then a rename). */
function writeAll(writes: Write[]): void {
  for (const w of writes) {
    const tmp = `${w.path}.${process.pid}.partial`;
    try {
      makeFolders(dirname(w.path));
      writeFileSync(tmp, w.bytes);
      renameSync(tmp, w.path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw new WriteError(w.path, err);
    }
  }
}

function report(lang: Lang, args: ToolArgs, result: InvokeResult, writes: Write[] | 'stdout'): void {
  if (args.json) {
    const files = result.files.map((f, i) => ({ name: f.name, contentType: f.contentType, size: f.bytes.byteLength, path: writes === 'stdout' ? null : (writes[i] ?? writes[0]).path }));
    // With -o - the result itself holds standard output: the summary goes to standard error.
    const out = writes === 'stdout' ? process.stderr : process.stdout;
    out.write(`${JSON.stringify({ ok: true, tool: result.tool, files, preview: result.preview, textPreview: result.textPreview, messages: result.messages }, null, 2)}\n`);
    return;
  }
  if (writes !== 'stdout') for (const w of writes) say(t(lang, 'cli.wrote', { path: w.path, size: sizeText(w.bytes.byteLength) }));
  for (const m of result.messages) say(`${t(lang, `cli.level-${m.level}`)}: ${m.text}`);
}

/** Runs one tool from its command line; resolves with the exit code. */
export async function runCommand(tool: AnyTool, argv: readonly string[], lang: Lang): Promise<number> {
  const entry = catalogueEntry(tool, lang);
  let args: ToolArgs = { files: [], more: {}, fields: {}, force: false, json: argv.includes('--json'), help: false };
  let kernel: Kernel | undefined;
  try {
    args = parseToolArgs(entry, argv);
    if (args.help) {
      process.stdout.write(toolHelp(lang, entry));
      return EXIT.ok;
    }
    if (args.files.length === 0) throw new UsageError('no-files', { tool: tool.id });
    const config = localConfig();
    const files = readInputs(args.files, config.MAX_INPUT_MB, args.more);
    const options = coerceFields(tool, args.fields);
    lang = resolveLang(options.language, lang);
    kernel = localKernel();
    const result = await kernel.invoke(tool.id, { args: options, files }, { ...LOCAL_CALLER, lang });
    const zipName = `${t(result.lang, 'names.zip')}.zip`;
    const writes = await plan(result.files, args.output, zipName);
    if (writes !== 'stdout' && !args.force) {
      const taken = writes.find((w) => existsSync(w.path));
      if (taken) throw new UsageError('exists', { path: taken.path });
    }
    if (writes === 'stdout') {
      const bytes = result.files.length === 1 ? result.files[0].bytes : (await zipFiles(result.files, zipName)).bytes;
      await new Promise<void>((resolve, reject) => process.stdout.write(bytes, (err) => (err ? reject(new WriteError('-', err)) : resolve())));
    } else writeAll(writes);
    report(lang, args, result, writes);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof WriteError) {
      say(`spreadsheet-tools: ${t(lang, 'cli.errors.write-failed', { path: err.path, reason: err.message })}`);
      return EXIT.failure;
    }
    if (err instanceof UsageError) {
      const params = { ...err.params };
      if (params.reason === 'not-found' || params.reason === 'not-a-file') params.reason = t(lang, `cli.errors.${params.reason}`);
      const message = t(lang, `cli.errors.${err.key}`, params);
      if (args.json) process.stdout.write(`${JSON.stringify({ ok: false, error: 'usage', message, option: params.option ?? null })}\n`);
      else say(`spreadsheet-tools: ${message}`);
      return EXIT.usage;
    }
    const e = asToolError(err);
    const body = errorBody(e, lang);
    if (args.json) process.stdout.write(`${JSON.stringify(body)}\n`);
    else say(`spreadsheet-tools: ${body.message} (${body.error})`);
    return exitCodeOf(e.code);
  } finally {
    await kernel?.close(0);
  }
}

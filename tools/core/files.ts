// Input files: the format is decided by the extension, as the spec says; sizes are counted on decoded bytes.
import { decodeBase64Fast, DecodedBase64 } from './base64.ts';
import { ToolError } from './errors.ts';

/** The extensions tools admit; a tool's `input.formats` lists its own. A tool that reads a new one adds it here. */
export const FORMATS = ['xlsx', 'xls', 'ods', 'csv', 'tsv', 'txt', 'json', 'xml', 'html', 'htm', 'md', 'markdown', 'sql', 'vcf', 'vcard'] as const;
export type Format = (typeof FORMATS)[number];

/**
 * The extensions each format is admitted under, the format's own first. Macro-enabled workbooks and templates
 * are xlsx packages (their macros are neither run nor kept); tab-separated .tsv and .txt are delimited text.
 */
export const EXTENSIONS: Readonly<Partial<Record<Format, readonly string[]>>> = {
  xlsx: ['xlsx', 'xlsm', 'xltx', 'xltm'],
  xls: ['xls'],
  csv: ['csv', 'tsv', 'txt'],
  json: ['json'],
};

/** Every extension a tool taking `formats` admits, with its dot, in the order the formats are listed (a format
 * without an entry in EXTENSIONS is its own extension). */
export function extensionsOf(formats: readonly Format[]): string[] {
  return [...new Set(formats.flatMap((f) => (EXTENSIONS[f] ?? [f]).map((x) => '.' + x)))];
}

export interface InputFile {
  name: string;
  bytes: Uint8Array;
  /** The request field of a further file (`lookup-file`); absent for the tool's main `file`/`files`. */
  field?: string;
}

/** A further input file, required, in a field of its own (merge-by-key's `lookup-file`, tools.md §2.2). */
export interface MoreFile {
  field: string;
  formats: readonly Format[];
}

/**
 * Declares which files a tool takes: one `file`, or a `files` array with bounds; `more` adds further single
 * files, each in its own field, read and checked like `file`.
 */
export type InputSpec = (
  | { kind: 'file'; formats: readonly Format[] }
  | { kind: 'files'; formats: readonly Format[]; min: number; max: number }
) & { more?: readonly MoreFile[] };

/** Every file field of a tool: its main one, then its further ones. */
export function fileFields(spec: InputSpec): string[] {
  return [spec.kind, ...(spec.more ?? []).map((m) => m.field)];
}

/** Lower-case extension without the dot, or '' when the name has none. */
export function extensionOf(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

/** The name without folders and without its extension, for naming results after their source. */
export function baseNameOf(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Decodes standard or URL-safe base64, refusing anything else instead of skipping bad characters as Buffer
 * does; whitespace is dropped. A text the JSON reader decoded already (DecodedBase64) gives its verdict.
 */
export function decodeBase64(text: string | DecodedBase64, option: string): Uint8Array {
  if (text instanceof DecodedBase64) {
    if (text.bytes === null) throw new ToolError('invalid_option', { option, messageKey: 'error-details.base64' });
    return text.bytes;
  }
  const fast = decodeBase64Fast(text);
  if (fast) return fast;
  const compact = text.replace(/\s+/g, '');
  const ok = (BASE64.test(compact) && compact.length % 4 === 0) || (BASE64URL.test(compact) && compact.length % 4 !== 1);
  if (!ok) throw new ToolError('invalid_option', { option, messageKey: 'error-details.base64' });
  return Buffer.from(compact, BASE64URL.test(compact) && /[-_]/.test(compact) ? 'base64url' : 'base64');
}

/** Upper bound of the decoded size of a base64 text, to refuse oversized input before decoding it. */
export function decodedSizeOf(text: string | DecodedBase64): number {
  return Math.floor((text.length * 3) / 4);
}

/** Count and extension checks, in the order the caller can fix them: the main field first, then each further one. */
export function checkFiles(spec: InputSpec, all: InputFile[]): void {
  const option = spec.kind;
  const files = all.filter((f) => f.field === undefined);
  for (const f of all) {
    if (f.field !== undefined && !spec.more?.some((m) => m.field === f.field)) throw new ToolError('unknown_option', { option: f.field, params: { option: f.field } });
  }
  checkMain(spec, files);
  for (const more of spec.more ?? []) {
    const given = all.filter((f) => f.field === more.field);
    if (given.length === 0) throw new ToolError('missing_file', { option: more.field });
    if (given.length > 1) throw new ToolError('too_many_files', { option: more.field, params: { max: 1 } });
    checkExtensions(more.field, more.formats, given);
  }
}

function checkMain(spec: InputSpec, files: InputFile[]): void {
  const option = spec.kind;
  if (files.length === 0) throw new ToolError('missing_file', { option });
  if (spec.kind === 'file' && files.length > 1) throw new ToolError('too_many_files', { option, params: { max: 1 } });
  if (spec.kind === 'files') {
    if (files.length < spec.min) throw new ToolError('too_few_files', { option, params: { min: spec.min } });
    if (files.length > spec.max) throw new ToolError('too_many_files', { option, params: { max: spec.max } });
  }
  checkExtensions(option, spec.formats, files);
}

/** extensionsOf for each tool's own declaration, built once instead of on every run. */
const admittedByFormats = new WeakMap<readonly Format[], readonly string[]>();

function checkExtensions(option: string, formats: readonly Format[], files: InputFile[]): void {
  let admitted = admittedByFormats.get(formats);
  if (!admitted) admittedByFormats.set(formats, (admitted = extensionsOf(formats)));
  for (const f of files) {
    if (!admitted.includes('.' + extensionOf(f.name))) {
      throw new ToolError('unsupported_format', {
        option,
        params: { name: f.name.slice(0, 200), formats: admitted.join(', ') },
      });
    }
  }
}

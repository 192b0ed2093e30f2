// Input files: the format is decided by the extension, as the spec says; sizes are counted on decoded bytes.
import { ToolError } from './errors.ts';

/** The formats tools admit; a tool's `input.formats` lists its own. A tool that reads a new one adds it here. */
export const FORMATS = ['xlsx', 'xls', 'csv', 'json'] as const;
export type Format = (typeof FORMATS)[number];

/**
 * The extensions each format is admitted under, the format's own first. Macro-enabled workbooks and templates
 * are xlsx packages (their macros are neither run nor kept); tab-separated .tsv and .txt are delimited text.
 */
export const EXTENSIONS: Readonly<Record<Format, readonly string[]>> = {
  xlsx: ['xlsx', 'xlsm', 'xltx', 'xltm'],
  xls: ['xls'],
  csv: ['csv', 'tsv', 'txt'],
  json: ['json'],
};

/** Every extension a tool taking `formats` admits, with its dot, in the order the formats are listed. */
export function extensionsOf(formats: readonly Format[]): string[] {
  return formats.flatMap((f) => EXTENSIONS[f].map((x) => '.' + x));
}

export interface InputFile {
  name: string;
  bytes: Uint8Array;
}

/** Declares which files a tool takes: one `file`, or a `files` array with bounds. */
export type InputSpec =
  | { kind: 'file'; formats: readonly Format[] }
  | { kind: 'files'; formats: readonly Format[]; min: number; max: number };

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

/** Decodes standard or URL-safe base64, refusing anything else instead of skipping bad characters as Buffer does. */
export function decodeBase64(text: string, option: string): Uint8Array {
  const compact = text.replace(/\s+/g, '');
  const ok = (BASE64.test(compact) && compact.length % 4 === 0) || (BASE64URL.test(compact) && compact.length % 4 !== 1);
  if (!ok) throw new ToolError('invalid_option', { option, messageKey: 'error-details.base64' });
  return Buffer.from(compact, BASE64URL.test(compact) && /[-_]/.test(compact) ? 'base64url' : 'base64');
}

/** Upper bound of the decoded size of a base64 text, to refuse oversized input before decoding it. */
export function decodedSizeOf(text: string): number {
  return Math.floor((text.length * 3) / 4);
}

/** Count and extension checks, in the order the caller can fix them. */
export function checkFiles(spec: InputSpec, files: InputFile[]): void {
  const option = spec.kind;
  if (files.length === 0) throw new ToolError('missing_file', { option });
  if (spec.kind === 'file' && files.length > 1) throw new ToolError('too_many_files', { option, params: { max: 1 } });
  if (spec.kind === 'files') {
    if (files.length < spec.min) throw new ToolError('too_few_files', { option, params: { min: spec.min } });
    if (files.length > spec.max) throw new ToolError('too_many_files', { option, params: { max: spec.max } });
  }
  const admitted = extensionsOf(spec.formats);
  for (const f of files) {
    if (!admitted.includes('.' + extensionOf(f.name))) {
      throw new ToolError('unsupported_format', {
        option,
        params: { name: f.name.slice(0, 200), formats: admitted.join(', ') },
      });
    }
  }
}

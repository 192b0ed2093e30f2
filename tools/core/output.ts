// Result files: safe names, media types, ZIP packaging, and the previews every answer carries.
import { extensionOf } from './files.ts';
import { decodeWindows1252, deflatePieces, zipBuilder, type Deflated } from '../formats/index.ts';
import { CellError, FullCell, isoDate, widthOf, columnLetter, type AnyCell, type Cell, type Removed, type Row, type TableData, type TablePreview } from '../formats/index.ts';

export interface OutputFile {
  name: string;
  contentType: string;
  bytes: Uint8Array;
  /** The first rows of the table its writer wrote, for the run's preview (never sent as such). */
  preview?: TablePreview | null;
  /** What its writer took out of the cells (Written.removed), the first cell's table named: one warning per kind. */
  removed?: Removed;
}

/** Media types of the results tools write, by extension (tools.md §2.5); a tool writing a new one adds it. */
export const CONTENT_TYPES: Record<string, string> = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  xls: 'application/vnd.ms-excel',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  csv: 'text/csv; charset=utf-8',
  tsv: 'text/tab-separated-values; charset=utf-8',
  json: 'application/json; charset=utf-8',
  sql: 'application/sql; charset=utf-8',
  vcf: 'text/vcard; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  html: 'text/html; charset=utf-8',
  pdf: 'application/pdf',
  md: 'text/markdown; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  yaml: 'application/yaml; charset=utf-8',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  zip: 'application/zip',
};

export function contentTypeOf(name: string): string {
  return CONTENT_TYPES[extensionOf(name)] ?? 'application/octet-stream';
}

export function isText(contentType: string): boolean {
  return /^text\/|^application\/(json|sql|xml|yaml)/.test(contentType);
}

const MAX_NAME = 100;
// Windows reserves these names whatever the extension.
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/i;
// Format characters (category Cf: bidi overrides and isolates, zero-width spaces and joiners, soft hyphens…)
// draw nothing or reorder what follows: `inv\u202Egpj.csv` shows as `invvsc.jpg`. A lone surrogate is no
// character at all: it cannot be written as UTF-8 or put in a URI (encodeURIComponent throws).
const FORMAT = /\p{Cf}/gu;
const LONE_SURROGATE = /\p{Cs}/gu;

/** A name without format characters, each lone surrogate made `_`: what every encoder writes and every reader shows as it is. */
export function plainName(name: string): string {
  return name.replace(FORMAT, '').replace(LONE_SURROGATE, '_');
}

/**
 * A file name that is safe inside a ZIP and on any disk: no folders, no control, format or reserved
 * characters, no lone surrogates, no leading dots, at most 100 characters, and never empty.
 */
export function safeName(name: string, fallback = 'file'): string {
  const ext = extensionOf(name);
  let stem = ext ? name.slice(0, -(ext.length + 1)) : name;
  stem = plainName(stem)
    .normalize('NFC')
    .replace(/(^|[/\\])\.\.(?=[/\\]|$)/g, '$1')
    .replace(/[\u0000-\u001f\u007f-\u009f<>:"/\\|?*]+/g, '_')
    .replace(/^[\s._]+|[\s.]+$/g, '')
    .replace(/\s+/g, ' ');
  if (!stem || RESERVED.test(stem)) stem = stem ? `_${stem}` : fallback;
  const suffix = ext ? `.${ext.replace(/[^a-z0-9]/g, '')}` : '';
  return [...stem].slice(0, MAX_NAME - suffix.length).join('') + suffix;
}

// Text echoed from a request or a file (a file, sheet or column name, an option's name or value) brings no
// control characters into a message: a terminal or log that shows it must not be driven by the caller.
// Bidi controls and lone surrogates go the same way: one reorders what a reader sees, the other is no text.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\p{Cs}/gu;

/** `value` with every character a message must not carry replaced by U+FFFD; other values as they are. */
export function printable<T>(value: T): T {
  return (typeof value === 'string' ? value.replace(UNPRINTABLE, '\ufffd') : value) as T;
}

/** Message parameters made printable, for every message of a result or an error. */
export function printableParams(params: Record<string, string | number>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(params)) out[k] = printable(v);
  return out;
}

/** Makes names unique, ignoring case (as Windows and macOS disks do), by adding ` (2)`, ` (3)`… */
export function uniqueNames(names: string[]): string[] {
  const seen = new Set<string>();
  return names.map((name) => {
    const ext = extensionOf(name);
    const stem = ext ? name.slice(0, -(ext.length + 1)) : name;
    let candidate = name;
    for (let n = 2; seen.has(candidate.toLowerCase()); n++) {
      const tag = ` (${n})`;
      candidate = [...stem].slice(0, MAX_NAME - tag.length - ext.length - 1).join('') + tag + (ext ? `.${ext}` : '');
    }
    seen.add(candidate.toLowerCase());
    return candidate;
  });
}

const STORED = new Set(['xlsx', 'ods', 'docx', 'zip', 'pdf']);

/**
 * One ZIP of several result files. Formats that are already compressed are stored; text is deflated at zlib
 * level 1, which on 100,000 CSV rows split ten ways took ~120 ms instead of fflate level 6's ~350 ms for a ZIP
 * about 15% larger: the caller waits for the time, not for the bytes, on a download. Every file is deflated at
 * once, in pieces, on libuv's threads (deflatePieces): the job's thread has nothing else to do meanwhile.
 */
export async function zipFiles(files: OutputFile[], zipName: string, early: EarlyDeflate | null = null): Promise<OutputFile> {
  const names = uniqueNames(files.map((f) => f.name));
  const deflated = await Promise.all(files.map((f) => (STORED.has(extensionOf(f.name)) ? null : (early?.of(f.bytes) ?? deflatePieces(f.bytes, 1)))));
  const zip = zipBuilder();
  files.forEach((f, i) => {
    const d = deflated[i];
    if (d === null) zip.stored(names[i], f.bytes);
    else zip.deflatedBytes(names[i], d);
  });
  return { name: zipName, contentType: CONTENT_TYPES.zip, bytes: zip.finish() };
}

/**
 * A download's result files deflated while the tool is still making the next ones (split-by-column writes a
 * part per value): from the second file on, the run's result is a ZIP, so each text file made is deflated on
 * libuv's threads at once. A single file goes out as it is, and is never deflated.
 */
export class EarlyDeflate {
  private readonly waiting: OutputFile[] = [];
  private readonly started = new Map<Uint8Array, Promise<Deflated>>();
  private count = 0;

  made(f: OutputFile): void {
    this.waiting.push(f);
    if (++this.count < 2) return;
    for (const w of this.waiting.splice(0)) {
      if (STORED.has(extensionOf(w.name)) || this.started.has(w.bytes)) continue;
      const d = deflatePieces(w.bytes, 1);
      // A run that fails after this never asks for it.
      d.catch(() => {});
      this.started.set(w.bytes, d);
    }
  }

  of(bytes: Uint8Array): Promise<Deflated> | undefined {
    return this.started.get(bytes);
  }
}

export const PREVIEW_ROWS = 20;
export const TEXT_PREVIEW_CHARS = 2000;

export type PreviewCell = string | number | boolean | null;
export interface Preview {
  columns: string[];
  rows: PreviewCell[][];
  totalRows: number;
  truncated: boolean;
  sheet: string | null;
}

function previewCell(c: AnyCell): PreviewCell {
  if (c instanceof FullCell) return previewCell(c.value);
  if (c instanceof CellError) return c.text;
  if (c instanceof Date) return isoDate(c);
  if (typeof c === 'number' && !Number.isFinite(c)) return String(c);
  return c;
}

/**
 * A table for the preview that may hold only its first rows (at least PREVIEW_ROWS of them, as wide as the
 * table), saying how many it has in all: a result written without building its rows.
 */
export type PreviewTable = TableData & { totalRows?: number };

/** The first rows of a result written as its rows come (never a whole table), kept for its preview. */
export class PreviewRows {
  readonly rows: Row[] = [];
  take(batch: readonly Row[]): void {
    for (let i = 0; i < batch.length && this.rows.length < PREVIEW_ROWS; i++) this.rows.push(batch[i]);
  }

  /** The preview's table, its rows as wide as the result's widest (known only at the end). */
  table(name: string, header: string[] | null, width: number, totalRows: number): PreviewTable {
    const rows = this.rows.map((r) => (r.length >= width ? r : [...r, ...new Array<Cell>(width - r.length).fill(null)]));
    return { name, header, rows, totalRows };
  }
}

/** The first rows of a table as JSON; columns are the titles, or A, B, C… when there are none. */
export function previewOf(table: TableData<AnyCell> & { totalRows?: number }): Preview {
  const width = widthOf(table);
  const total = table.totalRows ?? table.rows.length;
  const columns = Array.from({ length: width }, (_, i) => (table.header && i < table.header.length ? table.header[i] : columnLetter(i)));
  const rows = table.rows.slice(0, PREVIEW_ROWS).map((r) => Array.from({ length: width }, (_, i) => previewCell(r[i] ?? null)));
  return { columns, rows, totalRows: total, truncated: total > PREVIEW_ROWS, sheet: table.name || null };
}

/** The run's preview: of the first written table that has columns, else of the first written table. */
export function previewOfFiles(files: readonly OutputFile[]): Preview | null {
  const kept = files.flatMap((f) => (f.preview ? [f.preview] : []));
  const t = kept.find((k) => k.width > 0) ?? kept[0];
  return t ? previewOf({ name: t.name, header: t.header, rows: t.rows, totalRows: t.rowCount }) : null;
}

/** The first characters of a text result, without a byte-order mark. */
export function textPreviewOf(file: OutputFile): string | null {
  if (!isText(file.contentType)) return null;
  const head = file.bytes.subarray(0, TEXT_PREVIEW_CHARS * 4 + 3);
  // A text result in another encoding (convert-csv's windows-1252, utf-16le) says so in its charset.
  const charset = /;\s*charset=([\w-]+)/i.exec(file.contentType)?.[1]?.toLowerCase() ?? 'utf-8';
  const text = charset === 'windows-1252' ? decodeWindows1252(head) : new TextDecoder(charset === 'utf-16le' ? 'utf-16le' : 'utf-8', { ignoreBOM: false }).decode(head);
  return [...text].slice(0, TEXT_PREVIEW_CHARS).join('');
}

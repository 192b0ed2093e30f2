// A CSV as its records of field texts, exactly as written (no padding, no trimming, no types), and back: what
// a byte-faithful rewrite (convert-csv) reads and writes. Reading decodes as told or as §2.2 detects, finds
// the delimiter as csv-to-excel does (a `.tsv` is tab-separated), and says where a quote is never closed. Writing quotes minimally or every field, ends records with CRLF or LF
// (line breaks inside fields are kept as they are), and encodes UTF-8 (BOM optional), Windows-1252 (refusing
// a character it has no byte for, with its line) or UTF-16 LE with its BOM.
import { FormatError } from '../errors.ts';
import type { SourceFile } from '../model.ts';
import { encodeWindows1252 } from '../cp1252.ts';
import { decodeText, decodeWindows1252, detectDelimiter, parseCsv } from './read.ts';

export type RawEncoding = 'utf-8' | 'windows-1252' | 'iso-8859-1' | 'utf-16le' | 'utf-16be';

export interface RawCsv {
  records: string[][];
  delimiter: string;
  encoding: RawEncoding;
  /** The text ended with a line break (a rewrite ends the same way). */
  finalBreak: boolean;
  /** The 1-based line where a quoted field starts that is never closed (the file cannot be rewritten), or null. */
  unclosedLine: number | null;
}

export function readRawCsv(file: SourceFile, o: { delimiter?: string; encoding?: RawEncoding } = {}): RawCsv {
  try {
    return readRaw(file, o);
  } catch (err) {
    // The file concerned, as the workbook machinery names it for the other readers (book.ts).
    if (err instanceof FormatError) Object.assign(err, { file: file.name, source: file });
    throw err;
  }
}

function readRaw(file: SourceFile, o: { delimiter?: string; encoding?: RawEncoding }): RawCsv {
  const b = file.bytes;
  const decoded = o.encoding === undefined ? decodeText(b) : { text: decodeAs(b, o.encoding), encoding: o.encoding };
  if (!decoded.encoding.startsWith('utf-16') && Buffer.from(b.buffer, b.byteOffset, b.byteLength).indexOf(0) >= 0) throw new FormatError('binary', 'NUL bytes in text');
  const text = decoded.text;
  if (text.trim() === '') throw new FormatError('empty', 'no record with a value');
  const delimiter = o.delimiter ?? (/\.tsv$/i.test(file.name) ? '\t' : detectDelimiter(text));
  const parsed = parseCsv(text, delimiter);
  const last = text.charCodeAt(text.length - 1);
  return { records: parsed.rows, delimiter, encoding: decoded.encoding as RawEncoding, finalBreak: last === 10 || last === 13, unclosedLine: parsed.unclosedQuotes[0] ?? null };
}

function decodeAs(b: Uint8Array, encoding: RawEncoding): string {
  switch (encoding) {
    case 'windows-1252':
      return decodeWindows1252(b);
    case 'iso-8859-1':
      return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
    case 'utf-8':
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(b);
      } catch {
        throw new FormatError('unreadable', 'not UTF-8');
      }
    default:
      return new TextDecoder(encoding).decode(b);
  }
}

export interface RawWriteOptions {
  delimiter: string;
  quote: 'minimal' | 'all';
  lineEnding: '\r\n' | '\n';
  finalBreak: boolean;
}

/** The records as CSV text. A blank record (one empty field) stays a blank line. */
export function rawCsvText(records: readonly (readonly string[])[], o: RawWriteOptions): string {
  const special = new RegExp(`[${o.delimiter.replace(/[\\\]^-]/g, '\\$&')}"\\r\\n]`);
  const field = (f: string) => (o.quote === 'all' || special.test(f) ? `"${f.replaceAll('"', '""')}"` : f);
  const lines = records.map((r) => (r.length === 1 && r[0] === '' ? '' : r.map(field).join(o.delimiter)));
  return lines.join(o.lineEnding) + (o.finalBreak && lines.length > 0 ? o.lineEnding : '');
}

/** The first character of `text` that Windows-1252 cannot hold, and its line: null when every one fits. */
export function unencodable1252(text: string): { char: string; line: number } | null {
  const r = encodeWindows1252(text);
  return 'bytes' in r ? null : { char: r.bad, line: lineOf(text, r.at) };
}

/** The 1-based line of offset `at` (CR, LF and CRLF each end one). */
function lineOf(text: string, at: number): number {
  let line = 1;
  for (let i = 0; i < at; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) line++;
  }
  return line;
}

/**
 * Text as bytes of `encoding`, or, for Windows-1252, the first character it has no byte for and its line in
 * the text: the check is the encoding itself, one pass.
 */
export function encodeText(text: string, encoding: 'utf-8' | 'windows-1252' | 'utf-16le', bom: boolean): { bytes: Uint8Array } | { char: string; line: number } {
  if (encoding === 'utf-16le') return { bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]) };
  if (encoding === 'utf-8') return { bytes: bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]) : Buffer.from(text, 'utf8') };
  const r = encodeWindows1252(text);
  return 'bytes' in r ? r : { char: r.bad, line: lineOf(text, r.at) };
}

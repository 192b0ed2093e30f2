// A CSV as its records of field texts, exactly as written (no padding, no trimming, no types), and back: what
// a byte-faithful rewrite (convert-csv) reads and writes. Reading decodes as told or as §2.2 detects, finds
// the delimiter as csv-to-excel does (a `.tsv` is tab-separated), and says where a quote is never closed. Writing quotes minimally or every field, ends records with CRLF or LF
// (line breaks inside fields are kept as they are), and encodes UTF-8 (BOM optional), Windows-1252 (refusing
// a character it has no byte for, with its line) or UTF-16 LE with its BOM.
import { FormatError } from '../errors.ts';
import type { SourceFile } from '../model.ts';
import { encodeWindows1252 } from '../cp1252.ts';
import { joinBytes } from '../util/bytes.ts';
import { decodeText, decodeWindows1252, detectDelimiter } from './read.ts';

export type RawEncoding = 'utf-8' | 'windows-1252' | 'iso-8859-1' | 'utf-16le' | 'utf-16be';

export interface RawCsv {
  /** The decoded text. */
  text: string;
  delimiter: string;
  encoding: RawEncoding;
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
  return { text, delimiter, encoding: decoded.encoding as RawEncoding };
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
  /** A field's new text (decimal marks), or undefined to keep it. */
  field?: (text: string) => string | undefined;
}

export interface Rewritten {
  /** Records, blank ones included. */
  records: number;
  /** How many records (blank ones left out) have each number of fields. */
  widths: Map<number, number>;
  /** Fields `field` changed. */
  changed: number;
}

const QUOTE = 34;
const CR = 13;
const LF = 10;

/**
 * The CSV text rewritten record by record as the options ask, fields as written: cut by the grammar readCsv
 * reads (csv/read.ts parseCsv: a quoted field runs to its closing quote, `""` inside is one quote, what follows
 * the closing quote up to the delimiter is kept; CR, LF and CRLF end a record; a final line end adds none),
 * written with minimal quotes (a field holding the delimiter, a quote, CR or LF) or all quoted; a blank record
 * stays a blank line, and the text ends with a line end when it did. No array per record and no string per
 * field: a field that needs no change is copied as the slice of text it is (a quoted one with its quotes when
 * it still needs them). The text goes to `emit` about 64 K characters at a time, whole records, as it is made
 * (encoded there, it never exists whole: one string of the whole CSV, built piece by piece, cost more in
 * garbage collection than the rest of the rewrite); `emit` returns false to stop. Returns the 1-based line of
 * a quote that never closes instead, for the caller to refuse.
 */
export function rewriteCsv(text: string, inDelimiter: string, o: RawWriteOptions, emit: (text: string) => boolean): Rewritten | { unclosedLine: number } {
  const n = text.length;
  const d = inDelimiter;
  const od = o.delimiter;
  const all = o.quote === 'all';
  const special = new RegExp(`[${od.replace(/[\\\]^-]/g, '\\$&')}"\\r\\n]`);
  const quoted = (f: string) => `"${f.replaceAll('"', '""')}"`;
  const widths = new Map<number, number>();
  let records = 0;
  let changed = 0;
  let out = '';
  let line = '';
  // Next positions of the input delimiter, CR, LF, the output delimiter and the quote, searched again only once
  // the scan has passed them (indexOf is native).
  let nextD = -1;
  let nextCr = -1;
  let nextLf = -1;
  let nextOd = -1;
  let nextQ = -1;
  const at = (c: string, from: number) => {
    const i = text.indexOf(c, from);
    return i < 0 ? n : i;
  };
  let fields = 0;
  /** The record's first field is empty. */
  let empty = false;
  let i = 0;
  const endRecord = () => {
    // One empty field is a blank line.
    if (fields === 1 && empty) out += o.lineEnding;
    else {
      out += line + o.lineEnding;
      widths.set(fields, (widths.get(fields) ?? 0) + 1);
    }
    records++;
    line = '';
    fields = 0;
    if (out.length > 65_536) {
      going = emit(out);
      out = '';
    }
  };
  let going = true;
  while (i < n && going) {
    let piece: string;
    let end: number;
    if (text.charCodeAt(i) === QUOTE) {
      const start = i;
      let q = text.indexOf('"', i + 1);
      for (;;) {
        if (q < 0) return { unclosedLine: lineOf(text, start) };
        if (text.charCodeAt(q + 1) !== QUOTE) break;
        q = text.indexOf('"', q + 2);
      }
      if (nextD <= q) nextD = at(d, q + 1);
      if (nextCr <= q) nextCr = at('\r', q + 1);
      if (nextLf <= q) nextLf = at('\n', q + 1);
      end = Math.min(nextD, nextCr, nextLf);
      const inner = text.slice(start + 1, q);
      if (fields === 0) empty = end === q + 1 && q === start + 1;
      if (end === q + 1 && o.field === undefined) {
        // As written: the quotes stay when the field still needs them (its inner quotes are doubled already).
        piece = all || special.test(inner) ? text.slice(start, end) : inner;
      } else {
        let value = inner.replaceAll('""', '"') + text.slice(q + 1, end);
        const next = o.field?.(value);
        if (next !== undefined && next !== value) [value, changed] = [next, changed + 1];
        piece = all || special.test(value) ? quoted(value) : value;
      }
    } else {
      if (nextD < i) nextD = at(d, i);
      if (nextCr < i) nextCr = at('\r', i);
      if (nextLf < i) nextLf = at('\n', i);
      end = Math.min(nextD, nextCr, nextLf);
      if (fields === 0) empty = end === i;
      let value = text.slice(i, end);
      if (o.field !== undefined) {
        const next = o.field(value);
        if (next !== undefined && next !== value) [value, changed] = [next, changed + 1];
        piece = all || special.test(value) ? quoted(value) : value;
      } else {
        if (nextOd < i) nextOd = at(od, i);
        if (nextQ < i) nextQ = at('"', i);
        piece = all || nextOd < end || nextQ < end ? quoted(value) : value;
      }
    }
    line += fields > 0 ? od + piece : piece;
    fields++;
    i = end;
    if (i >= n) break;
    if (i === nextD) {
      i++;
      if (i >= n) {
        line += od + (all ? '""' : '');
        fields++;
      }
      continue;
    }
    i += i === nextCr && text.charCodeAt(i + 1) === LF ? 2 : 1;
    endRecord();
  }
  if (fields > 0 && going) {
    // No line end where the text had none.
    if (!(fields === 1 && empty)) {
      out += line;
      widths.set(fields, (widths.get(fields) ?? 0) + 1);
    }
    records++;
  }
  if (going && out !== '') emit(out);
  return { records, widths, changed };
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
 * Text encoded as it comes, a piece at a time, in `encoding` (UTF-8 with a BOM when asked, UTF-16 LE with its
 * BOM, or Windows-1252, which stops at the first character it has no byte for).
 */
export class EncodedText {
  private readonly chunks: Uint8Array[] = [];
  /** The first character Windows-1252 has no byte for, once met: nothing more is taken. */
  bad: string | null = null;

  constructor(
    private readonly encoding: 'utf-8' | 'windows-1252' | 'utf-16le',
    bom: boolean,
  ) {
    if (encoding === 'utf-16le') this.chunks.push(new Uint8Array([0xff, 0xfe]));
    else if (encoding === 'utf-8' && bom) this.chunks.push(new Uint8Array([0xef, 0xbb, 0xbf]));
  }

  /** Adds a piece; false once a character could not be encoded. */
  push(text: string): boolean {
    if (this.bad !== null) return false;
    if (this.encoding !== 'windows-1252') this.chunks.push(Buffer.from(text, this.encoding === 'utf-8' ? 'utf8' : 'utf16le'));
    else {
      const r = encodeWindows1252(text);
      if ('bad' in r) {
        this.bad = r.bad;
        return false;
      }
      this.chunks.push(r.bytes);
    }
    return true;
  }

  bytes(): Uint8Array {
    return joinBytes(this.chunks);
  }
}

// A CSV read whole without a table (csv/book.ts RecordTable): cut into records over its UTF-8 bytes (transcoded
// once when it is UTF-16 or Windows-1252), each record's span, field count and flags kept, its fields decoded
// only when asked for. CSV to CSV copies a record whose bytes are already what writeCsv would write for its
// fields (csv/write.ts), JSON is written from the bytes (json/write.ts), rows are typed a batch at a time: none
// of them needs a string per field. Every rule of readCsv holds: the same delimiter, the same records and
// fields, blank records trimmed at both ends, maxCells counted before padding, the same messages in the same
// order (test/formats/csv-records.test.ts compares both on generated files).
//
// Measured on 100,000 rows × 10 columns (12 MB), split-rows in 10 parts: ~400 → ~130 ms, of which ~60 ms is
// now the ZIP's deflate; peak memory over the runtime 127 → 40 MB (the input, the parts and the ZIP).
import { isAscii, isUtf8 } from 'node:buffer';
import { FormatError } from '../errors.ts';
import type { Cell, Row, SourceFile } from '../model.ts';
import { baseNameOf, checkCells, decodeAs, decodeText, detectDelimiter, guessUtf16, isEightBit, parseCsv, type TextEncodingName } from './read.ts';
import { encodingLabel } from './charset.ts';
import { CR, END, FieldScan, fieldText, LF, QUOTE, scanField, stopsOf } from './tokens.ts';
import { detectType, type DetectOptions } from './detect-type.ts';
import { RECORD_INTS, WINDOW, windowScanner, type WindowScan, type WindowScanner } from './records-wasm.ts';
import { silent, type Report } from '../report.ts';

/** Record flags: its bytes are written unchanged (`PLAIN`); every field is empty (`BLANK`). */
export const PLAIN = 1;
const BLANK = 2;

export interface CsvRecordsReadOptions {
  hasHeader: boolean;
  /** The encoding, when already decided (and the file refused if binary). */
  encoding?: TextEncodingName;
  /** One character; detected when left out. */
  delimiter?: string;
  report?: Report;
  maxCells?: number;
}

/** A CSV as records over its UTF-8 bytes; record `k` runs from `starts[k]` to `ends[k]` (line end excluded). */
export class CsvRecords {
  private typingSet: DetectOptions | null = null;
  /** How fields are typed: the decimal mark, and each column's slash-date order (set by the reader, csv/book.ts). */
  get typing(): DetectOptions {
    return (this.typingSet ??= { decimalComma: this.delimiter !== ',' });
  }
  set typing(t: DetectOptions) {
    this.typingSet = t;
  }
  constructor(
    /** The file's base name, as readCsv names its table. */
    readonly name: string,
    readonly delimiter: string,
    readonly encoding: TextEncodingName,
    readonly bytes: Buffer,
    readonly starts: Int32Array,
    readonly ends: Int32Array,
    readonly counts: Int32Array,
    readonly flags: Uint8Array,
    /** Quote positions read as plain characters (a quote that never closed). */
    readonly literal: Set<number>,
    /** Records of the table (blank ones at both ends left out), the title record first when there is one. */
    readonly size: number,
    readonly width: number,
    /** The titles padded to the width, or null. */
    readonly header: string[] | null,
    /**
     * Where each field starts, as an offset from its record's start, fields of record `k` from `firsts[k]` on;
     * null when a record is longer than an offset holds. A field's bounds are then known without scanning its
     * record again (split-by-column's grouping, a dropped column's bounds, merge-columns' layout).
     */
    readonly fieldAt: Uint16Array | null = null,
    readonly firsts: Int32Array | null = null,
  ) {}

  /** The bounds of field `col` of record `k` (quotes included), from the field offsets, into `span`. */
  private boundsInto(span: Int32Array, k: number, col: number): void {
    const f = this.firsts![k] + col;
    const start = this.starts[k];
    span[0] = start + this.fieldAt![f];
    span[1] = col + 1 < this.counts[k] ? start + this.fieldAt![f + 1] - 1 : this.ends[k];
  }

  /** Index of the first data record. */
  get first(): number {
    return this.header ? 1 : 0;
  }

  /** Data records. */
  get rowCount(): number {
    return this.size - this.first;
  }

  /** The field texts of record `k`, padded to the width as readCsv pads its rows. */
  fields(k: number): string[] {
    const start = this.starts[k];
    const end = this.ends[k];
    let out: string[];
    if (this.literal.size > 0 && [...this.literal].some((p) => p >= start && p < end)) {
      out = splitRecord(this.bytes, start, end, this.delimiter.charCodeAt(0), this.literal, -1) as string[];
    } else {
      // One decode per record, then native splitting: a decode per field costs more than the split.
      const line = this.bytes.toString('utf8', start, end);
      // With quotes, the decoded line is cut by the same grammar over text (read.ts): every quote closes in it.
      out = line.indexOf('"') < 0 ? line.split(this.delimiter) : parseCsv(line, this.delimiter, 1).rows[0];
    }
    while (out.length < this.width) out.push('');
    return out;
  }

  /** Record `k` typed as readCsv types it (`detectTypes`), padded to the width. */
  typedRow(k: number): Row {
    const typing = this.typing;
    const cells: Cell[] = this.fields(k);
    for (let i = 0; i < cells.length; i++) {
      const s = cells[i] as string;
      cells[i] = s === '' ? null : detectType(s, typing, i);
    }
    return cells;
  }

  /** The text of field `col` of record `k` ('' past the record's last field). */
  field(k: number, col: number): string {
    if (col >= this.counts[k]) return '';
    return splitRecord(this.bytes, this.starts[k], this.ends[k], this.delimiter.charCodeAt(0), this.literal, col) as string;
  }

  /** The bytes of field `col` of record `k` as it is in the file (quotes included), as [start, end). */
  span(k: number, col: number): [number, number] {
    if (this.fieldAt !== null && col < this.counts[k]) {
      const span = new Int32Array(2);
      this.boundsInto(span, k, col);
      return [span[0], span[1]];
    }
    return fieldSpan(this.bytes, this.starts[k], this.ends[k], this.delimiter.charCodeAt(0), this.literal, col);
  }

  /** Unquoted field texts seen by column(), by a hash of their bytes: [start, end, text] of the first seen. */
  private readonly seen = new Map<number, [number, number, string]>();

  /**
   * The text of field `col` of each record of `ks`, null when empty (or past a record's last field). An unquoted field is
   * matched by its bytes (a hash, then the bytes compared) and decoded once per distinct text: grouping a
   * column this way measured 1.5× faster than decoding every record's field.
   */
  column(ks: ArrayLike<number>, col: number): (string | null)[] {
    const { bytes: b, literal, seen, fieldAt } = this;
    const d = this.delimiter.charCodeAt(0);
    const out = new Array<string | null>(ks.length);
    const span = this.scratch;
    const utf8 = (from: number, to: number) => b.toString('utf8', from, to);
    for (let j = 0; j < ks.length; j++) {
      const k = ks[j];
      if (col >= this.counts[k]) {
        out[j] = null;
        continue;
      }
      if (fieldAt === null) fieldSpanInto(span, b, this.starts[k], this.ends[k], d, literal, col);
      else {
        this.boundsInto(span, k, col);
        // Only a field that opens with a quote needs the grammar (its quotes undone): scanned alone.
        if (b[span[0]] === QUOTE) scanField(SCAN, b, span[0], span[1], d, literal);
        else SCAN.quoted = false;
      }
      const s = span[0];
      const e = span[1];
      if (s === e) {
        out[j] = null;
        continue;
      }
      if (SCAN.quoted) {
        // fieldSpanInto left the field's scan in SCAN.
        const text = fieldText(SCAN, b, utf8);
        out[j] = text === '' ? null : text;
        continue;
      }
      let h = 0x811c9dc5;
      for (let i = s; i < e; i++) h = Math.imul(h ^ b[i], 0x01000193);
      const known = seen.get(h);
      if (known && known[1] - known[0] === e - s) {
        let same = true;
        for (let i = s, r = known[0]; i < e; i++, r++) {
          if (b[i] !== b[r]) {
            same = false;
            break;
          }
        }
        if (same) {
          out[j] = known[2];
          continue;
        }
      }
      const text = b.toString('utf8', s, e);
      if (!known && seen.size < 65_536) seen.set(h, [s, e, text]);
      out[j] = text;
    }
    return out;
  }

  /**
   * The spans of record `k`'s fields as they are in the file (quotes included), [start, end) pairs written into
   * `into` (room for 2 × width), up to field `upTo`; returns how many fields were scanned. One scan of the
   * record, where span() per field would scan it again from its start for each.
   */
  spansInto(k: number, into: Int32Array, upTo: number): number {
    const { fieldAt, firsts, starts, counts } = this;
    if (fieldAt !== null) {
      const n = Math.min(counts[k], upTo + 1);
      const start = starts[k];
      const f = firsts![k];
      for (let c = 0; c < n; c++) {
        into[2 * c] = start + fieldAt[f + c];
        into[2 * c + 1] = c + 1 < counts[k] ? start + fieldAt[f + c + 1] - 1 : this.ends[k];
      }
      return n;
    }
    const { bytes: b, literal } = this;
    const d = this.delimiter.charCodeAt(0);
    const end = this.ends[k];
    let i = this.starts[k];
    for (let n = 0; ; ) {
      into[2 * n] = i;
      i = scanField(SCAN, b, i, end, d, literal);
      into[2 * n + 1] = i;
      n++;
      if (i >= end || n > upTo) return n;
      i++;
    }
  }

  /** Where fieldSpanInto writes. */
  private readonly scratch = new Int32Array(2);

  /** Record `k` as readCsv's row: empty fields null, padded to the width. */
  row(k: number): Row {
    return this.fields(k).map((s): Cell => (s === '' ? null : s));
  }
}

/**
 * The file's text as UTF-8 bytes: the file itself when it is UTF-8 (after its BOM), else transcoded once. An
 * encoding already decided (encodingOf) is taken as it is.
 */
function utf8Of(bytes: Uint8Array, known?: TextEncodingName): { utf8: Buffer; encoding: TextEncodingName } {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bom = buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
  const body = buf.subarray(bom);
  if (known === 'utf-8') return { utf8: body, encoding: known };
  // decodeText decides the encoding; only text that is not valid UTF-8 as it is pays for a decode.
  const wide = (buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff) || (buf[0] === 0 && buf[1] === 0 && buf[2] === 0xfe && buf[3] === 0xff);
  if (!wide && (isAscii(body) || isUtf8(body))) {
    if (bom || guessUtf16(buf) === null) return { utf8: body, encoding: 'utf-8' };
  }
  // The decoded text is well formed (TextDecoder turns a lone surrogate into U+FFFD), so UTF-8 holds it all.
  if (known !== undefined && isEightBit(known)) return { utf8: Buffer.from(decodeAs(bytes, known), 'utf8'), encoding: known };
  const { text, encoding } = decodeText(bytes);
  return { utf8: Buffer.from(text, 'utf8'), encoding };
}

/** The first characters of the text, as detectDelimiter samples them (a character takes at most 3 bytes per
 * UTF-16 unit; 4 more bytes keep a character cut at the end past the sample). */
function sampleText(utf8: Buffer): string {
  return utf8.toString('utf8', 0, Math.min(utf8.length, 65_536 * 3 + 4)).slice(0, 65_536);
}

/** Reads a CSV file into records; messages and errors as readCsv gives them. */
export function readCsvRecords(file: SourceFile, o: CsvRecordsReadOptions): CsvRecords {
  const report = o.report ?? silent;
  const { utf8, encoding } = utf8Of(file.bytes, o.encoding);
  // A caller that knows the encoding has refused a binary file already.
  if (o.encoding === undefined && !encoding.startsWith('utf-16') && !encoding.startsWith('utf-32') && Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength).indexOf(0) >= 0) {
    throw new FormatError('binary', 'NUL bytes in text');
  }
  if (isEightBit(encoding)) report('info', 'csv_encoding', { name: file.name, encoding: encodingLabel(encoding) });
  const delimiter = o.delimiter ?? detectDelimiter(sampleText(utf8));
  const scan = scanRecords(utf8, delimiter.charCodeAt(0));
  if (scan.literal.size > 0) {
    const first = Math.min(...scan.literal);
    report('warning', 'csv_unclosed_quote', { name: file.name, line: lineAt(utf8, first), count: scan.literal.size });
  }
  const { flags, counts } = scan;
  let end = scan.size;
  while (end > 0 && flags[end - 1] & BLANK) end--;
  let start = 0;
  while (start < end && flags[start] & BLANK) start++;
  if (start === end) throw new FormatError('empty', 'no record with a value');
  let width = 0;
  for (let k = start; k < end; k++) if (counts[k] > width) width = counts[k];
  checkCells(scan.used, end - start, width, o.maxCells ?? Infinity, file.name);
  const expected = counts[start];
  let ragged = 0;
  let firstRagged = -1;
  for (let k = start + 1; k < end; k++) {
    if (counts[k] !== expected && !(flags[k] & BLANK)) {
      ragged++;
      if (firstRagged < 0) firstRagged = k;
    }
  }
  if (ragged > 0) report('warning', 'ragged_rows', { name: file.name, count: ragged, row: firstRagged + 1, found: counts[firstRagged], expected, width });
  const records = new CsvRecords(
    baseNameOf(file.name),
    delimiter,
    encoding,
    utf8,
    scan.starts.subarray(start, end),
    scan.ends.subarray(start, end),
    counts.subarray(start, end),
    flags.subarray(start, end),
    scan.literal,
    end - start,
    width,
    null,
    scan.fieldAt,
    scan.firsts && scan.firsts.subarray(start, end),
  );
  if (!o.hasHeader) return records;
  const { starts, ends, flags: f, size } = records;
  return new CsvRecords(records.name, delimiter, encoding, utf8, starts, ends, records.counts, f, scan.literal, size, width, records.fields(0), records.fieldAt, records.firsts);
}

function lineAt(b: Buffer, pos: number): number {
  let line = 1;
  for (let i = 0; i < pos; i++) {
    const c = b[i];
    if (c === LF || (c === CR && b[i + 1] !== LF)) line++;
  }
  return line;
}

export interface Scan {
  starts: Int32Array;
  ends: Int32Array;
  counts: Int32Array;
  flags: Uint8Array;
  size: number;
  /** Non-empty fields. */
  used: number;
  literal: Set<number>;
  fieldAt: Uint16Array | null;
  firsts: Int32Array | null;
}

/**
 * Cuts the bytes into records as parseCsv cuts the text: a field that starts with a quote runs to the closing
 * quote (`""` inside is one quote) and then to the next delimiter or line end; CR, LF and CRLF each end a
 * record; a final line end adds none. A quote that never closes is a plain character. A record is PLAIN when
 * writeCsv would write its fields back as the same bytes: unquoted fields without a quote, quoted fields that
 * need their quotes (a delimiter, quote, CR or LF inside) and have nothing after the closing quote.
 */
export function scanRecords(b: Buffer, d: number, wasm: WindowScanner | null = windowScanner(d)): Scan {
  const n = b.length;
  const guess = sizesOf(b, d);
  let cap = Math.max(16, Math.min(guess.records, 1 << 20));
  let starts = new Int32Array(cap);
  let ends = new Int32Array(cap);
  let counts = new Int32Array(cap);
  let flags = new Uint8Array(cap);
  let firsts: Int32Array | null = new Int32Array(cap);
  let fieldAt: Uint16Array | null = new Uint16Array(Math.max(64, Math.min(guess.fields, 1 << 24)));
  let nf = 0;
  let size = 0;
  let used = 0;
  const literal = new Set<number>();
  const f = new FieldScan();
  const stops = stopsOf(d);
  let i = 0;
  while (i < n) {
    // The module takes the whole records of the window from here; what it leaves (none taken) is read below.
    let w: WindowScan | null = null;
    if (wasm !== null) {
      const to = Math.min(n, i + WINDOW);
      w = wasm(b, i, to, to === n, d);
      if (w.count === 0) w = null;
    }
    const need = w === null ? 1 : w.count;
    if (size + need > cap) {
      while (size + need > cap) cap *= 2;
      starts = grow(starts, cap);
      ends = grow(ends, cap);
      counts = grow(counts, cap);
      if (firsts !== null) firsts = grow(firsts, cap);
      const fl = new Uint8Array(cap);
      fl.set(flags);
      flags = fl;
    }
    if (w !== null) {
      const r = w.records;
      for (let j = 0, o = 0; j < w.count; j++, o += RECORD_INTS) {
        starts[size] = i + r[o];
        ends[size] = i + r[o + 1];
        counts[size] = r[o + 2];
        flags[size] = r[o + 3];
        if (firsts !== null) firsts[size] = nf + r[o + 4];
        size++;
      }
      if (fieldAt !== null) {
        while (nf + w.fields > fieldAt.length) fieldAt = growOffsets(fieldAt);
        fieldAt.set(w.offsets.subarray(0, w.fields), nf);
        nf += w.fields;
      }
      used += w.used;
      i += w.taken;
      continue;
    }
    const recStart = i;
    let fields = 0;
    let nonEmpty = 0;
    let plain = PLAIN;
    let recEnd: number;
    const firstField = nf;
    for (;;) {
      fields++;
      const s = i;
      if (fieldAt !== null) {
        // An offset past what 16 bits hold (a record over 64 KB): no offsets for this file.
        if (s - recStart > 0xffff) fieldAt = firsts = null;
        else {
          if (nf === fieldAt.length) fieldAt = growOffsets(fieldAt);
          fieldAt[nf++] = s - recStart;
        }
      }
      if (b[i] !== QUOTE || (literal.size > 0 && literal.has(i))) {
        // An unquoted field (most are), scanned here as scanField scans it, without a call and a FieldScan
        // per field.
        for (; i < n; i++) {
          const t = stops[b[i]];
          if (t === 0) continue;
          if (t === END) break;
          plain = 0;
        }
        if (i > s) nonEmpty++;
      } else {
        i = scanField(f, b, i, n, d, literal);
        if (f.quoted) {
          const tail = i > f.close + 1;
          if (tail || !f.special) plain = 0;
          if (tail || f.close > s + 1) nonEmpty++;
        } else {
          if (f.quote) plain = 0;
          if (i > s) nonEmpty++;
        }
      }
      if (i >= n) {
        recEnd = n;
        break;
      }
      if (b[i] === d) {
        i++;
        if (i >= n) {
          fields++;
          if (fieldAt !== null) {
            if (i - recStart > 0xffff) fieldAt = firsts = null;
            else {
              if (nf === fieldAt.length) fieldAt = growOffsets(fieldAt);
              fieldAt[nf++] = i - recStart;
            }
          }
          recEnd = n;
          break;
        }
        continue;
      }
      recEnd = i;
      i += b[i] === CR && b[i + 1] === LF ? 2 : 1;
      break;
    }
    if (firsts !== null) firsts[size] = firstField;
    starts[size] = recStart;
    ends[size] = recEnd;
    counts[size] = fields;
    flags[size] = plain | (nonEmpty === 0 ? BLANK : 0);
    used += nonEmpty;
    size++;
  }
  return { starts, ends, counts, flags, size, used, literal, fieldAt: fieldAt && fieldAt.subarray(0, nf), firsts };
}

/**
 * The records and fields the file's first 64 KB hold, scaled to its size with a quarter more: the first sizes
 * of scanRecords' arrays, which grow by doubling when a file holds more. Sized from the bytes instead (one
 * record per 32), they took about 5 MB more than they used on 12 MB of 120-byte records.
 */
function sizesOf(b: Buffer, d: number): { records: number; fields: number } {
  const sample = Math.min(b.length, 1 << 16);
  let lines = 1;
  let delimiters = 0;
  for (let i = 0; i < sample; i++) {
    const c = b[i];
    if (c === LF || (c === CR && b[i + 1] !== LF)) lines++;
    else if (c === d) delimiters++;
  }
  const scale = (1.25 * b.length) / Math.max(sample, 1);
  return { records: Math.ceil(lines * scale), fields: Math.ceil((lines + delimiters) * scale) };
}

function growOffsets(a: Uint16Array): Uint16Array {
  const b = new Uint16Array(a.length * 2);
  b.set(a);
  return b;
}

function grow(a: Int32Array, cap: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(cap);
  b.set(a);
  return b;
}

/** Where field `col` of a record starts and ends (its quotes and anything after them included). */
function fieldSpan(b: Buffer, start: number, end: number, d: number, literal: Set<number>, col: number): [number, number] {
  const span = new Int32Array(2);
  fieldSpanInto(span, b, start, end, d, literal, col);
  return [span[0], span[1]];
}

/** fieldSpan, written into `span` (no array per field where a column is read record by record). */
function fieldSpanInto(span: Int32Array, b: Buffer, start: number, end: number, d: number, literal: Set<number>, col: number): void {
  const f = SCAN;
  let i = start;
  for (let c = 0; ; c++) {
    const s = i;
    i = scanField(f, b, i, end, d, literal);
    if (c === col || i >= end) {
      span[0] = s;
      span[1] = i;
      return;
    }
    i++;
  }
}

/** The scan of fields inside a record already cut (never more than one in use at a time). */
const SCAN = new FieldScan();

/**
 * The field texts of one record (or only field `only`), decoded from its bytes. The record was cut by
 * scanRecords, so every quote that opens a field inside it closes inside it.
 */
function splitRecord(b: Buffer, start: number, end: number, d: number, literal: Set<number>, only: number): string[] | string {
  const out: string[] = [];
  const f = SCAN;
  const utf8 = (s: number, e: number) => b.toString('utf8', s, e);
  let i = start;
  for (let c = 0; ; c++) {
    i = scanField(f, b, i, end, d, literal);
    if (c === only) return fieldText(f, b, utf8);
    if (only < 0) out.push(fieldText(f, b, utf8));
    if (i >= end) return out;
    i++;
  }
}

// CSV out: RFC 4180 quoting, CRLF, UTF-8 (with a BOM unless asked not to), numbers with a point and no
// exponent, ISO dates, booleans true/false, text exactly as it is.
import { FirstRows, rowsOf } from '../batch.ts';
import { BoundedMap } from '../util/bounded-map.ts';
import { joinBytes } from '../util/bytes.ts';
import { CellError, columnLetter, FullCell, isoDate, type AnyCell, type Removed, type RowBatch, type TableData, type TableHead, type Written } from '../model.ts';
import { isoTime, isTimeOnly } from '../dates.ts';
import { titleRow } from '../table/titles.ts';
import { nulFilter, type CharFilter } from '../removed.ts';
import type { ResultBudget } from '../budget.ts';
import type { TableWriter } from '../xlsx/write.ts';
import { LaidOutRecords, RecordBatch } from './book.ts';
import { PLAIN } from './records.ts';

/** Plain decimal text of a number: a point, no exponent, `-0` as `0`. */
export function plainNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (n === 0) return '0';
  const s = String(n);
  const e = s.indexOf('e');
  if (e < 0) return s;
  const neg = s.startsWith('-');
  const mantissa = s.slice(neg ? 1 : 0, e);
  const exp = Number(s.slice(e + 1));
  const [int, frac = ''] = mantissa.split('.');
  const digits = int + frac;
  const point = int.length + exp;
  let out: string;
  if (point <= 0) out = '0.' + '0'.repeat(-point) + digits;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = digits.slice(0, point) + '.' + digits.slice(point);
  return (neg ? '-' : '') + out;
}

/** Text of a cell in a CSV: dates ISO (a time of day alone as `hh:mm:ss`), booleans `true`/`false`. */
export function csvText(c: AnyCell): string {
  if (c === null) return '';
  if (typeof c === 'string') return c;
  if (typeof c === 'number') return plainNumber(c);
  if (typeof c === 'boolean') return c ? 'true' : 'false';
  if (c instanceof Date) return isTimeOnly(c) ? isoTime(c) : isoDate(c);
  return c instanceof CellError ? c.text : csvText(c.value);
}

export interface CsvWriteOptions {
  delimiter?: string;
  bom?: boolean;
  includeHeader?: boolean;
}

/** What makes a CSV field need quotes: the delimiter, a quote, CR or LF. */
export function quotingRule(delimiter: string): RegExp {
  return new RegExp(`[${delimiter.replace(/[\\\]^-]/g, '\\$&')}"\r\n]`);
}

/** A field as written: quoted, its quotes doubled, when `special` finds a character that needs it. */
export function csvField(s: string, special: RegExp): string {
  return special.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** One row of texts as writeCsv writes it, line end included. */
export function csvLine(fields: readonly string[], delimiter: string, special: RegExp): string {
  let out = '';
  for (let i = 0; i < fields.length; i++) out += (i > 0 ? delimiter : '') + csvField(fields[i], special);
  // A lone empty field would be a blank line, which readers skip: quote it so the row survives.
  if (fields.length === 1 && out === '') out += '""';
  return out + '\r\n';
}

/** A table as CSV bytes (UTF-8, CRLF), every row as wide as the table. */
export function writeCsv(table: TableData<AnyCell>, o: CsvWriteOptions = {}): Uint8Array {
  const withHeader = o.includeHeader !== false && table.header !== null && table.header.length > 0;
  let width = withHeader ? table.header!.length : 0;
  for (const r of table.rows) if (r.length > width) width = r.length;
  const csv = new CsvWriter(width, { delimiter: o.delimiter ?? table.delimiter, bom: o.bom });
  if (withHeader) csv.row(table.header!);
  csv.rows(table.rows);
  return csv.finish();
}

/**
 * Rows kept as spans of their source's UTF-8 bytes (sql/values.ts): where a cell's text in a CSV is exactly a
 * span of `bytes` (the reader knows: a plain string, a number written as its CSV text), the writer copies the
 * span, quoted as csvField quotes, and no cell is made.
 */
export interface TextSpanRows {
  readonly length: number;
  readonly bytes: Uint8Array;
  /**
   * Row `r`'s cells: for each column, the span [starts[c], ends[c]) of `bytes` that is its CSV text (whole
   * characters), or starts[c] = -1 and the cell in cells[c]. Returns the bytes of the spans together.
   */
  spansOf(r: number, starts: Int32Array, ends: Int32Array, cells: AnyCell[]): number;
}

const isTextSpanRows = (b: object): b is TextSpanRows => typeof (b as Partial<TextSpanRows>).spansOf === 'function';

/**
 * CSV written a row at a time, every row `width` fields (shorter rows padded with empty ones), for writers
 * that get their rows in batches (csvWriter) and for writeCsv. The text grows by concatenation and is
 * encoded every 64 K characters: measured on 100,000 rows, 1.5× faster than joining an array per row, and the
 * whole text never exists as one string.
 */
export class CsvWriter {
  private readonly delimiter: string;
  private readonly special: RegExp;
  /** What needs a second look: what needs quotes, and U+0000, which no result keeps (removed.ts). */
  private readonly unusual: RegExp;
  /** Encoded text, and batches of records to copy at the end, in order. */
  private readonly chunks: (Buffer | RecordBatch)[] = [];
  private readonly dates = new BoundedMap<number, string>(4096);
  private out: string;
  /** Rows written so far, the title row included: the row number of a cell that loses a NUL. */
  private written = 0;
  private readonly nul: CharFilter;

  private readonly budget: ResultBudget | null;

  constructor(
    private readonly width: number,
    o: { delimiter?: string; bom?: boolean; table?: string; budget?: ResultBudget | null } = {},
  ) {
    this.budget = o.budget ?? null;
    this.delimiter = o.delimiter ?? ',';
    this.special = quotingRule(this.delimiter);
    this.unusual = new RegExp(`${this.special.source}|\u0000`);
    this.out = o.bom !== false ? '\uFEFF' : '';
    this.nul = nulFilter(o.table);
  }

  /** The NULs removed (a CSV read from bytes never holds one: the reader refuses them as binary). */
  removed(): Removed | null {
    return this.nul.removed();
  }

  row(row: readonly AnyCell[]): void {
    this.rows([row]);
  }

  rows(rows: readonly (readonly AnyCell[])[]): void {
    const { width, delimiter, special, unusual } = this;
    let out = this.out;
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      let start = out.length;
      for (let i = 0; i < width; i++) {
        const c = row[i] ?? null;
        let s = typeof c === 'string' ? c : c instanceof Date ? this.dateText(c) : csvText(c);
        if (i > 0) out += delimiter;
        if (!unusual.test(s)) out += s;
        else {
          s = this.nul.clean(s, () => `${columnLetter(i)}${this.written + r + 1}`);
          out += csvField(s, special);
        }
        // A row of huge cells is encoded (and counted) as it grows, not first made into one huge string.
        if (out.length > HUGE_TEXT) {
          this.encode(out);
          out = '';
          start = -1;
        }
      }
      // A lone empty field would be a blank line, which readers skip: quote it so the row survives.
      if (width === 1 && out.length === start) out += '""';
      out += '\r\n';
      if (out.length > 65_536) {
        this.encode(out);
        out = '';
      }
    }
    this.out = out;
    this.written += rows.length;
  }

  /** Text encoded into the result, counted against the run's budget. */
  private encode(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    this.budget?.add(bytes.length);
    this.chunks.push(bytes);
  }

  /**
   * A date's text, remembered by its time: a column of dates mostly repeats a few thousand days, and the text
   * took 6% of excel-to-csv's time on 100,000 rows. Bounded, so distinct timestamps cost only the lookup.
   */
  private dateText(d: Date): string {
    const t = d.getTime();
    return this.dates.get(t) ?? this.dates.set(t, csvText(d));
  }

  /**
   * Records of a CSV read with the same delimiter, copied as they are where writeCsv would write their fields
   * back as the same bytes (csv/records.ts PLAIN), else written from their fields: the same bytes as rows()
   * of the same fields, without a string per field (split-rows and split-by-column, CSV to CSV). They are
   * only noted here; finish() sizes the whole CSV and copies them once into it, as no other copy is made.
   */
  records(batch: RecordBatch): void {
    this.written += batch.length;
    if (this.out.length > 0) {
      this.encode(this.out);
      this.out = '';
    }
    this.chunks.push(batch);
  }

  /**
   * Records of a CSV read with the same delimiter, their columns laid out anew (LaidOutRecords): each run of
   * consecutive source columns copied as the bytes it is in the file, the added cells written as rows() writes
   * a cell, straight into bytes. A batch with a record whose bytes are not what writeCsv would write
   * (csv/records.ts PLAIN) goes through rows(). The same bytes as rows() of the batch's rows, without a string
   * per field.
   */
  laidOut(batch: LaidOutRecords): void {
    const { src, ks, layout } = batch;
    const { bytes, starts, ends, counts, flags } = src;
    for (let j = 0; j < ks.length; j++) if (!(flags[ks[j]] & PLAIN)) return this.rows(batch.rows());
    if (this.out.length > 0) {
      this.encode(this.out);
      this.out = '';
    }
    const { delimiter, special, unusual } = this;
    const d = delimiter.charCodeAt(0);
    const width = src.width;
    const texts = batch.added.map((cells) => cells.map((c) => (typeof c === 'string' ? c : c instanceof Date ? this.dateText(c) : csvText(c))));
    // The layout as pieces [from, to]: a run of consecutive source columns, or an added column (both -1 - j).
    const pieces: number[] = [];
    for (let i = 0; i < layout.length; i++) {
      const c = layout[i];
      if (c >= 0 && i > 0 && layout[i - 1] >= 0 && layout[i - 1] === c - 1) pieces[pieces.length - 1] = c;
      else pieces.push(c, c);
    }
    // The last field whose bounds a piece needs: a run that reaches the last column ends with the record.
    let upTo = 0;
    for (let x = 0; x < pieces.length; x += 2) if (pieces[x] >= 0) upTo = Math.max(upTo, pieces[x], pieces[x + 1] < width - 1 ? pieces[x + 1] : 0);
    // At most: the record, a delimiter per column, CRLF and `""`; 3 bytes a UTF-16 unit of an added text, plus
    // its quotes doubled and its own two.
    let bound = 0;
    for (let j = 0; j < ks.length; j++) bound += ends[ks[j]] - starts[ks[j]] + layout.length + 4;
    for (const t of texts) for (let j = 0; j < t.length; j++) bound += 4 * t[j].length + 2;
    if (this.scratch.length < bound) this.scratch = Buffer.allocUnsafe(Math.max(bound, 2 * this.scratch.length));
    const buf = this.scratch;
    const whole = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const spans = this.spans.length >= 2 * width ? this.spans : (this.spans = new Int32Array(2 * width));
    let p = 0;
    let column = 0;
    for (let j = 0; j < ks.length; j++) {
      const k = ks[j];
      const n = counts[k];
      src.spansInto(k, spans, Math.min(upTo, n - 1));
      const lineStart = p;
      column = 0;
      for (let x = 0; x < pieces.length; x += 2) {
        if (x > 0) buf[p++] = d;
        const a = pieces[x];
        if (a < 0) {
          let t = texts[-1 - a][j];
          if (t !== '') {
            if (unusual.test(t)) {
              const ref = `${columnLetter(column)}${this.written + j + 1}`;
              t = csvField(this.nul.clean(t, () => ref), special);
            }
            p += buf.write(t, p);
          }
          column++;
          continue;
        }
        const b = pieces[x + 1];
        column += b - a + 1;
        // Fields past the record's last are empty: only their delimiters.
        let missing = b - a;
        if (a < n) {
          const s = spans[2 * a];
          const e = b < n - 1 ? spans[2 * b + 1] : ends[k];
          missing = b < n - 1 ? 0 : b - (n - 1);
          if (e - s > 64) p += whole.copy(buf, p, s, e);
          else for (let i = s; i < e; i++) buf[p++] = bytes[i];
        }
        for (; missing > 0; missing--) buf[p++] = d;
      }
      // A lone empty field would be a blank line, which readers skip: quote it so the row survives.
      if (layout.length === 1 && p === lineStart) {
        buf[p++] = 34;
        buf[p++] = 34;
      }
      buf[p++] = CR;
      buf[p++] = LF;
    }
    this.written += ks.length;
    // Exactly sized, its own memory: the scratch is the next batch's.
    const chunk = Buffer.from(buf.subarray(0, p));
    this.budget?.add(chunk.length);
    this.chunks.push(chunk);
  }

  private scratch = Buffer.alloc(0);
  private spans = new Int32Array(0);

  /**
   * Rows as spans of UTF-8 bytes (TextSpanRows): the same bytes as rows() of the same cells, each span copied
   * without a string per field. A span that needs quotes is written quoted; one holding U+0000, or a huge one,
   * goes the way rows() writes a field.
   */
  textSpans(batch: TextSpanRows): void {
    if (this.out.length > 0) {
      this.encode(this.out);
      this.out = '';
    }
    const { width, special, unusual } = this;
    const d = this.delimiter.charCodeAt(0);
    const bytes = batch.bytes;
    const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    // The bytes that make a field need quotes, and NUL.
    const needs = new Uint8Array(256);
    needs[d] = needs[34] = needs[13] = needs[10] = needs[0] = 1;
    const starts = new Int32Array(width);
    const ends = new Int32Array(width);
    const cells = new Array<AnyCell>(width).fill(null);
    if (this.scratch.length < SPAN_CHUNK) this.scratch = Buffer.allocUnsafe(SPAN_CHUNK);
    let buf = this.scratch;
    let p = 0;
    // Where the row's bytes start in the scratch (-1: some were handed on).
    let lineStart = 0;
    // Room for `n` more bytes, the bytes so far handed on when the scratch would overflow.
    const room = (n: number) => {
      if (p + n <= buf.length) return;
      this.flushSpans(p);
      p = 0;
      lineStart = -1;
      if (n > buf.length) this.scratch = buf = Buffer.allocUnsafe(n);
    };
    const written = (i: number, r: number) => () => `${columnLetter(i)}${this.written + r + 1}`;
    for (let r = 0; r < batch.length; r++) {
      const spans = batch.spansOf(r, starts, ends, cells);
      // Room for the row's spans, quoted, its delimiters and line end (or `""`): one check a row, unless a span
      // is long (each is then checked, and a huge one goes as a field).
      const few = spans <= SPAN_MAX;
      const need = few ? 2 * spans + 3 * width + 3 : 3 * width + 3;
      room(need);
      lineStart = p;
      for (let i = 0; i < width; i++) {
        if (i > 0) buf[p++] = d;
        const s = starts[i];
        const e = ends[i];
        let field: string;
        if (s >= 0 && e - s <= SPAN_MAX) {
          if (!few) room(2 * (e - s) + need);
          let q = copySpan(bytes, s, e, buf, p, needs, false);
          if (q < 0) q = copySpan(bytes, s, e, buf, p, needs, true);
          if (q >= 0) {
            p = q;
            continue;
          }
          // A NUL: the field as rows() writes it.
          field = csvField(this.nul.clean(source.toString('utf8', s, e), written(i, r)), special);
        } else {
          const c = cells[i];
          field = s >= 0 ? source.toString('utf8', s, e) : typeof c === 'string' ? c : c instanceof Date ? this.dateText(c) : csvText(c);
          if (unusual.test(field)) field = csvField(this.nul.clean(field, written(i, r)), special);
        }
        if (field.length > SPAN_MAX) {
          this.flushSpans(p);
          p = 0;
          lineStart = -1;
          this.encode(field);
          room(need);
        } else {
          room(3 * field.length + need);
          p = encodeText(field, buf, p);
        }
      }
      // A lone empty field would be a blank line, which readers skip: quote it so the row survives.
      if (width === 1 && p === lineStart) {
        buf[p++] = 34;
        buf[p++] = 34;
      }
      buf[p++] = CR;
      buf[p++] = LF;
    }
    this.flushSpans(p);
    this.written += batch.length;
  }

  /** The first `p` bytes of the scratch, as a chunk of the result. */
  private flushSpans(p: number): void {
    if (p === 0) return;
    const chunk = Buffer.from(this.scratch.subarray(0, p));
    this.budget?.add(chunk.length);
    this.chunks.push(chunk);
  }

  /** The CSV's bytes; the writer is done. */
  finish(): Uint8Array {
    this.encode(this.out);
    this.out = '';
    const chunks = this.chunks;
    if (!chunks.some((c) => c instanceof RecordBatch)) {
      const bytes = joinBytes(chunks as Buffer[]);
      chunks.length = 0;
      return bytes;
    }
    const plans = chunks.map((c) => (c instanceof RecordBatch ? this.plan(c) : null));
    let size = 0;
    for (let i = 0; i < chunks.length; i++) size += plans[i]?.size ?? (chunks[i] as Buffer).length;
    // The text was counted as it was encoded; the records copied count now, before the copy is made.
    for (let i = 0; i < chunks.length; i++) if (plans[i]) this.budget?.add(plans[i]!.size);
    // Its own memory, exactly sized: never a slice of Node's shared buffer pool. Not zeroed (a pass over the
    // whole part of its own): the copy writes every byte, which the check below holds it to.
    const out = new Uint8Array(Buffer.allocUnsafeSlow(size).buffer, 0, size);
    let p = 0;
    for (let i = 0; i < chunks.length; i++) {
      const plan = plans[i];
      if (plan) p = this.copy(chunks[i] as RecordBatch, plan, out, p);
      else {
        out.set(chunks[i] as Buffer, p);
        p += (chunks[i] as Buffer).length;
      }
    }
    // Never reached; if it were, the rest of the buffer would be memory that was never written.
    if (p !== size) throw new Error(`CSV writer: ${p} bytes written of ${size} planned`);
    chunks.length = 0;
    return out;
  }

  /** A batch of records' size as written: each record's bytes, padding and line end, or its line as text. */
  private plan(batch: RecordBatch): { size: number; lines: Map<number, Buffer> | null; spans: Int32Array | null } {
    const { src, ks, drop } = batch;
    const { starts, ends, counts, flags } = src;
    const { width, delimiter, special } = this;
    // The lines of records written as text (most records are copied as they are: no entry for them).
    let lines: Map<number, Buffer> | null = null;
    const spans = drop >= 0 ? new Int32Array(ks.length * 2) : null;
    let size = 0;
    for (let j = 0; j < ks.length; j++) {
      const k = ks[j];
      let len = ends[k] - starts[k];
      let fields = counts[k];
      if (spans && drop < fields) {
        const [s, e] = src.span(k, drop);
        spans[2 * j] = s;
        spans[2 * j + 1] = e;
        // The field and one delimiter next to it go.
        len -= e - s + (fields > 1 ? 1 : 0);
        fields--;
      }
      // A record left with no field (its only one dropped) is padded as a row of empty fields.
      if (flags[k] & PLAIN && (len > 0 || width !== 1) && width > 0) size += len + (width - Math.max(fields, 1)) + 2;
      else {
        const texts = src.fields(k);
        if (drop >= 0) texts.splice(drop, 1);
        const line = Buffer.from(csvLine(texts, delimiter, special), 'utf8');
        (lines ??= new Map()).set(j, line);
        size += line.length;
      }
    }
    return { size, lines, spans };
  }

  /** Where the last run copyRun copied ends (an index into its batch's records). */
  private runEnd = 0;

  /**
   * The run of consecutive records of the file from the batch's record `j` on (split-rows' parts are such
   * runs), copied into `out` at `p` with one view of the file instead of one per record, which made most of a
   * part's writing (and an object per record to collect). Where every record is as wide as the
   * table and ends in CRLF, the span is the run as written. Else the span goes to the end of the run's room
   * and each record moves down to its place (copyWithin): each moves by its line end's and padding's growth
   * over the records before it, so it never lands on a record not yet moved. Ends at a record written as text.
   */
  private copyRun(batch: RecordBatch, lines: Map<number, Buffer> | null, j: number, out: Uint8Array, p: number): number {
    const { ks, src } = batch;
    const { bytes, starts, ends, counts } = src;
    const width = this.width;
    const d = this.delimiter.charCodeAt(0);
    let last = j;
    let asWritten = true;
    let room = 0;
    for (;;) {
      const k = ks[last];
      room += ends[k] - starts[k] + Math.max(0, width - Math.max(counts[k], 1)) + 2;
      if (counts[k] < width) asWritten = false;
      const next = last + 1;
      // The line end between two records is at most 2 bytes: never more than what a record grows by.
      if (next >= ks.length || ks[next] !== k + 1 || starts[k + 1] - ends[k] > 2 || (lines !== null && lines.has(next))) break;
      if (starts[k + 1] !== ends[k] + 2 || bytes[ends[k]] !== CR || bytes[ends[k] + 1] !== LF) asWritten = false;
      last = next;
    }
    this.runEnd = last;
    const first = starts[ks[j]];
    const span = new Uint8Array(bytes.buffer, bytes.byteOffset + first, ends[ks[last]] - first);
    if (asWritten) {
      out.set(span, p);
      p += span.length;
      out[p++] = CR;
      out[p++] = LF;
      return p;
    }
    const at = p + room - span.length;
    out.set(span, at);
    for (let i = j; i <= last; i++) {
      const k = ks[i];
      const from = at + starts[k] - first;
      out.copyWithin(p, from, from + ends[k] - starts[k]);
      p += ends[k] - starts[k];
      for (let f = Math.max(counts[k], 1); f < width; f++) out[p++] = d;
      out[p++] = CR;
      out[p++] = LF;
    }
    return p;
  }

  private copy(batch: RecordBatch, plan: ReturnType<CsvWriter['plan']>, out: Uint8Array, at: number): number {
    const { src, ks, drop } = batch;
    const { bytes, starts, ends, counts } = src;
    const { lines, spans } = plan;
    const d = this.delimiter.charCodeAt(0);
    const width = this.width;
    // Buffer#copy: on Node 22 half the time of a view per record and set() (100,000 records of ~120 bytes:
    // 7.5 against 14.5 ms; records of 10–30 bytes: 3.3 against 5.4).
    const source = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const target = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
    const copy = (from: number, to: number, p: number) => source.copy(target, p, from, to) + p;
    let p = at;
    for (let j = 0; j < ks.length; j++) {
      const line = lines === null ? undefined : lines.get(j);
      if (line !== undefined) {
        out.set(line, p);
        p += line.length;
        continue;
      }
      const k = ks[j];
      let fields = counts[k];
      if (!spans && j + 1 < ks.length && ks[j + 1] === k + 1) {
        p = this.copyRun(batch, lines, j, out, p);
        j = this.runEnd;
        continue;
      }
      if (spans && drop < fields) {
        const s = spans[2 * j];
        const e = spans[2 * j + 1];
        // Before the field (without the delimiter that ends it when it is the first), then after it.
        if (drop === 0) p = copy(e < ends[k] ? e + 1 : e, ends[k], p);
        else p = copy(e, ends[k], copy(starts[k], s - 1, p));
        fields--;
      } else p = copy(starts[k], ends[k], p);
      for (let f = Math.max(fields, 1); f < width; f++) out[p++] = d;
      out[p++] = CR;
      out[p++] = LF;
    }
    return p;
  }
}

const CR = 13;
const LF = 10;
/** Bytes of CSV a span writer gathers before handing them on; fields longer than SPAN_MAX go as their own chunk. */
const SPAN_CHUNK = 1 << 17;
const SPAN_MAX = 1 << 14;

/**
 * b[s, e) into buf at p, quoted with its quotes doubled when `quote`; returns where the bytes end, or -1 when,
 * unquoted, they need quotes (`needs`: the delimiter, a quote, CR or LF) or when they hold a NUL (removed.ts
 * cleans it). At most 2 bytes a byte.
 */
function copySpan(b: Uint8Array, s: number, e: number, buf: Buffer, p: number, needs: Uint8Array, quote: boolean): number {
  if (quote) buf[p++] = 34;
  for (let k = s; k < e; k++) {
    const c = b[k];
    if (needs[c] !== 0) {
      if (c === 0 || !quote) return -1;
      if (c === 34) buf[p++] = 34;
    }
    buf[p++] = c;
  }
  if (quote) buf[p++] = 34;
  return p;
}

/** t as UTF-8 into buf at p, as Buffer.from encodes (a lone surrogate as U+FFFD); returns where it ends. */
function encodeText(t: string, buf: Buffer, p: number): number {
  for (let k = 0; k < t.length; k++) {
    const c = t.charCodeAt(k);
    if (c < 0x80) buf[p++] = c;
    else if (c < 0x800) {
      buf[p++] = 0xc0 | (c >> 6);
      buf[p++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const c2 = k + 1 < t.length ? t.charCodeAt(k + 1) : 0;
      if (c < 0xdc00 && c2 >= 0xdc00 && c2 <= 0xdfff) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (c2 - 0xdc00);
        buf[p++] = 0xf0 | (cp >> 18);
        buf[p++] = 0x80 | ((cp >> 12) & 0x3f);
        buf[p++] = 0x80 | ((cp >> 6) & 0x3f);
        buf[p++] = 0x80 | (cp & 0x3f);
        k++;
      } else {
        buf[p++] = 0xef;
        buf[p++] = 0xbf;
        buf[p++] = 0xbd;
      }
    } else {
      buf[p++] = 0xe0 | (c >> 12);
      buf[p++] = 0x80 | ((c >> 6) & 0x3f);
      buf[p++] = 0x80 | (c & 0x3f);
    }
  }
  return p;
}
/** Characters of text a writer builds before encoding it, whatever a row holds. */
const HUGE_TEXT = 1 << 22;

export interface CsvWriterOptions {
  /** One character; the source's (a CSV keeps its delimiter) or a comma when left out. */
  delimiter?: string;
  /** A UTF-8 byte-order mark first (default true). */
  bom?: boolean;
  /** The title row, when the table has titles (default true). */
  titles?: boolean;
  /** The title row from its typed cells (a date title as the data writes dates), not its text (excel-to-csv). */
  typedTitles?: boolean;
  /** The table's name in the preview (a CSV holds none), when not the head's. */
  name?: string;
  /** The run's result budget (resultBudget(ctx)): the writer stops when its bytes pass it. */
  budget?: ResultBudget | null;
}

/** A table as CSV, written as its rows come: RFC 4180 quoting, CRLF, every row as wide as the head says. */
export function csvWriter(head: TableHead, o: CsvWriterOptions = {}): TableWriter {
  const delimiter = o.delimiter ?? head.delimiter ?? ',';
  const width = head.width;
  const csv = new CsvWriter(width, { delimiter, bom: o.bom, table: o.name ?? head.name, budget: o.budget });
  if (o.titles !== false && head.header && head.header.length > 0) csv.row(o.typedTitles ? titleRow(head)! : head.header);
  const first = new FirstRows();
  let count = 0;
  return {
    write(batch: RowBatch<AnyCell> | readonly (readonly AnyCell[])[]) {
      first.take(batch);
      count += batch.length;
      if (batch instanceof RecordBatch && !batch.typed && batch.src.delimiter === delimiter) csv.records(batch);
      else if (batch instanceof LaidOutRecords && batch.type === null && batch.src.delimiter === delimiter) csv.laidOut(batch);
      else if (!Array.isArray(batch) && isTextSpanRows(batch) && delimiter.charCodeAt(0) < 0x80) csv.textSpans(batch);
      else csv.rows(rowsOf(batch));
    },
    end(): Written {
      return { bytes: csv.finish(), preview: first.preview(o.name ?? head.name, head.header, width, count), removed: csv.removed() };
    },
  };
}

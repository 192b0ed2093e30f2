// JSON text of rows, in the layout JSON.stringify(rows, null, 2) gives (or without spaces): excel-to-json's
// writer. Rows of typed cells are written into one growing string encoded every 64 K characters; a CSV's
// records are written straight from their UTF-8 bytes (csvJsonBytes), typing only the fields that may be a
// number, date or boolean, their bytes copied a word at a time wherever no escape is needed (a byte loop per
// key and text was most of the writer's time).
//
// Measured on 100,000 rows × 10 columns: a text per cell joined per row took ~3× the time of one growing
// string; from the CSV's bytes, no table and no string per text field, the whole conversion took about a
// third of the table path's.
import { FirstRows, rowsOf } from '../batch.ts';
import { joinBytes } from '../util/bytes.ts';
import { CellError, columnLetter, FullCell, type AnyCell, type Cell, type RowBatch, type TableHead, type Written } from '../model.ts';
import { RecordBatch } from '../csv/book.ts';
import { csvText } from '../csv/write.ts';
import type { TableWriter } from '../xlsx/write.ts';
import type { CsvRecords } from '../csv/records.ts';
import { CR, FieldScan, fieldText, LF, scanField } from '../csv/tokens.ts';
import { detectType } from '../csv/detect-type.ts';
import { nulFilter, type CharFilter } from '../removed.ts';
import type { ResultBudget } from '../budget.ts';

/** Characters of text a writer builds before encoding it, whatever a row holds. */
const HUGE_TEXT = 1 << 22;

export interface Layout {
  pretty: boolean;
  /** Property names (objects) or null (lists). */
  keys: string[] | null;
  /** Objects leave out their empty values; lists keep them, so that positions hold. */
  skipEmpty: boolean;
  width: number;
}

// Text JSON.stringify would escape: quotes, backslashes, control characters, and surrogates (lone ones are
// escaped; for a string holding any, JSON.stringify decides). Anything else is written between quotes as it is.
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON text of a string; `nul` takes U+0000 out (removed.ts), looked for only in text that needs escapes. */
const stringText = (s: string, nul?: (s: string) => string) => (ESCAPED.test(s) ? JSON.stringify(nul && s.includes('\u0000') ? nul(s) : s) : `"${s}"`);

/** JSON text of a cell; the text of a date is remembered by its time (a column of dates repeats them). */
function valueText(c: AnyCell, dates: Map<number, string>, nul?: (s: string) => string): string {
  if (c === null) return 'null';
  if (typeof c === 'string') return stringText(c, nul);
  if (typeof c === 'number') return Number.isFinite(c) ? String(c) : stringText(String(c));
  if (typeof c === 'boolean') return c ? 'true' : 'false';
  if (c instanceof FullCell) return valueText(c.value, dates, nul);
  if (c instanceof CellError) return stringText(c.text, nul);
  const time = c.getTime();
  let text = dates.get(time);
  if (text === undefined) {
    text = stringText(csvText(c));
    if (dates.size < 4096) dates.set(time, text);
  }
  return text;
}

/** The pieces every row repeats: each column's `"key": ` with its indent, and the brackets. */
function pieces(o: Layout) {
  const indent = o.pretty ? '\n    ' : '';
  const prefix = Array.from({ length: o.width }, (_, i) => indent + (o.keys === null ? '' : JSON.stringify(o.keys[i]) + (o.pretty ? ': ' : ':')));
  const [open, close] = o.keys === null ? ['[', ']'] : ['{', '}'];
  return {
    prefix,
    rowStart: (o.pretty ? '\n  ' : '') + open,
    close,
    closeAfter: (o.pretty ? '\n  ' : '') + close,
    end: (rows: number) => (o.pretty && rows > 0 ? '\n' : '') + ']\n',
    skip: o.skipEmpty && o.keys !== null,
  };
}

/** JSON of rows given a batch at a time (the titles of a list first), written into one growing string. */
function textJson(o: Layout, titles: readonly string[] | null, nuls: Nuls, budget: ResultBudget | null = null): JsonOut {
  const chunks: Uint8Array[] = [];
  const encode = (s: string) => {
    const bytes = Buffer.from(s, 'utf8');
    budget?.add(bytes.length);
    chunks.push(bytes);
  };
  const p = pieces(o);
  const dates = new Map<number, string>();
  let text = '[';
  let n = 0;
  const { nul, at } = nuls;
  const rows = (batch: readonly (readonly AnyCell[])[]) => {
    // Locals, not the closure's variables: a string grown by `+=` in a captured variable is stored back to
    // the closure's context at every step (excel-to-json of 100,000 rows: about a fifth slower).
    let t = text;
    let count = n;
    const { prefix, skip } = p;
    const width = o.width;
    for (let r = 0; r < batch.length; r++) {
      const row = batch[r];
      t += (count++ > 0 ? ',' : '') + p.rowStart;
      at.row = count + nuls.first;
      let written = 0;
      for (let i = 0; i < width; i++) {
        const c = row[i] ?? null;
        if (c === null && skip) continue;
        at.col = i;
        t += (written++ > 0 ? ',' : '') + prefix[i] + valueText(c, dates, nul);
        // A row of huge cells is encoded (and counted) as it grows, not first made into one huge string.
        if (t.length > HUGE_TEXT) {
          encode(t);
          t = '';
        }
      }
      t += written > 0 ? p.closeAfter : p.close;
      if (t.length > 65_536) {
        encode(t);
        t = '';
      }
    }
    text = t;
    n = count;
  };
  if (titles) rows([titles]);
  return {
    rows,
    end() {
      encode(text + p.end(n));
      return joinBytes(chunks);
    },
  };
}

/** Where a table's JSON goes: rows, or a CSV's records written from their bytes. */
interface JsonOut {
  rows(batch: readonly (readonly AnyCell[])[]): void;
  records?(ks: ArrayLike<number>): void;
  end(): Uint8Array;
}

/**
 * U+0000 taken out of texts (removed.ts), and where the cell being written is: its row as a sheet would number
 * it (the keys of objects being row 1, the titles of lists the first item).
 */
interface Nuls {
  filter: CharFilter;
  nul: (s: string) => string;
  at: { row: number; col: number };
  /** Added to the count of items written to give the row. */
  first: number;
}

function nulsOf(table: string, keys: boolean): Nuls {
  const filter = nulFilter(table);
  const at = { row: 0, col: 0 };
  return { filter, at, first: keys ? 1 : 0, nul: (s) => filter.clean(s, () => `${columnLetter(at.col)}${at.row}`) };
}

/** `count` rows (`rowAt` gives each) as JSON bytes. */
export function jsonBytes(count: number, rowAt: (r: number) => readonly AnyCell[], o: Layout): Uint8Array {
  const out = textJson(o, null, nulsOf('', o.keys !== null));
  for (let r = 0; r < count; r += 512) out.rows(Array.from({ length: Math.min(512, count - r) }, (_, k) => rowAt(r + k)));
  return out.end();
}

/**
 * A table as JSON, written as its batches come: the batches of a CSV read with types (csv/book.ts) from their
 * records' bytes, any other rows from their cells.
 */
export function jsonWriter(head: TableHead, layout: Layout, titles: readonly string[] | null, budget: ResultBudget | null = null): TableWriter {
  let out: JsonOut | null = null;
  const first = new FirstRows();
  let count = 0;
  const nuls = nulsOf(head.name, layout.keys !== null);
  // Keys are the titles: row 1.
  const o = layout.keys === null ? layout : { ...layout, keys: layout.keys.map((k, i) => nuls.filter.clean(k, () => `${columnLetter(i)}1`)) };
  return {
    write(batch: RowBatch<AnyCell> | readonly (readonly AnyCell[])[]) {
      first.take(batch);
      count += batch.length;
      if (batch instanceof RecordBatch && batch.typed && batch.drop < 0) {
        out ??= recordsJson(batch.src, o, titles, nuls, budget);
        if (out.records) return out.records(batch.ks);
      }
      out ??= textJson(o, titles, nuls, budget);
      out.rows(rowsOf(batch));
    },
    end(): Written {
      const bytes = (out ?? textJson(o, titles, nuls, budget)).end();
      return { bytes, preview: first.preview(head.name, head.header, head.width, count), removed: nuls.filter.removed() };
    },
  };
}

/** A CSV's data records, typed, as JSON (csvJsonBytes's rule). */
export function csvJsonBytes(src: CsvRecords, o: Layout, titles: readonly string[] | null): Uint8Array {
  const out = recordsJson(src, o, titles, nulsOf('', o.keys !== null));
  out.records!(Int32Array.from({ length: src.rowCount }, (_, j) => src.first + j));
  return out.end();
}

const QUOTE = 34;
const BACKSLASH = 92;
const MINUS = 45;
const COMMA = 44;
const HEX = '0123456789abcdef';
// JSON.stringify's escapes for control characters: the short ones where JSON has them, else \u00xx.
const SHORT: Record<number, number> = { 8: 98, 9: 116, 10: 110, 12: 102, 13: 114 };

/** A growing output buffer of bytes. */
class ByteOut {
  buf: Buffer;
  /** The buffer seen a word at a time: keys, texts, numbers and days are copied 4 or 8 bytes per step. */
  view: DataView;
  at = 0;
  constructor(
    size: number,
    /** Checked whenever the buffer grows: what is written is counted once, at the end. */
    private readonly budget: ResultBudget | null = null,
  ) {
    this.buf = Buffer.allocUnsafeSlow(Math.max(size, 1024));
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  }
  room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    this.budget?.check(this.at);
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.at + n, Math.floor(this.buf.length * 1.5)));
    bigger.set(this.buf.subarray(0, this.at));
    this.buf = bigger;
    this.view = new DataView(bigger.buffer, bigger.byteOffset, bigger.length);
  }
  /** Bytes too short for a native copy to pay (brackets). */
  put(bytes: Uint8Array): void {
    this.room(bytes.length);
    const o = this.buf;
    let at = this.at;
    for (let i = 0; i < bytes.length; i++) o[at++] = bytes[i];
    this.at = at;
  }
  /** Text of ASCII characters only (numbers, dates, booleans, null). */
  ascii(s: string): void {
    this.room(s.length);
    const o = this.buf;
    let at = this.at;
    for (let i = 0; i < s.length; i++) o[at++] = s.charCodeAt(i);
    this.at = at;
  }
  /**
   * A few bytes (`bv` seeing `b`) copied as they are, between quotes when `quoted` (a number, a day): 4 at a
   * time, the last word's extra bytes overwritten by what follows.
   */
  copy(b: Uint8Array, bv: DataView, from: number, to: number, quoted: boolean): void {
    this.room(to - from + 5);
    const o = this.buf;
    const view = this.view;
    let at = this.at;
    if (quoted) o[at++] = QUOTE;
    if (to + 3 <= b.length) {
      for (let i = from, w = at; i < to; i += 4, w += 4) view.setInt32(w, bv.getInt32(i, true), true);
      at += to - from;
    } else for (let i = from; i < to; i++) o[at++] = b[i];
    if (quoted) o[at++] = QUOTE;
    this.at = at;
  }
  text(s: string): void {
    this.room(s.length * 3);
    this.at += this.buf.write(s, this.at, 'utf8');
  }
  /** The bytes written, in an ArrayBuffer of their own (copied only when more than an eighth is unused). */
  bytes(): Uint8Array {
    if (this.buf.length - this.at <= this.at >> 3) return new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.at);
    const out = new Uint8Array(this.at);
    out.set(this.buf.subarray(0, this.at));
    return out;
  }
}

const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

/**
 * A CSV's data records (and its titles first, for lists with `titles`) as the same JSON bytes jsonBytes
 * writes for the rows readCsv types. A field is typed only when it may be a number, date or boolean (it
 * starts like one, or is as long as a boolean word), or when it is quoted; any other text is copied from the
 * file with JSON's escapes. Typed values never hold a byte outside ASCII, so a candidate read as Latin-1
 * types exactly as its UTF-8 text would.
 */
function recordsJson(src: CsvRecords, o: Layout, titles: readonly string[] | null, nuls: Nuls, budget: ResultBudget | null = null): JsonOut {
  const p = pieces(o);
  // Every column's `"key": `, and the same after a comma, encoded once as 8-byte words end to end (a
  // Uint8Array per key costs a wide table dearly): a key is written a word at a time (a third of the time of a
  // byte loop), its last word's padding overwritten by what follows. The words are read and written as
  // doubles, whose bits none of them can make a NaN (which a copy might change): that takes the exponent's
  // bits all set, a last byte 0x7f or 0xff after one of 0xf0 or more, never seen in UTF-8.
  const keys = new ByteOut(o.width * 96);
  // Key 4i + k of column i: after a comma when k & 1, with a text's opening quote when k & 2.
  const keyAt = new Int32Array(4 * o.width + 1);
  const keyLength = new Int32Array(4 * o.width);
  for (let i = 0; i < 4 * o.width; i++) {
    keyAt[i] = keys.at >> 3;
    const from = keys.at;
    keys.text((i & 1 ? ',' : '') + p.prefix[i >> 2] + (i & 2 ? '"' : ''));
    keyLength[i] = keys.at - from;
    keys.room(7);
    while (keys.at & 7) keys.buf[keys.at++] = 0;
  }
  keyAt[4 * o.width] = keys.at >> 3;
  const keyWords = new Float64Array(keyAt[4 * o.width]);
  for (let w = 0; w < keyWords.length; w++) keyWords[w] = keys.view.getFloat64(8 * w, true);
  let keysLength = 0;
  for (let i = 0; i < o.width; i++) keysLength += keyLength[4 * i + 1];
  const rowStart = utf8(p.rowStart);
  const nextRowStart = utf8(',' + p.rowStart);
  const closeAfter = utf8(p.closeAfter);
  const close = utf8(p.close);
  const { bytes: b, starts, ends, literal } = src;
  const bv = new DataView(b.buffer, b.byteOffset, b.length);
  const unclosed = literal.size > 0;
  const d = src.delimiter.charCodeAt(0);
  // A field that may be typed is scanned by the CSV grammar (csv/tokens.ts) and its text read as Latin-1.
  const scan = new FieldScan();
  const latin1 = (from: number, to: number) => b.toString('latin1', from, to);
  const decimalComma = src.delimiter !== ',';
  const typing = { decimalComma };
  const candidate = decimalComma ? CANDIDATE_COMMA : CANDIDATE;
  const skip = p.skip;
  const dates = new Map<number, string>();
  const dateTexts = new Map<string, string>();
  const rows = src.rowCount + (titles ? 1 : 0);
  // Every key and value written once, as without skip-empty-values; with it, the size of a sparse table's
  // JSON is unknown (empty cells write nothing), and the buffer grows from the file's size.
  const out = new ByteOut(p.skip ? b.length * 2 + 1024 : b.length + 16 + rows * (keysLength + o.width * 2 + 8), budget);
  /** The key of column `col`, after a comma unless it is the row's first value, a text's opening quote after it when `text`. */
  const key = (col: number, first: boolean, text: boolean) => {
    const k = 4 * col + (first ? 0 : 1) + (text ? 2 : 0);
    const to = keyAt[k + 1];
    out.room(8 * (to - keyAt[k]));
    const view = out.view;
    const at = out.at;
    for (let w = keyAt[k], o = at; w < to; w++, o += 8) view.setFloat64(o, keyWords[w], true);
    out.at = at + keyLength[k];
  };
  out.ascii('[');
  let n = 0;
  if (titles) {
    out.put(rowStart);
    nuls.at.row = 1;
    for (let i = 0; i < o.width; i++) {
      key(i, i === 0, false);
      nuls.at.col = i;
      out.text(stringText(titles[i], nuls.nul));
    }
    out.put(o.width > 0 ? closeAfter : close);
    n++;
  }
  const records = (ks: ArrayLike<number>) => {
  for (let j = 0; j < ks.length; j++) {
    const k = ks[j];
    out.put(n++ > 0 ? nextRowStart : rowStart);
    const start = starts[k];
    const end = ends[k];
    // The record as Latin-1 (one character per byte), made when a candidate for typing first needs its text.
    let line: string | null = null;
    let written = 0;
    let i = start;
    let col = 0;
    for (;;) {
      const s = i;
      let ascii: string | null = null;
      let empty = false;
      /** The field's bytes are its JSON: as they are (a number, a boolean word) or between quotes (a date). */
      let plain = 0;
      if (i < end && b[i] === QUOTE && !(unclosed && literal.has(i))) {
        const c = b[i + 1];
        let typed: Cell | undefined;
        if (c !== QUOTE ? candidate[c] !== 0 : b[i + 2] !== QUOTE) {
          // It may be typed (or be empty): its value read as Latin-1 (the quotes undone) is typed, and kept
          // only when it is a number, date or boolean (all ASCII).
          const next = scanField(scan, b, i, end, d, literal);
          const value = fieldText(scan, b, latin1);
          typed = value === '' ? null : detectType(value, typing);
          if (typeof typed === 'number') ascii = plainAsText(value) ? value : valueText(typed, dates);
          else if (typed === null) empty = true;
          else if (typeof typed !== 'string') ascii = valueText(typed, dates);
          i = next;
        }
        if (typed === undefined || typeof typed === 'string') {
          // Text: copied from the bytes with its escapes, `""` as one quote, while its end is looked for. A
          // quote that never closes (the record scan leaves none) is a plain character.
          key(col, written++ === 0, true);
          i = quotedUntil(out, b, bv, s, end, d);
          if (i < 0) i = escapedUntil(out, b, bv, s, end, d);
          col++;
          if (i >= end) break;
          i++;
          continue;
        }
      } else {
        const c = i < end ? b[i] : d;
        if (c === d) empty = true;
        else if (candidate[c] === 0) {
          // Text for sure (nothing typed starts so): copied with its escapes while its end is looked for.
          key(col, written++ === 0, true);
          i = escapedUntil(out, b, bv, i, end, d);
          col++;
          if (i >= end) break;
          i++;
          continue;
        } else {
          // The commonest typed values need no text made: a number written as String() writes it is copied,
          // and the lower-case boolean words are themselves.
          const number = candidate[c] === NUMERIC ? plainNumberEnd(b, s, end, d) : -1;
          // A day is its own text between quotes, found without looking for its end first.
          const day = number < 0 && s + 10 <= end && (s + 10 === end || b[s + 10] === d) && isoDay(b, s);
          if (number >= 0) i = number;
          else if (day) i = s + 10;
          else while (i < end && b[i] !== d) i++;
          const len = i - s;
          if (number >= 0 || (len === 4 && isWord(b, s, TRUE)) || (len === 5 && isWord(b, s, FALSE))) plain = COPIED;
          else if (day) plain = QUOTED;
          else if (candidate[c] === NUMERIC || len === 4 || len === 5 || len === 9) {
            const t = (line ??= b.toString('latin1', start, end)).slice(s - start, i - start);
            // A date's text is remembered by its own text: a column of dates repeats them.
            const maybeDate = len >= 8 && (b[s + 4] === MINUS || b[s + 1] === SLASH || b[s + 2] === SLASH);
            ascii = maybeDate ? (dateTexts.get(t) ?? null) : null;
            if (ascii === null) {
              const typed = detectType(t, typing);
              if (typeof typed === 'number') ascii = plainAsText(t) ? t : valueText(typed, dates);
              else if (typeof typed !== 'string') {
                ascii = valueText(typed, dates);
                if (maybeDate && dateTexts.size < 4096) dateTexts.set(t, ascii);
              }
            }
          }
        }
      }
      if (!empty || !skip) {
        key(col, written++ === 0, false);
        if (empty) out.ascii('null');
        else if (ascii !== null) out.ascii(ascii);
        else if (plain !== 0) out.copy(b, bv, s, i, plain === QUOTED);
        else {
          out.room(6 * (i - s) + 2);
          escapedBytes(out, b, s, i);
        }
      }
      col++;
      if (i >= end) break;
      i++;
    }
    for (; col < o.width; col++) {
      if (skip) continue;
      key(col, written++ === 0, false);
      out.ascii('null');
    }
    out.put(written > 0 ? closeAfter : close);
  }
  };
  // Rows that come as cells (a batch not read from this CSV): written as textJson writes them.
  const asText = (batch: readonly (readonly AnyCell[])[]) => {
    let text = '';
    for (const row of batch) {
      text += (n++ > 0 ? ',' : '') + p.rowStart;
      nuls.at.row = n + nuls.first;
      let written = 0;
      for (let i = 0; i < o.width; i++) {
        const c = row[i] ?? null;
        if (c === null && p.skip) continue;
        nuls.at.col = i;
        text += (written++ > 0 ? ',' : '') + p.prefix[i] + valueText(c, dates, nuls.nul);
      }
      text += written > 0 ? p.closeAfter : p.close;
    }
    out.text(text);
  };
  return {
    records,
    rows: asText,
    end() {
      out.text(p.end(n));
      budget?.add(out.at);
      return out.bytes();
    },
  };
}

const NUMERIC = 1;
const WORD = 2;
/** First bytes of what detectType may type: numbers and dates (digits, minus, point), boolean words. */
const CANDIDATE = new Uint8Array(256);
for (const c of '0123456789-.') CANDIDATE[c.charCodeAt(0)] = NUMERIC;
for (const c of 'tfvTFV') CANDIDATE[c.charCodeAt(0)] = WORD;
/** The same where a number may start with a decimal comma (`,5`). */
const CANDIDATE_COMMA = CANDIDATE.slice();
CANDIDATE_COMMA[COMMA] = 3;
const SLASH = 47;
const ZERO = 48;

const DOT = 46;
const NINE = 57;
const TRUE = new Uint8Array(Buffer.from('true'));
const FALSE = new Uint8Array(Buffer.from('false'));

const COPIED = 1;
const QUOTED = 2;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The 2 digits at `at` as a number, or -1. */
function twoDigits(b: Uint8Array, at: number): number {
  const x = b[at] - ZERO;
  const y = b[at + 1] - ZERO;
  return x >= 0 && x <= 9 && y >= 0 && y <= 9 ? x * 10 + y : -1;
}

/**
 * Whether the 10 bytes at `at` are a day `yyyy-mm-dd` that exists, from 1900 on: detectType types it as that
 * date, whose JSON is the same text between quotes. (Earlier years are left to detectType: 1899-12-30 is the
 * day a time of day is counted from, written as a time.)
 */
function isoDay(b: Uint8Array, at: number): boolean {
  if (b[at + 4] !== MINUS || b[at + 7] !== MINUS) return false;
  const hi = twoDigits(b, at);
  const lo = twoDigits(b, at + 2);
  const m = twoDigits(b, at + 5);
  const d = twoDigits(b, at + 8);
  if (hi < 19 || lo < 0 || m < 1 || m > 12 || d < 1) return false;
  const y = hi * 100 + lo;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= (m === 2 && leap ? 29 : DAYS_IN_MONTH[m - 1]);
}

function isWord(b: Uint8Array, at: number, word: Uint8Array): boolean {
  for (let k = 0; k < word.length; k++) if (b[at + k] !== word[k]) return false;
  return true;
}

/**
 * Where the field from `from` ends (the delimiter `d` or `end`) when it is a number detectType types
 * (csv/detect-type.ts) that plainAsText would copy as it is, else -1: `-?(0|[1-9]\d*)(\.\d*[1-9])?`, not `-0`, at
 * most 15 significant digits, fewer than six zeros after `0.`. Anything else (a decimal comma, `.5`, trailing
 * zeros, ids…) goes the way of text and detectType. Its end is found in the same pass (no delimiter is a digit,
 * a point or a minus).
 */
function plainNumberEnd(b: Uint8Array, from: number, end: number, d: number): number {
  let i = b[from] === MINUS ? from + 1 : from;
  if (i >= end) return -1;
  let significant = 0;
  if (b[i] === ZERO) {
    i++;
    if (i < end && b[i] >= ZERO && b[i] <= NINE) return -1;
  } else {
    for (; i < end && b[i] >= ZERO && b[i] <= NINE; i++) significant++;
    if (significant === 0) return -1;
  }
  if (i === end || b[i] === d) return significant <= 15 && !(significant === 0 && from < i - 1) ? i : -1;
  if (b[i] !== DOT) return -1;
  const fraction = ++i;
  let zeros = 0;
  for (; i < end && b[i] >= ZERO && b[i] <= NINE; i++) {
    if (significant > 0 || b[i] !== ZERO) significant++;
    else zeros++;
  }
  return (i === end || b[i] === d) && i > fraction && b[i - 1] !== ZERO && significant <= 15 && zeros < 6 ? i : -1;
}

/**
 * Whether String(n) writes a number detectType read from `t` exactly as `t` (then `t` is copied): a
 * decimal of at most 15 significant digits is the shortest text of its double, so only the form can differ —
 * a decimal comma, `-0`, `.5`, trailing zeros, or seven or more leading zeros (1e-7).
 */
function plainAsText(t: string): boolean {
  const neg = t.charCodeAt(0) === MINUS ? 1 : 0;
  const dot = t.indexOf('.');
  if (dot < 0) return t.indexOf(',') < 0 && !(neg && t.length === 2 && t.charCodeAt(1) === ZERO);
  if (dot === neg || t.charCodeAt(t.length - 1) === ZERO) return false;
  if (t.charCodeAt(neg) !== ZERO) return true;
  let z = dot + 1;
  while (t.charCodeAt(z) === ZERO) z++;
  return z - dot - 1 < 6;
}

/**
 * A text field's bytes from `from` up to the delimiter (or `end`) as a JSON string (its opening quote written
 * with its key), escaped as escapedBytes escapes; returns where the field ends. Room is made a block at a time,
 * so a huge field never asks for six times its size at once.
 */
function escapedUntil(out: ByteOut, b: Buffer, bv: DataView, from: number, end: number, d: number): number {
  let i = from;
  // Bytes above the delimiter and the backslash (most letters) are copied after one comparison.
  const hi = d > BACKSLASH ? d : BACKSLASH;
  const dd = d * 0x01010101;
  for (;;) {
    const stop = Math.min(end, i + 16_384);
    out.room(6 * (stop - i) + 1);
    const o = out.buf;
    const ov = out.view;
    let at = out.at;
    while (i < stop) {
      const n = plainWords(bv, ov, i, at, stop, dd);
      i += n;
      at += n;
      if (i >= stop) break;
      // A byte escaped, the delimiter, or one of the block's last 3.
      const c = b[i];
      if (c > hi) o[at++] = c;
      else if (c === d) break;
      else if (c >= 0x20 && c !== QUOTE && c !== BACKSLASH) o[at++] = c;
      else at = escapeByte(o, at, c);
      i++;
    }
    out.at = at;
    if (i < stop || i >= end) break;
  }
  out.buf[out.at++] = QUOTE;
  return i;
}

/**
 * The quoted field whose opening quote is at `from` as a JSON string (its opening quote written with its key),
 * cut by csv/tokens.ts's grammar in the same pass: the text between the quotes (`""` written as one quote),
 * then whatever follows the closing quote up to the field's end (the delimiter, CR, LF or `end`). Returns where
 * the field ends; -1, nothing written, when the quote never closes. Room is made a block at a time, as
 * escapedUntil makes it.
 */
function quotedUntil(out: ByteOut, b: Buffer, bv: DataView, from: number, end: number, d: number): number {
  const mark = out.at;
  let i = from + 1;
  let closed = false;
  while (!closed) {
    const stop = Math.min(end, i + 16_384);
    out.room(6 * (stop - i) + 1);
    const o = out.buf;
    const ov = out.view;
    let at = out.at;
    while (i < stop) {
      const n = plainWords(bv, ov, i, at, stop, 0x22222222);
      i += n;
      at += n;
      if (i >= stop) break;
      const c = b[i];
      if (c > BACKSLASH || (c >= 0x20 && c !== QUOTE && c !== BACKSLASH)) o[at++] = c;
      else if (c !== QUOTE) at = escapeByte(o, at, c);
      else if (b[i + 1] === QUOTE) {
        o[at++] = BACKSLASH;
        o[at++] = QUOTE;
        i++;
      } else {
        closed = true;
        i++;
        break;
      }
      i++;
    }
    out.at = at;
    if (!closed && i >= end) {
      out.at = mark;
      return -1;
    }
  }
  // After the closing quote every byte up to the field's end is a character, a quote too (seldom any).
  for (; i < end; i++) {
    const c = b[i];
    if (c === d || c === CR || c === LF) break;
    out.room(6);
    if (c >= 0x20 && c !== QUOTE && c !== BACKSLASH) out.buf[out.at++] = c;
    else out.at = escapeByte(out.buf, out.at, c);
  }
  out.room(1);
  out.buf[out.at++] = QUOTE;
  return i;
}

/**
 * Copies the bytes from `from` (`bv`) to `to` (`ov`) 4 at a time while no byte of a word is one stopMask marks
 * (`dd` the delimiter repeated), up to `stop`; returns how many were copied. A word that holds a marked byte is
 * written whole, and the bytes before the first marked one counted: what follows overwrites the rest.
 */
function plainWords(bv: DataView, ov: DataView, from: number, to: number, stop: number, dd: number): number {
  let i = from;
  let at = to;
  while (i + 4 <= stop) {
    const v = bv.getInt32(i, true);
    const m = stopMask(v, dd);
    ov.setInt32(at, v, true);
    if (m !== 0) return i - from + firstMarked(m);
    i += 4;
    at += 4;
  }
  return i - from;
}

/**
 * The bytes of the word `v` that a text copy stops at, each as its high bit: below 0x20, a quote, a backslash, or
 * `dd` (the delimiter repeated; a quote again inside quotes). A byte above a marked one may be marked too; the
 * first marked byte is always one of them.
 */
function stopMask(v: number, dd: number): number {
  return ((v - 0x20202020) & ~v & 0x80808080) | hasByte(v, 0x22222222) | hasByte(v, 0x5c5c5c5c) | hasByte(v, dd);
}

/** The index (0–3, in the order of the bytes) of the first byte a mask marks. */
function firstMarked(m: number): number {
  return (31 - Math.clz32(m & -m)) >> 3;
}

/**
 * Whether a byte of the word `v` is the byte `x` repeats (a bit trick: the high bit of a byte's `v ^ x` minus one,
 * where that byte was 0, survives `& ~` only then; in any byte above a match a borrow may add a false one, never
 * one without a match). `x - 0x20202020` likewise finds a byte below 0x20.
 */
function hasByte(v: number, x: number): number {
  const y = v ^ x;
  return (y - 0x01010101) & ~y & 0x80808080;
}

function escapeByte(o: Buffer, at: number, c: number): number {
  o[at++] = BACKSLASH;
  if (c === QUOTE || c === BACKSLASH) o[at++] = c;
  else if (SHORT[c] !== undefined) o[at++] = SHORT[c];
  else {
    o[at++] = 117; // u
    o[at++] = 48;
    o[at++] = 48;
    o[at++] = HEX.charCodeAt(c >> 4);
    o[at++] = HEX.charCodeAt(c & 15);
  }
  return at;
}

/** The bytes as the inside of a JSON string: `"` and `\` escaped, control characters as JSON.stringify writes them. */
function escapedBytes(out: ByteOut, b: Buffer, from: number, to: number): void {
  const o = out.buf;
  let at = out.at;
  o[at++] = QUOTE;
  for (let i = from; i < to; i++) {
    const c = b[i];
    if (c >= 0x20 && c !== QUOTE && c !== BACKSLASH) o[at++] = c;
    else at = escapeByte(o, at, c);
  }
  o[at++] = QUOTE;
  out.at = at;
}

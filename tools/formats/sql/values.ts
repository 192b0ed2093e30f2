// The values of a table read from a SQL script, kept as what the script says rather than as cells: a code per
// value (what the reader decided it is, its column's declared type included) and the span of its literal in the
// script's bytes. A cell is made only when a batch's rows are asked for, and dies with the batch (no million
// cells held at once); a CSV writer copies a literal whose cell would be written as that very text without
// making the cell (csv/write.ts TextSpanRows). Values that are no plain literal (expressions, escapes, joined
// strings, DATE '…') are kept as the cells the reader made of them.
import { ArrayBatch } from '../batch.ts';
import type { TextSpanRows } from '../csv/write.ts';
import { BATCH_ROWS, type AnyCell, type Cell, type Row, type RowBatch, type Table } from '../model.ts';
import type { Script } from './lexer.ts';

/** NULL, or no value (a row shorter than the table). */
export const NULL = 0;
/** A string's text as written between its quotes. */
export const TEXT = 1;
/** A string in a DATE/DATETIME/TIMESTAMP column: its date when ISO, else its text. */
export const DATE = 2;
/** A string in a TIME column: its time of day when ISO, else its text. */
export const TIME = 3;
/** A number literal a double holds exactly. */
export const NUMBER = 4;
/** The same whose literal is the number's text in a CSV (csvText): `12`, `-0.5`, not `1.50`, `1e3`, `-0`. */
export const PLAIN_NUMBER = 5;
/** A number in a BOOLEAN/BIT/TINYINT(1) column: 0 and 1 are booleans. */
export const FLAG = 6;
export const TRUE = 7;
export const FALSE = 8;
/** A cell the reader made (`side`). */
export const MADE = 9;

/** Every value of one table, row after row; a row holds the values of its tuple, by column. */
export class SqlValues {
  codes = new Uint8Array(1024);
  starts = new Int32Array(1024);
  ends = new Int32Array(1024);
  /** Values so far. */
  size = 0;
  /** Where each row's values start; row r ends where row r + 1 starts (the last at `size`). */
  rowAt = new Int32Array(64);
  rows = 0;
  readonly side = new Map<number, Cell>();
  /** The script's Latin-1 view (lexer.ts Script). */
  readonly text: string;

  constructor(readonly script: Script) {
    this.text = script.text;
  }

  /** Opens a row of `width` NULLs; returns where its values start. */
  open(width: number): number {
    if (this.rows === this.rowAt.length) this.rowAt = grown(this.rowAt);
    const at = this.size;
    this.rowAt[this.rows++] = at;
    this.fill(at + width);
    return at;
  }

  /** Value `col` of the row opened at `at` (past its width, the row grows). */
  set(at: number, col: number, code: number, start: number, end: number): void {
    const k = at + col;
    if (k >= this.size) this.fill(k + 1);
    this.codes[k] = code;
    this.starts[k] = start;
    this.ends[k] = end;
  }

  /** A cell made by the reader, in value `col` of the row opened at `at`. */
  setCell(at: number, col: number, cell: Cell): void {
    this.set(at, col, cell === null ? NULL : MADE, 0, 0);
    if (cell !== null) this.side.set(at + col, cell);
  }

  /** The row opened at `at` holds at least `width` values. */
  widen(at: number, width: number): void {
    if (at + width > this.size) this.fill(at + width);
  }

  private fill(to: number): void {
    while (to > this.codes.length) {
      this.codes = grown(this.codes);
      this.starts = grown(this.starts);
      this.ends = grown(this.ends);
    }
    this.codes.fill(NULL, this.size, to);
    this.size = to;
  }

  /** Values in row r. */
  lengthOf(r: number): number {
    return (r + 1 < this.rows ? this.rowAt[r + 1] : this.size) - this.rowAt[r];
  }

  /** The cell of value k. */
  cell(k: number): Cell {
    const code = this.codes[k];
    if (code === NULL) return null;
    if (code === TRUE) return true;
    if (code === FALSE) return false;
    if (code === MADE) return this.side.get(k)!;
    // Numbers are ASCII: their view is their text.
    const s = code === TEXT || code === DATE || code === TIME ? this.script.decode(this.starts[k], this.ends[k]) : this.text.slice(this.starts[k], this.ends[k]);
    if (code === TEXT) return s;
    if (code === DATE || code === TIME) return isoDate(s, code === TIME ? 'TIME' : 'DATE') ?? s;
    const n = Number(s);
    if (code === FLAG && (n === 0 || n === 1)) return n === 1;
    return n === 0 ? 0 : n;
  }

  /** Row r as `width` cells. */
  row(r: number, width: number): Row {
    const at = this.rowAt[r];
    const length = Math.min(this.lengthOf(r), width);
    const row: Row = new Array<Cell>(width);
    for (let c = 0; c < length; c++) row[c] = this.cell(at + c);
    for (let c = length; c < width; c++) row[c] = null;
    return row;
  }
}

function grown<T extends Uint8Array | Int32Array>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  return b;
}

/**
 * Whether a number literal ([s, e) of t) is one a double holds exactly and, when so, whether it is the text a
 * CSV writes for that double: 0 when neither is sure (the caller compares decimals), 1 exact, 2 exact and its own
 * CSV text. Up to 15 significant digits without an exponent always read back exactly (DBL_DIG); the shortest
 * text of such a double is then those digits, so a literal without leading or trailing zeros is that text.
 */
export function numberForm(t: string, s: number, e: number): 0 | 1 | 2 {
  let i = s;
  const negative = t.charCodeAt(i) === 45;
  if (negative) i++;
  const first = i;
  let digits = 0;
  let dot = -1;
  for (; i < e; i++) {
    const c = t.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
    else if (c === 46 && dot < 0 && digits > 0) dot = i;
    else return 0;
  }
  if (!(digits > 0 && digits <= 15 && dot !== e - 1)) return 0;
  const leadingZero = t.charCodeAt(first) === 48 && first + 1 < e && t.charCodeAt(first + 1) !== 46;
  const trailingZero = dot > 0 && t.charCodeAt(e - 1) === 48;
  // `-0` is 0 in a cell.
  const negativeZero = negative && e - first === 1 && t.charCodeAt(first) === 48;
  return leadingZero || trailingZero || negativeZero ? 1 : 2;
}

/** [s, e) of t is `yyyy-mm-dd`, a day of years 1900–9999: its date's CSV text is the same (csvText). */
function isPlainDay(t: string, s: number, e: number): boolean {
  if (e - s !== 10 || t.charCodeAt(s + 4) !== 45 || t.charCodeAt(s + 7) !== 45) return false;
  const y = digitsOf(t, s, s + 4);
  const m = digitsOf(t, s + 5, s + 7);
  const d = digitsOf(t, s + 8, s + 10);
  return y >= 1900 && m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m);
}

const daysIn = (y: number, m: number) => (m === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31);

/** Digits of s[from, to) as a number, or -1. */
function digitsOf(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?$/;
const ISO_TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;

const fractionMs = (frac: string | undefined) => (frac ? Math.round(Number(`0.${frac}`) * 1000) : 0);

/** A valid date of the proleptic Gregorian calendar (years 1–9999) at that time, or null. */
function utcDate(y: number, mo: number, d: number, h: number, mi: number, se: number, ms: number): Date | null {
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59) return null;
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, se, ms));
  if (y < 100) date.setUTCFullYear(y);
  // Every month has a 28th: only later days can roll over into the next month.
  return d <= 28 || date.getUTCDate() === d ? date : null;
}

/** The Date of an ISO date, date-time or (in a TIME column) time of day; null when it is not one. */
export function isoDate(s: string, type: string): Date | null {
  if (type === 'TIME') {
    const m = ISO_TIME.exec(s);
    if (!m) return null;
    const [h, mi, se] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
    if (h > 23 || mi > 59 || se > 59) return null;
    return new Date(Date.UTC(1899, 11, 30, h, mi, se, fractionMs(m[4])));
  }
  // The common case, `yyyy-mm-dd`, without a regular expression.
  if (s.length === 10 && s.charCodeAt(4) === 45 && s.charCodeAt(7) === 45) return utcDate(digitsOf(s, 0, 4), digitsOf(s, 5, 7), digitsOf(s, 8, 10), 0, 0, 0, 0);
  const m = ISO.exec(s);
  if (!m) return null;
  return utcDate(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), fractionMs(m[7]));
}

/** Rows [from, to) of a table's values, made into cells only when asked; a CSV writer copies their literals. */
export class SqlBatch implements RowBatch, TextSpanRows {
  constructor(
    private readonly values: SqlValues,
    private readonly from: number,
    private readonly to: number,
    private readonly width: number,
  ) {}

  get length(): number {
    return this.to - this.from;
  }

  get bytes(): Uint8Array {
    return this.values.script.bytes;
  }

  rows(): Row[] {
    const out: Row[] = new Array(this.to - this.from);
    for (let r = this.from; r < this.to; r++) out[r - this.from] = this.values.row(r, this.width);
    return out;
  }

  column(col: number): Cell[] {
    const v = this.values;
    const out: Cell[] = new Array(this.to - this.from);
    for (let r = this.from; r < this.to; r++) out[r - this.from] = col < v.lengthOf(r) ? v.cell(v.rowAt[r] + col) : null;
    return out;
  }

  slice(from: number, to: number): RowBatch {
    const n = this.to - this.from;
    const a = Math.max(0, Math.min(n, from < 0 ? n + from : from));
    const b = Math.max(a, Math.min(n, to < 0 ? n + to : to));
    return new SqlBatch(this.values, this.from + a, this.from + b, this.width);
  }

  pick(at: ArrayLike<number>): RowBatch {
    const out: Row[] = new Array(at.length);
    for (let i = 0; i < at.length; i++) out[i] = this.values.row(this.from + at[i], this.width);
    return new ArrayBatch(out);
  }

  without(col: number): RowBatch {
    return new ArrayBatch(this.rows()).without(col);
  }

  spansOf(r: number, starts: Int32Array, ends: Int32Array, cells: AnyCell[]): number {
    const v = this.values;
    const { codes, text } = v;
    const row = this.from + r;
    const at = v.rowAt[row];
    const length = Math.min(v.lengthOf(row), this.width);
    let bytes = 0;
    for (let c = 0; c < this.width; c++) {
      const k = at + c;
      const code = c < length ? codes[k] : NULL;
      if (code === NULL) {
        starts[c] = ends[c] = 0;
      } else if (code === TEXT || code === PLAIN_NUMBER || (code === DATE && isPlainDay(text, v.starts[k], v.ends[k]))) {
        starts[c] = v.starts[k];
        ends[c] = v.ends[k];
        bytes += v.ends[k] - v.starts[k];
      } else {
        starts[c] = -1;
        cells[c] = v.cell(k);
      }
    }
    return bytes;
  }
}

/** A table's values as the model's Table: batches of BATCH_ROWS rows, each `width` cells. */
export class SqlRows implements Table {
  readonly total: number;
  readonly rowCount: number;

  constructor(
    readonly name: string,
    readonly header: string[],
    readonly width: number,
    private readonly values: SqlValues,
  ) {
    this.total = this.rowCount = values.rows;
  }

  rows(): Row[] {
    return new SqlBatch(this.values, 0, this.values.rows, this.width).rows();
  }

  *[Symbol.iterator](): Iterator<RowBatch> {
    for (let at = 0; at < this.values.rows; at += BATCH_ROWS) yield new SqlBatch(this.values, at, Math.min(at + BATCH_ROWS, this.values.rows), this.width);
  }

  slice(from: number, to: number): RowBatch {
    return new SqlBatch(this.values, 0, this.values.rows, this.width).slice(from, to);
  }

  pick(at: ArrayLike<number>): RowBatch {
    return new SqlBatch(this.values, 0, this.values.rows, this.width).pick(at);
  }
}

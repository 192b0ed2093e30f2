// Type detection for text cells (CSV): conservative, so that identifiers and formatted text are never altered.
//
// Recognized, on the exact text (nothing is trimmed):
// - numbers: `-?digits` or `-?digits.digits` (`-?digits,digits` when the file's delimiter is not a comma), with
//   no leading zero (`0.5` yes, `00123` no), at most 15 significant digits (longer digit runs are ids, cards,
//   IBANs), no `+`, no exponent, no thousand separators, no spaces;
// - dates: `yyyy-mm-dd`, `yyyy-mm-dd hh:mm[:ss[.sss]]` (also with `T`), `d/m/yyyy` and `d/m/yyyy hh:mm[:ss]`,
//   only when the day exists; no time zone suffix (text with an offset stays text). Slash dates take their
//   column's order (DateOrders: day or month first, decided from all of the column's values, the language when
//   none proves it), or stay text when no order fits them all: a column is never half one order, half the other;
// - booleans: true, false, verdadero, falso (any case).
// Everything else stays the text it was; an empty field is null.
// The patterns are matched by scanning char codes, not with regular expressions: this runs on every field of
// a typed CSV (a million at the input limit), and most fields are rejected on their first character.
// test/formats/detect-type.test.ts checks the scanner against the regular expressions above, which stay
// the definition.
import type { Cell } from '../model.ts';

// A Map, not an object literal: a cell reading `__proto__` must not look up Object.prototype.
const BOOLEANS = new Map([['true', true], ['false', false], ['verdadero', true], ['falso', false]]);

export interface DetectOptions {
  /** A comma may be the decimal mark (the delimiter is not a comma). */
  decimalComma: boolean;
  /** The order of each column's slash dates (DateOrders.decide); a column left out takes `dateOrder`. */
  orders?: readonly DateOrder[];
  /** The language's order (languageDateOrder), for columns `orders` leaves out; day first when absent. */
  dateOrder?: 'dmy' | 'mdy';
  /** Without `orders`: the slash dates typed are noted here, to learn whether the order used was wrong. */
  track?: DateOrders;
}

/** How a column's `a/b/yyyy` values read: day first, month first, or as text (no order fits them all). */
export type DateOrder = 'dmy' | 'mdy' | 'text';

const MINUS = 45;
const DOT = 46;
const COMMA = 44;
const ZERO = 48;

/** The digit at `i` (0–9), or -1. */
function digit(s: string, i: number): number {
  const c = s.charCodeAt(i) - ZERO;
  return c >= 0 && c <= 9 ? c : -1;
}

export function detectType(text: string, o: DetectOptions, col = -1): Cell {
  const len = text.length;
  if (len === 0) return null;
  const first = text.charCodeAt(0);
  if ((first >= ZERO && first <= ZERO + 9) || first === MINUS || first === DOT || (first === COMMA && o.decimalComma)) {
    const n = parseNumber(text, o.decimalComma);
    if (n !== null) return n;
    if (first >= ZERO && first <= ZERO + 9) {
      const order = (col >= 0 ? o.orders?.[col] : undefined) ?? o.dateOrder ?? 'dmy';
      const d = parseDate(text, order);
      if (o.track !== undefined && col >= 0 && order !== 'text' && text.charCodeAt(4) !== MINUS) o.track.typed(col, text, order, d !== null);
      if (d) return d;
    }
    return text;
  }
  if (len === 4 || len === 5 || len === 9) {
    const b = BOOLEANS.get(text.toLowerCase());
    if (b !== undefined) return b;
  }
  return text;
}

// `-?(0|[1-9]\d*)?(\.\d+)?` with at least one digit (`,` for `.` with a decimal comma), at most 15
// significant digits: digits beyond those would not survive as a double, such values are ids, not quantities.
function parseNumber(text: string, decimalComma: boolean): number | null {
  const n = text.length;
  if (n > 40) return null;
  let i = text.charCodeAt(0) === MINUS ? 1 : 0;
  const intStart = i;
  let int = 0;
  for (let d: number; i < n && (d = digit(text, i)) >= 0; i++) int = int * 10 + d;
  const intDigits = i - intStart;
  if (intDigits > 1 && text.charCodeAt(intStart) === ZERO) return null;
  let mark = -1;
  if (i < n) {
    const c = text.charCodeAt(i);
    if (c !== DOT && !(decimalComma && c === COMMA)) return null;
    mark = i++;
    const fracStart = i;
    while (i < n && digit(text, i) >= 0) i++;
    if (i === fracStart || i < n) return null;
  } else if (intDigits === 0) return null;
  let significant = 0;
  for (let j = intStart; j < n; j++) if (j !== mark && (significant > 0 || text.charCodeAt(j) !== ZERO)) significant++;
  if (significant > 15) return null;
  if (mark < 0) return intStart === 1 ? (int === 0 ? 0 : -int) : int;
  const v = Number(text.charCodeAt(mark) === COMMA ? text.slice(0, mark) + '.' + text.slice(mark + 1) : text);
  return Object.is(v, -0) ? 0 : v;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function validDate(y: number, m: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Date | null {
  if (m < 1 || m > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  if (y >= 100) {
    const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
    if (d > (m === 2 && leap ? 29 : DAYS_IN_MONTH[m - 1])) return null;
    return new Date(Date.UTC(y, m - 1, d, h, mi, s, ms));
  }
  const date = new Date(Date.UTC(y, m - 1, d, h, mi, s, ms));
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear puts them back.
  date.setUTCFullYear(y);
  if (date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return date;
}

/** The number of `count` digits at `i`, or -1. */
function digits(s: string, i: number, count: number): number {
  let v = 0;
  for (let k = 0; k < count; k++) {
    const d = digit(s, i + k);
    if (d < 0) return -1;
    v = v * 10 + d;
  }
  return v;
}

// `yyyy-mm-dd`, then optionally `[T ]hh:mm`, `:ss`, `.s{1,3}`.
function parseIsoDate(t: string): Date | null {
  const n = t.length;
  const y = digits(t, 0, 4);
  if (y < 0 || t.charCodeAt(4) !== MINUS || t.charCodeAt(7) !== MINUS) return null;
  const mo = digits(t, 5, 2);
  const d = digits(t, 8, 2);
  if (mo < 0 || d < 0) return null;
  if (n === 10) return validDate(y, mo, d);
  const sep = t.charCodeAt(10);
  if ((sep !== 84 && sep !== 32) || n < 16 || t.charCodeAt(13) !== 58) return null;
  const h = digits(t, 11, 2);
  const mi = digits(t, 14, 2);
  if (h < 0 || mi < 0) return null;
  if (n === 16) return validDate(y, mo, d, h, mi);
  if (n < 19 || t.charCodeAt(16) !== 58) return null;
  const s = digits(t, 17, 2);
  if (s < 0) return null;
  if (n === 19) return validDate(y, mo, d, h, mi, s);
  if (n > 23 || n === 20 || t.charCodeAt(19) !== DOT) return null;
  let ms = digits(t, 20, n - 20);
  if (ms < 0) return null;
  for (let k = n - 20; k < 3; k++) ms *= 10;
  return validDate(y, mo, d, h, mi, s, ms);
}

// `d{1,2}/d{1,2}/dddd`, then optionally ` h{1,2}:mm` and `:ss`: day first (`dmy`) or month first (`mdy`).
function parseSlashDate(t: string, order: 'dmy' | 'mdy'): Date | null {
  const n = t.length;
  let i = 0;
  const part = (max: number): number => {
    const start = i;
    let v = 0;
    for (let d: number; i < n && i - start < max && (d = digit(t, i)) >= 0; i++) v = v * 10 + d;
    return i === start ? -1 : v;
  };
  const a = part(2);
  if (a < 0 || t.charCodeAt(i++) !== 47) return null;
  const b = part(2);
  if (b < 0 || t.charCodeAt(i++) !== 47) return null;
  const [d, mo] = order === 'dmy' ? [a, b] : [b, a];
  const start = i;
  const y = part(4);
  if (i - start !== 4) return null;
  if (i === n) return validDate(y, mo, d);
  if (t.charCodeAt(i++) !== 32) return null;
  const h = part(2);
  if (h < 0 || t.charCodeAt(i++) !== 58) return null;
  const mi = digits(t, i, 2);
  if (mi < 0) return null;
  i += 2;
  if (i === n) return validDate(y, mo, d, h, mi);
  if (t.charCodeAt(i) !== 58 || n !== i + 3) return null;
  const s = digits(t, i + 1, 2);
  return s < 0 ? null : validDate(y, mo, d, h, mi, s);
}

function parseDate(text: string, order: DateOrder): Date | null {
  if (text.charCodeAt(4) === MINUS) return parseIsoDate(text);
  return order === 'text' ? null : parseSlashDate(text, order);
}

/**
 * The order of each column's slash dates, from all of its values: a value only one order reads (`5/19/2006`)
 * proves that order; values of both kinds make the column text; values both read (`2/4/2012`) follow the
 * others, or the language when nothing proves an order (Spanish: day first; English: month first).
 */
export class DateOrders {
  /** Per column: bit 1 a value only day-first reads, bit 2 one only month-first reads. */
  private readonly seen: number[] = [];
  any = false;
  /** A column proved an order other than `tentative` (or both): what was typed with it must be typed again. */
  conflict = false;

  /** `tentative`: the order values are being typed with while they are noted (OnePassCsv). */
  constructor(private readonly tentative?: 'dmy' | 'mdy') {}

  add(col: number, text: string): void {
    const first = text.charCodeAt(0);
    if (first < ZERO || first > ZERO + 9 || text.length < 8 || text.indexOf('/') < 0) return;
    const dmy = parseSlashDate(text, 'dmy') !== null;
    const mdy = parseSlashDate(text, 'mdy') !== null;
    if (!dmy && !mdy) return;
    this.any = true;
    const s = (this.seen[col] = (this.seen[col] ?? 0) | (dmy && !mdy ? 1 : 0) | (mdy && !dmy ? 2 : 0));
    if (this.tentative !== undefined && s & (this.tentative === 'dmy' ? 2 : 1)) this.conflict = true;
  }

  /**
   * A value typed in `order` (`ok`: read as a date), noted without parsing it again unless it failed: its first
   * number above 12 proves day first, its second month first.
   */
  typed(col: number, text: string, order: 'dmy' | 'mdy', ok: boolean): void {
    if (!ok) {
      // Not a date in this order: a date in the other one proves it.
      if (text.indexOf('/') >= 0) this.add(col, text);
      return;
    }
    const slash = text.indexOf('/');
    const a = Number(text.slice(0, slash));
    const b = Number(text.slice(slash + 1, text.indexOf('/', slash + 1)));
    const bits = (order === 'dmy' ? a : b) > 12 ? (order === 'dmy' ? 1 : 2) : 0;
    if (bits === 0) return;
    this.any = true;
    this.seen[col] = (this.seen[col] ?? 0) | bits;
  }

  decide(language: 'dmy' | 'mdy'): DateOrder[] {
    const out: DateOrder[] = [];
    for (let c = 0; c < this.seen.length; c++) {
      const s = this.seen[c] ?? 0;
      out.push(s === 3 ? 'text' : s === 1 ? 'dmy' : s === 2 ? 'mdy' : language);
    }
    return out;
  }
}

/** The slash-date order a language reads when a column proves none. */
export const languageDateOrder = (lang: string | undefined): 'dmy' | 'mdy' => (lang === 'en' ? 'mdy' : 'dmy');

// Column types of excel-to-sql, deduced from the data and independent of the dialect:
// - only whole numbers: INTEGER within 32 bits, BIGINT within 64 bits;
// - any fraction: DECIMAL(p, s) sized from the shortest text of each number (the form that reads back as the
//   same double), while p ≤ 38 and s ≤ 30, the bounds every dialect holds; past them, a double, which holds
//   every value the sheet had exactly. Numbers are written plain (`1250.5`, never `1.2505E3`), except those
//   past these bounds, which go in exponent form (`2.5E-300`): MariaDB reads a 300-digit plain literal as 0;
// - dates: DATE, or a timestamp when some value has a time of day; times of day alone: TIME;
// - only booleans: a boolean; only text, or nothing: text sized from the longest value;
// - two or more of these kinds: text, every value in machine form (`mixed`).
import { csvText, plainNumber } from '../csv/write.ts';
import { isTimeOnly } from '../dates.ts';
import type { Cell, Row } from '../model.ts';

export type ColumnType =
  | { kind: 'integer'; big: boolean }
  | { kind: 'decimal'; precision: number; scale: number }
  | { kind: 'double' }
  | { kind: 'boolean' }
  | { kind: 'date' }
  | { kind: 'timestamp'; fraction: boolean }
  | { kind: 'time'; fraction: boolean }
  /** `length` in UTF-16 units (never below the characters of any engine), `bytes` in UTF-8. */
  | { kind: 'text'; length: number; bytes: number };

export interface ColumnInfo {
  type: ColumnType;
  /** Mixed columns: index of the first data row whose value is written as text although it was not. */
  firstConverted: number;
}

type Kind = 'text' | 'number' | 'boolean' | 'date' | 'time';

const MAX_PRECISION = 38;
const MAX_SCALE = 30;
const INT32 = 2_147_483_647;
const INT64 = 2 ** 63;

// A date SQL cannot write as yyyy-mm-dd (year 0, negative, five digits) is written as text.
const writableDate = (d: Date) => d.getUTCFullYear() >= 1 && d.getUTCFullYear() <= 9999;

function kindOf(c: Exclude<Cell, null>): Kind {
  if (typeof c === 'string') return 'text';
  if (typeof c === 'number') return Number.isFinite(c) ? 'number' : 'text';
  if (typeof c === 'boolean') return 'boolean';
  if (!writableDate(c)) return 'text';
  return isTimeOnly(c) ? 'time' : 'date';
}

/** Whether a value of a column of this type is written as SQL text (mixed columns and odd values alike). */
export function writtenAsText(c: Cell, type: ColumnType): boolean {
  return c !== null && (type.kind === 'text' || kindOf(c) === 'text');
}

export function columnInfo(rows: Row[], col: number): ColumnInfo {
  const kinds = new Set<Kind>();
  let firstOther = -1;
  for (let r = 0; r < rows.length; r++) {
    const c = rows[r][col] ?? null;
    if (c === null) continue;
    const k = kindOf(c);
    if (k !== 'text' && firstOther < 0) firstOther = r;
    kinds.add(k);
  }
  if (kinds.size === 1) {
    const [only] = kinds;
    if (only === 'number') return { type: numberType(rows, col), firstConverted: -1 };
    if (only === 'boolean') return { type: { kind: 'boolean' }, firstConverted: -1 };
    if (only === 'date' || only === 'time') return { type: dateType(rows, col, only), firstConverted: -1 };
  }
  const mixed = kinds.size > 1;
  return { type: textType(rows, col), firstConverted: mixed ? firstOther : -1 };
}

function numberType(rows: Row[], col: number): ColumnType {
  let integers = true;
  let big = false;
  let intDigits = 1;
  let scale = 0;
  for (const row of rows) {
    const n = row[col];
    if (typeof n !== 'number') continue;
    if (!Number.isInteger(n) || Math.abs(n) >= INT64) integers = false;
    else if (Math.abs(n) > INT32) big = true;
    const digits = digitsOf(plainNumber(n));
    intDigits = Math.max(intDigits, digits.int);
    scale = Math.max(scale, digits.scale);
  }
  if (integers) return { kind: 'integer', big };
  if (intDigits + scale > MAX_PRECISION || scale > MAX_SCALE) return { kind: 'double' };
  return { kind: 'decimal', precision: intDigits + scale, scale };
}

function dateType(rows: Row[], col: number, kind: 'date' | 'time'): ColumnType {
  let time = false;
  let fraction = false;
  for (const row of rows) {
    const d = row[col];
    if (!(d instanceof Date)) continue;
    if (d.getTime() % 86_400_000 !== 0) time = true;
    if (d.getUTCMilliseconds() !== 0) fraction = true;
  }
  if (kind === 'time') return { kind: 'time', fraction };
  return time ? { kind: 'timestamp', fraction } : { kind: 'date' };
}

function digitsOf(plain: string): { int: number; scale: number } {
  const [int, frac = ''] = plain.replace('-', '').split('.');
  return { int: int.length, scale: frac.length };
}

/** The SQL text of a number: plain, or in exponent form past the bounds of DECIMAL. */
export function numberLiteral(n: number): string {
  const plain = plainNumber(n);
  const { int, scale } = digitsOf(plain);
  return int + scale <= MAX_PRECISION && scale <= MAX_SCALE ? plain : n.toExponential().replace('e', 'E');
}

function textType(rows: Row[], col: number): ColumnType {
  let length = 0;
  let bytes = 0;
  for (const row of rows) {
    const c = row[col];
    if (c === null || c === undefined) continue;
    const s = csvText(c);
    if (s.length > length) length = s.length;
    // UTF-8 takes at most 3 bytes per UTF-16 unit: measure only when that bound could be the largest.
    if (s.length * 3 > bytes) bytes = Math.max(bytes, Buffer.byteLength(s, 'utf8'));
  }
  return { kind: 'text', length, bytes };
}

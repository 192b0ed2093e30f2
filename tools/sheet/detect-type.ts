// Type detection for text cells (CSV): conservative, so that identifiers and formatted text are never altered.
//
// Recognized, on the exact text (nothing is trimmed):
// - numbers: `-?digits` or `-?digits.digits` (`-?digits,digits` when the file's delimiter is not a comma), with
//   no leading zero (`0.5` yes, `00123` no), at most 15 significant digits (longer digit runs are ids, cards,
//   IBANs), no `+`, no exponent, no thousand separators, no spaces;
// - dates: `yyyy-mm-dd`, `yyyy-mm-dd hh:mm[:ss[.sss]]` (also with `T`), `dd/mm/yyyy` and `dd/mm/yyyy hh:mm[:ss]`,
//   only when the day exists; no time zone suffix (text with an offset stays text);
// - booleans: true, false, verdadero, falso (any case).
// Everything else stays the text it was; an empty field is null.
import type { Cell } from '../core/table.ts';

const NUMBER_POINT = /^-?(?:0|[1-9]\d*)?(?:\.\d+)?$/;
const NUMBER_COMMA = /^-?(?:0|[1-9]\d*)?(?:,\d+)?$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?$/;
const DMY_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?: (\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;
const BOOLEANS: Record<string, boolean> = { true: true, false: false, verdadero: true, falso: false };

export interface DetectOptions {
  /** A comma may be the decimal mark (the delimiter is not a comma). */
  decimalComma: boolean;
}

export function detectType(text: string, o: DetectOptions): Cell {
  if (text === '') return null;
  const n = parseNumber(text, o.decimalComma);
  if (n !== null) return n;
  const d = parseDate(text);
  if (d) return d;
  const b = BOOLEANS[text.toLowerCase()];
  return b === undefined ? text : b;
}

function parseNumber(text: string, decimalComma: boolean): number | null {
  if (text.length > 40 || !/\d/.test(text)) return null;
  let normalized = text;
  if (!NUMBER_POINT.test(text)) {
    if (!decimalComma || !NUMBER_COMMA.test(text)) return null;
    normalized = text.replace(',', '.');
  }
  // Digits beyond 15 significant ones would not survive as a double: such values are ids, not quantities.
  if (normalized.replace(/\D/g, '').replace(/^0+/, '').length > 15) return null;
  const n = Number(normalized);
  return Number.isFinite(n) ? (Object.is(n, -0) ? 0 : n) : null;
}

function validDate(y: number, m: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Date | null {
  if (m < 1 || m > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  const date = new Date(Date.UTC(y, m - 1, d, h, mi, s, ms));
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear puts them back.
  date.setUTCFullYear(y);
  if (date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return date;
}

function parseDate(text: string): Date | null {
  let m = ISO_DATE.exec(text);
  if (m) {
    const ms = m[7] ? Number(m[7].padEnd(3, '0')) : 0;
    return validDate(+m[1], +m[2], +m[3], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0), ms);
  }
  m = DMY_DATE.exec(text);
  if (m) return validDate(+m[3], +m[2], +m[1], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
  return null;
}

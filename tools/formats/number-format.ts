// Which number formats make a number a date: one rule for both readers (the xlsx fast path and SheetJS), so
// that they agree cell for cell.
import * as XLSX from 'xlsx';
import type { Cell } from './model.ts';
import { serialToDate } from './dates.ts';

// Quoted text, escaped characters and [colour]/[$-locale] sections are not date tokens.
const stripFormat = (fmt: string) => fmt.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, '');

/** A date or time format; elapsed-time formats (`[h]:mm`) are not: a duration is a number, not a date. */
export function isDateFormat(fmt: unknown): fmt is string {
  if (typeof fmt !== 'string' || fmt === 'General') return false;
  if (/\[(h+|m+|s+)\]/i.test(fmt)) return false;
  return XLSX.SSF.is_date(fmt) as boolean;
}

/** Whether a date format shows a day (else it is a time of day, which matters in the 1904 system). */
export function hasDatePart(fmt: string): boolean {
  return /[yd]/i.test(stripFormat(fmt));
}

/** How a number in a given format reads: 0 a number, 1 a date (or date-time), 2 a time of day alone. */
export type DateKind = 0 | 1 | 2;

export function dateKindOf(fmt: unknown): DateKind {
  if (!isDateFormat(fmt)) return 0;
  return hasDatePart(fmt) ? 1 : 2;
}

/** Serial of 9999-12-31, the last day Excel shows; past it a "date" shows as ##### and stays a number here. */
const LAST_SERIAL_1900 = 2_958_465;
const LAST_SERIAL_1904 = LAST_SERIAL_1900 - 1462;

/** A number as read from a cell in a format of the given kind: a Date when it can be one, else the number. */
export function numberCell(n: number, kind: DateKind, date1904: boolean): Cell {
  if (kind === 0 || !(n >= 0) || n >= (date1904 ? LAST_SERIAL_1904 : LAST_SERIAL_1900) + 1) return n;
  return serialToDate(n, date1904, kind === 1);
}

/**
 * The built-in formats by id, as SheetJS knows them (ECMA-376 §18.8.30 lists them; ids it leaves out, such as
 * the East Asian dates 27–36, are unknown to both readers alike and read as plain numbers).
 */
export const BUILTIN_FORMATS: Readonly<Record<number, string>> = Object.freeze({
  0: 'General',
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: '# ?/?',
  13: '# ??/??',
  14: 'm/d/yy',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'm/d/yy h:mm',
  37: '#,##0 ;(#,##0)',
  38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00;(#,##0.00)',
  40: '#,##0.00;[Red](#,##0.00)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mmss.0',
  48: '##0.0E+0',
  49: '@',
  56: '"上午/下午 "hh"時"mm"分"ss"秒 "',
});

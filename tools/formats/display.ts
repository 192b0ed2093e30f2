// How a cell reads in a document (tools.md §2.6 display form), for every writer that shows cells to people
// (PDF, Markdown, fixed-width text, Word) and the tools that join or split their text. A cell that carries its
// number format (FullCell) is formatted with it by SheetJS's SSF, its marks then put in the language's places
// (es `1.234,5`, en `1,234.5`); the built-in short date shows as `dd/mm/yyyy` (es) or `yyyy-mm-dd` (en). A cell
// without a format (readers that do not fill formats yet, CSV fields, cells a tool made) shows as General:
// numbers with up to 15 significant digits, no grouping and the language's decimal mark; dates as the short
// date, with `hh:mm` (and `:ss` when there are seconds) when they have a time of day; booleans as a spreadsheet
// in that language shows them; text unchanged; errors as their text; empty cells empty.
import * as XLSX from 'xlsx';
import { CellError, FullCell, type AnyCell, type Cell, type Row, type TableHead } from './model.ts';
import { detectType } from './csv/detect-type.ts';
import { titleRow } from './table/titles.ts';
import { plainNumber } from './csv/write.ts';
import { dateToSerial, isTimeOnly } from './dates.ts';
import { isDateFormat } from './number-format.ts';

/** The language numbers and dates are shown in. */
export type Lang = 'es' | 'en';

/** How booleans read in the language (`VERDADERO`/`FALSO`, `TRUE`/`FALSE`). */
export interface DisplayWords {
  true: string;
  false: string;
}

export interface DisplayOptions {
  lang: Lang;
  words: DisplayWords;
}

const pad = (n: number, size = 2) => String(n).padStart(size, '0');

function timeText(d: Date): string {
  const hm = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  return d.getUTCSeconds() || d.getUTCMilliseconds() ? `${hm}:${pad(d.getUTCSeconds())}` : hm;
}

function dateText(d: Date, lang: Lang): string {
  if (Number.isNaN(d.getTime())) return '';
  if (isTimeOnly(d)) return timeText(d);
  const y = pad(d.getUTCFullYear(), 4);
  const day = lang === 'es' ? `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${y}` : `${y}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  return d.getUTCHours() || d.getUTCMinutes() || d.getUTCSeconds() || d.getUTCMilliseconds() ? `${day} ${timeText(d)}` : day;
}

function numberText(n: number, lang: Lang): string {
  if (!Number.isFinite(n)) return String(n);
  // 15 significant digits, as a spreadsheet's General format: 0.1 + 0.2 shows as 0.3. A number whose shortest
  // form has at most 15 digits is that form already (any such decimal survives the trip through a double).
  let text = String(n);
  const digits = text.length - (n < 0 ? 1 : 0) - (text.includes('.') ? 1 : 0);
  if (digits > 15 || text.includes('e')) text = plainNumber(Number(n.toPrecision(15)) || 0);
  return lang === 'es' ? text.replace('.', ',') : text;
}

/** A plain cell as General shows it. */
function plainText(c: Cell, o: DisplayOptions): string {
  if (c === null) return '';
  if (typeof c === 'string') return c;
  if (typeof c === 'number') return numberText(c, o.lang);
  if (typeof c === 'boolean') return c ? o.words.true : o.words.false;
  return dateText(c, o.lang);
}

// The short date formats Excel shows in the reader's own locale (built-in 14 and 22, as SheetJS spells them).
const SHORT_DATES = new Set(['m/d/yy', 'm/d/yyyy', 'mm-dd-yy', 'm/d/yy h:mm', 'm/d/yyyy h:mm', 'mm/dd/yy', 'mm/dd/yyyy']);
// Literal text of a format: quoted, escaped by a backslash, or in brackets ([Red], [$€-C0A]).
const LITERALS = /"[^"]*"|\\.|\[[^\]]*\]/g;
const GENERAL = /^general$/i;

/** SSF's English marks swapped for Spanish ones, unless the format's own literal text holds either mark. */
function localMarks(text: string, fmt: string, lang: Lang): string {
  if (lang === 'en') return text;
  if ((fmt.match(LITERALS) ?? []).some((lit) => /[.,]/.test(lit))) return text;
  return text.replace(/[.,]/g, (m) => (m === '.' ? ',' : '.'));
}

/** A value in its number format, or null when the format says nothing General would not. */
function formatted(value: Cell, fmt: string, o: DisplayOptions): string | null {
  if (GENERAL.test(fmt) || fmt === '@' || typeof value === 'string' || typeof value === 'boolean' || value === null) return null;
  try {
    if (value instanceof Date) {
      if (!isDateFormat(fmt) || SHORT_DATES.has(fmt.toLowerCase())) return null;
      const serial = dateToSerial(value);
      return serial === null ? null : (XLSX.SSF.format(fmt, serial) as string);
    }
    if (!Number.isFinite(value)) return null;
    return localMarks(XLSX.SSF.format(fmt, value) as string, fmt, o.lang);
  } catch {
    // A format SSF cannot read shows the value as General, as a spreadsheet falls back to it.
    return null;
  }
}

/** The cell as a spreadsheet in `o.lang` shows it. */
export function displayText(c: AnyCell, o: DisplayOptions): string {
  if (c instanceof FullCell) {
    const value = c.value;
    if (value instanceof CellError) return value.text;
    return (c.format !== null ? formatted(value, c.format, o) : null) ?? plainText(value, o);
  }
  if (c instanceof CellError) return c.text;
  return plainText(c, o);
}

/** The value a cell holds, whatever it carries besides. */
export function valueOf(c: AnyCell): Cell | CellError {
  return c instanceof FullCell ? c.value : c;
}

/** Numbers and dates: what documents align right. */
export function isNumeric(c: AnyCell): boolean {
  const v = valueOf(c);
  return typeof v === 'number' || v instanceof Date;
}

/**
 * Per column, whether every non-empty cell is a number (or a date, with `dates`): what documents align right.
 * A table read from CSV (`head.delimiter` set) holds its fields as written: a field counts as a number when
 * csv-to-excel's type detection makes it one (`1.50` does, `00123` does not). A column of empty cells is not.
 */
export function numericColumns(head: Pick<TableHead, 'delimiter' | 'width'>, rows: readonly (readonly AnyCell[])[], o: { dates: boolean }): boolean[] {
  const typing = { decimalComma: head.delimiter !== undefined && head.delimiter !== ',' };
  const out: boolean[] = [];
  for (let c = 0; c < head.width; c++) {
    let seen = false;
    let numeric = true;
    for (let r = 0; r < rows.length && numeric; r++) {
      const cell = rows[r][c] ?? null;
      if (cell === null || cell === '') continue;
      seen = true;
      numeric = countsAsNumeric(cell, head, o.dates, typing);
    }
    out.push(seen && numeric);
  }
  return out;
}

/** A number (or a date, with `dates`); a CSV field (`head.delimiter` set) as csv-to-excel's detection types it. */
export function countsAsNumeric(c: AnyCell, head: Pick<TableHead, 'delimiter'>, dates = true, typing = { decimalComma: head.delimiter !== undefined && head.delimiter !== ',' }): boolean {
  let v = valueOf(c);
  if (typeof v === 'string' && head.delimiter !== undefined) v = detectType(v, typing);
  return typeof v === 'number' || (dates && v instanceof Date);
}

/**
 * The titles a document shows, one per column: each title cell in display form, or `column(n)` (1-based) when
 * it is empty or the table has no title row.
 */
export function shownTitles(head: Pick<TableHead, 'header' | 'titleCells' | 'width'>, o: DisplayOptions, column: (n: number) => string): string[] {
  const row = titleRow(head);
  return Array.from({ length: head.width }, (_, i) => {
    const text = row ? displayText(row[i] ?? null, o) : '';
    return text.trim() === '' ? column(i + 1) : text;
  });
}

/** Rows in display form, each as wide as `width`. */
export function shownRows(rows: readonly Row<AnyCell>[], width: number, o: DisplayOptions): string[][] {
  return rows.map((r) => shownRow(r, width, o));
}

/** A row in display form, as wide as `width`. */
export function shownRow(row: Row<AnyCell>, width: number, o: DisplayOptions): string[] {
  const out = new Array<string>(width);
  for (let c = 0; c < width; c++) out[c] = displayText(row[c] ?? null, o);
  return out;
}

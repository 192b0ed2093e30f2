// Writes tables as an .xlsx workbook, one sheet per table, through SheetJS.
//
// - Text is always a text cell (`t: 's'`) and no cell ever gets a formula, so `=SUM(A1)`, `+34 600…` and `@x`
//   stay what they were. Literal `_x0041_` sequences are escaped so that readers do not decode them.
// - Dates are serial numbers with a date format: `yyyy-mm-dd`, `yyyy-mm-dd hh:mm:ss` when there is a time,
//   `hh:mm:ss` for a time alone (a Date on 1899-12-30). Dates Excel cannot hold (before 1900) are ISO text.
// - Empty cells are no cells. Column widths follow the content, so that dates never show as ####.
// - More rows, columns or characters per cell than the format holds is `format_limit_exceeded`: never cut.
import * as XLSX from 'xlsx';
import type { ToolContext } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { allRows, isoDate, type Cell, type Table } from '../core/table.ts';
import { dateToSerial, hasTime, isTimeOnly } from './excel-date.ts';

export const XLSX_MAX_ROWS = 1_048_576;
export const XLSX_MAX_COLUMNS = 16_384;
export const XLSX_MAX_CELL_CHARS = 32_767;
const MAX_SHEET_NAME = 31;

type Localizer = Pick<ToolContext, 't' | 'name'>;

/**
 * Sheet names valid in Excel, in order: none of `[]:*?/\`, no apostrophe at either end, 1 to 31 characters,
 * unique regardless of case (a clash gets ` (2)`, ` (3)`…). An empty name becomes `fallback`.
 */
export function sheetNames(names: string[], fallback: string): string[] {
  const seen = new Set<string>();
  const key = (s: string) => s.toLocaleUpperCase('und');
  return names.map((raw) => {
    let base = raw
      .replace(/[\u0000-\u001f\[\]:*?/\\]/g, '_')
      .replace(/^'+|'+$/g, '')
      .trim();
    if (!base || key(base) === 'HISTORY') base = base ? `${base}_` : fallback;
    base = [...base].slice(0, MAX_SHEET_NAME).join('');
    let name = base;
    for (let n = 2; seen.has(key(name)); n++) {
      const tag = ` (${n})`;
      name = [...base].slice(0, MAX_SHEET_NAME - tag.length).join('').trimEnd() + tag;
    }
    seen.add(key(name));
    return name;
  });
}

const ESCAPED = /_(x[0-9A-Fa-f]{4}_)/g;

function cellObject(c: Cell): XLSX.CellObject | undefined {
  if (c === null) return undefined;
  if (typeof c === 'string') return c === '' ? undefined : { t: 's', v: c.replace(ESCAPED, '_x005F_$1') };
  if (typeof c === 'number') return Number.isFinite(c) ? { t: 'n', v: c } : { t: 's', v: String(c) };
  if (typeof c === 'boolean') return { t: 'b', v: c };
  const serial = dateToSerial(c);
  if (serial === null) return { t: 's', v: Number.isNaN(c.getTime()) ? '' : isoDate(c) };
  const ms = c.getUTCMilliseconds() ? '.000' : '';
  const z = isTimeOnly(c) ? `hh:mm:ss${ms}` : hasTime(c) ? `yyyy-mm-dd hh:mm:ss${ms}` : 'yyyy-mm-dd';
  return { t: 'n', v: serial, z };
}

function displayLength(c: Cell): number {
  if (c === null) return 0;
  if (c instanceof Date) return isTimeOnly(c) ? 8 : hasTime(c) ? 19 : 10;
  const s = String(c);
  return s.length > 80 ? 80 : s.length;
}

function checkLimits(table: Table, ctx: Localizer): void {
  const rows = allRows(table);
  const limit = (max: number, unit: string) =>
    new ToolError('format_limit_exceeded', { params: { format: 'xlsx', max, unit: ctx.t(`names.${unit}`) } });
  if (rows.length > XLSX_MAX_ROWS) throw limit(XLSX_MAX_ROWS, 'rows');
  for (const r of rows) {
    if (r.length > XLSX_MAX_COLUMNS) throw limit(XLSX_MAX_COLUMNS, 'columns');
    for (const c of r) if (typeof c === 'string' && c.length > XLSX_MAX_CELL_CHARS) throw limit(XLSX_MAX_CELL_CHARS, 'characters');
  }
}

function worksheet(table: Table): XLSX.WorkSheet {
  const rows = allRows(table);
  const data: (XLSX.CellObject | undefined)[][] = new Array(rows.length);
  let width = 0;
  const lengths: number[] = [];
  for (let r = 0; r < rows.length; r++) {
    const src = rows[r];
    const out: (XLSX.CellObject | undefined)[] = new Array(src.length);
    for (let c = 0; c < src.length; c++) {
      out[c] = cellObject(src[c]);
      if (r < 1000) lengths[c] = Math.max(lengths[c] ?? 0, displayLength(src[c]));
    }
    if (src.length > width) width = src.length;
    data[r] = out;
  }
  const ws: XLSX.WorkSheet = { '!data': data } as XLSX.WorkSheet;
  if (rows.length > 0 && width > 0) ws['!ref'] = XLSX.utils.encode_range({ s: { r: 0, c: 0 }, e: { r: rows.length - 1, c: width - 1 } });
  ws['!cols'] = Array.from({ length: width }, (_, c) => ({ wch: Math.min(Math.max((lengths[c] ?? 0) + 2, 8), 60) }));
  return ws;
}

/** An .xlsx workbook (compressed) with one sheet per table; sheet names are made valid and unique. */
export function writeXlsx(tables: Table[], ctx: Localizer): Uint8Array {
  for (const t of tables) checkLimits(t, ctx);
  const list = tables.length > 0 ? tables : [{ name: '', header: null, rows: [] }];
  const names = sheetNames(list.map((t) => t.name), ctx.name('sheet'));
  const wb: XLSX.WorkBook = { SheetNames: names, Sheets: {} };
  list.forEach((t, i) => {
    wb.Sheets[names[i]] = worksheet(t);
  });
  const out = XLSX.write(wb, { type: 'array', bookType: 'xlsx', compression: true, bookSST: true }) as ArrayBuffer;
  return new Uint8Array(out);
}

// Reads any admitted input (xlsx, xls, ods, csv) into tables of typed cells.
//
// Workbooks go through SheetJS with raw values; this module decides dates from each cell's number format and
// converts serials in UTC (1904 system included). Rules:
// - formulas give their cached value; a formula saved without one is an empty cell, with a warning;
// - error cells (#N/A, #DIV/0!…) become their text, with a warning naming the first one;
// - the table starts at the first non-empty row and column; trailing empty rows and columns are not part of
//   it, empty rows and columns in between are kept;
// - elapsed-time formats (`[h]:mm`) stay numbers: a duration is not a date;
// - a file whose bytes are not a spreadsheet container (ZIP, OLE, BIFF) is `invalid_file` before SheetJS
//   sees it, because SheetJS would read plain text as CSV.
import * as XLSX from 'xlsx';
import * as cptable from 'xlsx/dist/cpexcel.full.mjs';
import { ToolError } from '../core/errors.ts';
import { extensionOf, type InputFile } from '../core/files.ts';
import { columnLetter, withHeader, type Cell, type Row, type Table } from '../core/table.ts';
import { readCsv } from './csv.ts';
import { serialToDate } from './excel-date.ts';
import { listText, silent, type Report } from './report.ts';
import type { SheetTable } from './titles.ts';

XLSX.set_cptable(cptable);

export interface ReadOptions {
  hasHeader: boolean;
  /** `first` reads (and parses) only the first sheet. */
  sheets: 'first' | 'all';
  /** CSV only: recognize numbers, dates and booleans. Workbook cells carry their own types. */
  detectTypes: boolean;
  /** CSV only: a one-character delimiter; detected when left out. */
  delimiter?: string;
  /** The request field the file came in, for `invalid_file`. */
  option?: 'file' | 'files';
  report?: Report;
}

export interface ReadResult {
  /** One table per sheet read (one for a CSV, named after the file); workbook titles keep their typed cells. */
  tables: SheetTable[];
  /** Every sheet name of a workbook, read or not; empty for a CSV. */
  sheetNames: string[];
}

const WORKBOOK_FORMATS = new Set(['xlsx', 'xls', 'ods', 'xlsm', 'xlsb']);

export function readTables(file: InputFile, o: ReadOptions): ReadResult {
  const format = extensionOf(file.name);
  if (format === 'csv') {
    const { table } = readCsv(file, { hasHeader: o.hasHeader, detectTypes: o.detectTypes, delimiter: o.delimiter, option: o.option, report: o.report });
    return { tables: [table], sheetNames: [] };
  }
  if (!WORKBOOK_FORMATS.has(format)) throw invalidFile(file, o.option);
  return readWorkbook(file, o);
}

/** The first table of a file; when a workbook has more sheets, a warning names the ones not used. */
export function readFirstTable(file: InputFile, o: Omit<ReadOptions, 'sheets'>): SheetTable {
  const { tables, sheetNames } = readTables(file, { ...o, sheets: 'first' });
  if (sheetNames.length > 1) {
    (o.report ?? silent)('warning', 'sheets_unused', { name: file.name, sheet: sheetNames[0], sheets: listText(sheetNames.slice(1)) });
  }
  return tables[0];
}

function invalidFile(file: InputFile, option: 'file' | 'files' = 'file', cause?: unknown): ToolError {
  return new ToolError('invalid_file', { option, params: { name: file.name.slice(0, 200), format: extensionOf(file.name) }, cause });
}

/** ZIP (xlsx, ods), OLE compound file (xls, encrypted xlsx) or a bare BIFF stream (Excel 2–4). */
function looksLikeWorkbook(b: Uint8Array): boolean {
  if (b.length < 8) return false;
  if (b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04) return true;
  const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
  if (OLE.every((x, i) => b[i] === x)) return true;
  return b[0] === 0x09 && [0x00, 0x02, 0x04, 0x08].includes(b[1]) && b[3] === 0x00;
}

function readWorkbook(file: InputFile, o: ReadOptions): ReadResult {
  if (!looksLikeWorkbook(file.bytes)) throw invalidFile(file, o.option);
  let wb: XLSX.WorkBook;
  try {
    wb = XLSX.read(file.bytes, {
      type: 'array',
      dense: true,
      cellNF: true,
      cellDates: false,
      cellText: false,
      cellHTML: false,
      cellFormula: true,
      cellStyles: false,
      // Stubs let a formula saved without its cached value show up (as `t: 'z'` with `f`), to warn about it.
      sheetStubs: true,
      sheets: o.sheets === 'first' ? 0 : undefined,
    });
  } catch (err) {
    throw invalidFile(file, o.option, err);
  }
  if (!wb.SheetNames || wb.SheetNames.length === 0) throw invalidFile(file, o.option);
  const date1904 = Boolean(wb.Workbook?.WBProps?.date1904);
  const names = o.sheets === 'first' ? wb.SheetNames.slice(0, 1) : wb.SheetNames;
  const tables = names.map((name) => {
    const rows = sheetRows(wb.Sheets[name], { date1904, file: file.name, sheet: name, report: o.report ?? silent });
    const table: SheetTable = withHeader(name, rows, o.hasHeader);
    if (o.hasHeader && rows.length > 0) table.titleCells = rows[0];
    return table;
  });
  return { tables, sheetNames: [...wb.SheetNames] };
}

const ERROR_TEXT: Record<number, string> = {
  0x00: '#NULL!',
  0x07: '#DIV/0!',
  0x0f: '#VALUE!',
  0x17: '#REF!',
  0x1d: '#NAME?',
  0x24: '#NUM!',
  0x2a: '#N/A',
  0x2b: '#GETTING_DATA',
};

interface SheetContext {
  date1904: boolean;
  file: string;
  sheet: string;
  report: Report;
}

// Quoted text, escaped characters and [colour]/[$-locale] sections are not date tokens.
const stripFormat = (fmt: string) => fmt.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, '');

function isDateFormat(fmt: unknown): fmt is string {
  if (typeof fmt !== 'string' || fmt === 'General') return false;
  if (/\[(h+|m+|s+)\]/i.test(fmt)) return false;
  return XLSX.SSF.is_date(fmt) as boolean;
}

/** Rows of a sheet, from its first to its last non-empty row and column; every row as wide as the table. */
function sheetRows(ws: XLSX.WorkSheet | undefined, sc: SheetContext): Row[] {
  const data = (ws?.['!data'] ?? []) as (XLSX.CellObject | undefined)[][];
  let errors = 0;
  let firstError = '';
  let noValue = 0;
  let top = -1;
  let bottom = -1;
  let left = Infinity;
  let right = -1;
  const values: (Cell[] | undefined)[] = new Array(data.length);
  for (let r = 0; r < data.length; r++) {
    const src = data[r];
    if (!src) continue;
    let out: Cell[] | undefined;
    for (let c = 0; c < src.length; c++) {
      const cell = src[c];
      if (!cell) continue;
      let v: Cell = null;
      switch (cell.t) {
        case 'n':
          if (typeof cell.v === 'number') {
            v = isDateFormat(cell.z) && cell.v >= 0 ? serialToDate(cell.v, sc.date1904, /[yd]/i.test(stripFormat(cell.z))) : cell.v;
          }
          break;
        case 's':
          v = typeof cell.v === 'string' && cell.v !== '' ? cell.v : null;
          break;
        case 'b':
          v = Boolean(cell.v);
          break;
        case 'd':
          v = isoCellDate(cell.v);
          break;
        case 'e':
          v = ERROR_TEXT[cell.v as number] ?? (typeof cell.w === 'string' ? cell.w : '#ERROR');
          if (errors++ === 0) firstError = `${columnLetter(c)}${r + 1} ${v}`;
          break;
      }
      if (v === null) {
        if (cell.t === 'z' && cell.f) noValue++;
        continue;
      }
      out ??= [];
      out[c] = v;
      if (top < 0) top = r;
      bottom = r;
      if (c < left) left = c;
      if (c > right) right = c;
    }
    values[r] = out;
  }
  if (errors > 0) sc.report('warning', 'error_cells', { name: sc.file, sheet: sc.sheet, count: errors, first: firstError });
  if (noValue > 0) sc.report('warning', 'formulas_without_value', { name: sc.file, sheet: sc.sheet, count: noValue });
  if (top < 0) return [];
  const width = right - left + 1;
  const rows: Row[] = new Array(bottom - top + 1);
  for (let r = top; r <= bottom; r++) {
    const src = values[r];
    const row: Row = new Array(width);
    for (let c = 0; c < width; c++) row[c] = src?.[left + c] ?? null;
    rows[r - top] = row;
  }
  return rows;
}

// A `t="d"` cell holds ISO text; without a zone it is read as UTC, never in the process time zone.
function isoCellDate(x: unknown): Cell {
  if (x instanceof Date) return Number.isNaN(x.getTime()) ? null : x;
  if (typeof x !== 'string' || x === '') return null;
  const d = new Date(/(Z|[+-]\d\d:?\d\d)$/.test(x) || !x.includes('T') ? x : x + 'Z');
  return Number.isNaN(d.getTime()) ? x : d;
}

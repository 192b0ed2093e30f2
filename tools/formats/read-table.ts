// Reads any admitted input (xlsx, xls, ods, csv) into tables of typed cells.
//
// .xlsx/.xlsm go through the fast path of xlsx/read-xlsx.ts, BIFF8 .xls through that of xls/read-xls.ts; every
// other workbook, and any file a fast path does not fully understand (it says so with `NeedsFallback`), goes
// through SheetJS with raw values, after the container guards of xlsx/guard.ts. All give the same tables: this
// module decides dates from each cell's number format and converts serials in UTC (1904 system included), and
// xlsx/sheet-grid.ts builds the table from the cells any reader found. Rules:
// - formulas give their cached value; a formula saved without one is an empty cell, with a warning;
// - error cells (#N/A, #DIV/0!…) become their text, with a warning naming the first one;
// - the table starts at the first non-empty row and column; trailing empty rows and columns are not part of
//   it, empty rows and columns in between are kept;
// - elapsed-time formats (`[h]:mm`) stay numbers: a duration is not a date, and so do negative numbers and
//   numbers past 9999-12-31 in a date format (Excel shows them as #####);
// - a file whose bytes are not a spreadsheet container (ZIP, OLE, BIFF) is `invalid_file` before SheetJS
//   sees it, because SheetJS would read plain text as CSV;
// - cells with a value count against `maxCells` as they are read (xlsx, xls), after parsing (SheetJS) or after
//   splitting (CSV): past it, `too_complex` naming the limit.
import * as XLSX from 'xlsx';
import * as cptable from 'xlsx/dist/cpexcel.full.mjs';
import { DEFAULT_TOOL_LIMITS } from '../core/config.ts';
import { ToolError } from '../core/errors.ts';
import { extensionOf, type InputFile } from '../core/files.ts';
import { cellText, type Cell, type Row, type TableData } from './model.ts';
import { readCsv } from './csv/read.ts';
import { listText, silent, type Report } from './report.ts';
import type { SheetTable } from './table/titles.ts';
import { guardOle, guardZip, isOle, isZip } from './guard.ts';
import { passwordProtected } from './errors.ts';
import { dateKindOf, numberCell } from './number-format.ts';
import { FormatError, NeedsFallback } from './errors.ts';
import { toolErrorOf } from '../core/format-errors.ts';
import { readXlsx, type XlsxRead } from './xlsx/read.ts';
import { CellBudget, SheetGrid, type GridSink } from './grid.ts';
import { ERROR_TEXT } from './xls/error-codes.ts';
import { readXls } from './xls/read.ts';

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
  /** Cells with a value the file may hold (all sheets read together); `ctx.limits.maxCells` in a tool. */
  maxCells?: number;
}

export interface ReadResult {
  /** One table per sheet read (one for a CSV, named after the file); workbook titles keep their typed cells. */
  tables: SheetTable[];
  /** Every sheet name of a workbook, read or not; empty for a CSV. */
  sheetNames: string[];
}

const WORKBOOK_FORMATS = new Set(['xlsx', 'xls', 'ods', 'xlsm', 'xlsb']);
/** ZIP formats the xlsx fast path reads; the others (and whatever it hands back) go to SheetJS. */
const FAST_FORMATS = new Set(['xlsx', 'xlsm']);

/** `fastXlsx` false: the xlsx fast path has handed this file back already (row-stream.ts), SheetJS reads it. */
export function readTables(file: InputFile, o: ReadOptions, fastXlsx = true): ReadResult {
  const format = extensionOf(file.name);
  const maxCells = o.maxCells ?? DEFAULT_TOOL_LIMITS.maxCells;
  if (format === 'csv') {
    const { table, delimiter } = readCsv(file, { hasHeader: o.hasHeader, detectTypes: o.detectTypes, delimiter: o.delimiter, option: o.option, report: o.report, maxCells });
    return { tables: [{ ...table, delimiter }], sheetNames: [] };
  }
  if (!WORKBOOK_FORMATS.has(format)) throw invalidFile(file, o.option);
  try {
    return readWorkbook(file, o, maxCells, fastXlsx);
  } catch (err) {
    throw fileError(err, file, o.option);
  }
}

/**
 * The xlsx fast path with each sheet's rows handed to a sink as they are read (row-stream.ts): the workbook's
 * sheet names, or undefined when the file does not take that path. A file the fast path hands back raises
 * NeedsFallback (or the fault itself), rows that were not the table after all RestartRead; a verdict on the
 * file is the ToolError readTables would throw.
 */
export function streamXlsx(file: InputFile, o: ReadOptions, stream: (sheet: string) => GridSink): string[] | undefined {
  if (!FAST_FORMATS.has(extensionOf(file.name)) || !looksLikeWorkbook(file.bytes) || !isZip(file.bytes)) return undefined;
  const maxCells = o.maxCells ?? DEFAULT_TOOL_LIMITS.maxCells;
  try {
    return readXlsx(file.bytes, { sheets: o.sheets, maxCells, file: file.name, report: o.report ?? silent, stream }).sheetNames;
  } catch (err) {
    throw fileError(err, file, o.option);
  }
}

/** The first table of a file; when a workbook has more sheets, a warning names the ones not used. */
export function readFirstTable(file: InputFile, o: Omit<ReadOptions, 'sheets'>): SheetTable {
  const { tables, sheetNames } = readTables(file, { ...o, sheets: 'first' });
  reportUnusedSheets(file, tables[0].name, sheetNames, o.report);
  return tables[0];
}

/** The warning naming a workbook's sheets other than the one a tool used. */
export function reportUnusedSheets(file: InputFile, used: string, sheetNames: string[], report: Report = silent): void {
  if (sheetNames.length > 1) report('warning', 'sheets_unused', { name: file.name, sheet: used, sheets: listText(sheetNames.filter((n) => n !== used)) });
}

function invalidFile(file: InputFile, option: 'file' | 'files' = 'file', cause?: unknown): ToolError {
  return new ToolError('invalid_file', { option, params: { name: file.name.slice(0, 200), format: extensionOf(file.name) }, cause });
}

/** A verdict of the package readers as the ToolError the caller gets, naming the file and its option. */
function fileError(err: unknown, file: InputFile, option: 'file' | 'files' = 'file'): unknown {
  if (!(err instanceof FormatError)) return err;
  err.file ??= file.name;
  return toolErrorOf(err, option);
}

/** ZIP (xlsx, ods), OLE compound file (xls, encrypted xlsx) or a bare BIFF stream (Excel 2–4). */
function looksLikeWorkbook(b: Uint8Array): boolean {
  if (b.length < 8) return false;
  if (isZip(b) || isOle(b)) return true;
  return b[0] === 0x09 && [0x00, 0x02, 0x04, 0x08].includes(b[1]) && b[3] === 0x00;
}

function readWorkbook(file: InputFile, o: ReadOptions, maxCells: number, fastXlsx: boolean): ReadResult {
  if (!looksLikeWorkbook(file.bytes)) throw invalidFile(file, o.option);
  const report = o.report ?? silent;
  const fast = { sheets: o.sheets, maxCells, file: file.name, report };
  if (isZip(file.bytes)) {
    if (fastXlsx && FAST_FORMATS.has(extensionOf(file.name))) {
      const read = readFast('xlsx', () => readXlsx(file.bytes, fast));
      if (read) return tablesOf(read, o.hasHeader);
    }
    guardZip(file.bytes);
  } else if (isOle(file.bytes)) {
    if (extensionOf(file.name) === 'xls') {
      const read = readFast('xls', () => readXls(file.bytes, fast));
      if (read) return tablesOf(read, o.hasHeader);
    }
    guardOle(file.bytes);
  }
  return readWithSheetJS(file, o, new CellBudget(maxCells));
}

/** A fast path's read, or undefined when the file is to be read with SheetJS. */
function readFast(format: string, read: () => XlsxRead): XlsxRead | undefined {
  try {
    return read();
  } catch (err) {
    if (err instanceof FormatError || err instanceof ToolError) throw err;
    // A fault of the fast path itself (not a verdict on the file) must not cost the caller the file:
    // SheetJS reads it as it did before the fast path existed, and the fault is logged to be fixed.
    if (!(err instanceof NeedsFallback)) console.error(`${format} fast path failed, read with SheetJS:`, err);
    return undefined;
  }
}

function tablesOf(read: XlsxRead, hasHeader: boolean): ReadResult {
  return { tables: read.sheets.map(({ name, rows }) => tableOf(name, rows, hasHeader)), sheetNames: read.sheetNames };
}

function withHeader(name: string, rows: Row[], hasHeader: boolean): TableData {
  if (!hasHeader) return { name, header: null, rows };
  const [first = [], ...rest] = rows;
  return { name, header: first.map(cellText), rows: rest };
}

function tableOf(name: string, rows: Row[], hasHeader: boolean): SheetTable {
  const table: SheetTable = withHeader(name, rows, hasHeader);
  if (hasHeader && rows.length > 0) table.titleCells = rows[0];
  return table;
}

function readWithSheetJS(file: InputFile, o: ReadOptions, cells: CellBudget): ReadResult {
  let wb = parseWithSheetJS(file, o, o.sheets === 'first' ? 0 : undefined);
  // tools.md §2.3: one table means the first VISIBLE sheet; only when the first is hidden is it worth parsing all.
  const hidden = (i: number) => Boolean(wb.Workbook?.Sheets?.[i]?.Hidden);
  if (o.sheets === 'first' && hidden(0) && wb.SheetNames.length > 1) wb = parseWithSheetJS(file, o, undefined);
  if (!wb.SheetNames || wb.SheetNames.length === 0) throw invalidFile(file, o.option);
  const date1904 = Boolean(wb.Workbook?.WBProps?.date1904);
  const firstVisible = Math.max(0, wb.SheetNames.findIndex((_, i) => !hidden(i)));
  const names = o.sheets === 'first' ? [wb.SheetNames[firstVisible]] : wb.SheetNames;
  const tables = names.map((name) => {
    const grid = new SheetGrid(cells);
    sheetCells(wb.Sheets[name], grid, date1904);
    grid.report(o.report ?? silent, file.name, name);
    return tableOf(name, grid.rows(file.name, name), o.hasHeader);
  });
  return { tables, sheetNames: [...wb.SheetNames] };
}

function parseWithSheetJS(file: InputFile, o: ReadOptions, sheets: number | undefined): XLSX.WorkBook {
  try {
    return XLSX.read(file.bytes, {
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
      sheets,
    });
  } catch (err) {
    if (/password|encrypt/i.test(String((err as Error)?.message))) throw passwordProtected('SheetJS: encrypted workbook');
    throw invalidFile(file, o.option, err);
  }
}

/** Puts the cells SheetJS read into the grid, deciding dates from each cell's number format. */
function sheetCells(ws: XLSX.WorkSheet | undefined, grid: SheetGrid, date1904: boolean): void {
  const data = (ws?.['!data'] ?? []) as (XLSX.CellObject | undefined)[][];
  for (let r = 0; r < data.length; r++) {
    const src = data[r];
    if (!src) continue;
    for (let c = 0; c < src.length; c++) {
      const cell = src[c];
      if (!cell) continue;
      let v: Cell = null;
      switch (cell.t) {
        case 'n':
          if (typeof cell.v === 'number') v = numberCell(cell.v, dateKindOf(cell.z), date1904);
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
          grid.error(r, c, ERROR_TEXT[cell.v as number] ?? (typeof cell.w === 'string' ? cell.w : '#ERROR'));
          continue;
      }
      if (v === null) {
        if (cell.t === 'z' && cell.f) grid.noValue++;
        continue;
      }
      grid.set(r, c, v);
    }
  }
}

/** The cell limit for a CSV, read whole by then: its non-empty cells, and its table with empty ones. */
// A `t="d"` cell holds ISO text; without a zone it is read as UTC, never in the process time zone.
function isoCellDate(x: unknown): Cell {
  if (x instanceof Date) return Number.isNaN(x.getTime()) ? null : x;
  if (typeof x !== 'string' || x === '') return null;
  const d = new Date(/(Z|[+-]\d\d:?\d\d)$/.test(x) || !x.includes('T') ? x : x + 'Z');
  return Number.isNaN(d.getTime()) ? x : d;
}

// The sheet layer's reading calls from before the format library (readTables, readFirstTable: every sheet, or
// the first visible one, read whole) over openWorkbook, so that the tests written against them keep their
// assertions: messages as raw keys, errors as the kernel maps them.
import { DEFAULT_TOOL_LIMITS } from '../../tools/core/config.ts';
import { createContext } from '../../tools/core/execute.ts';
import { mapFormatError } from '../../tools/core/format-errors.ts';
import { openWorkbook, type Cell, type FormatContext, type Report, type SourceFile, type Table, type TableData, type Workbook } from '../../tools/formats/index.ts';

export interface ReadOptions {
  hasHeader: boolean;
  sheets: 'first' | 'all';
  detectTypes: boolean;
  delimiter?: string;
  /** The request field the file came in, for errors. */
  option?: 'file' | 'files';
  report?: Report;
  maxCells?: number;
  /** Read with SheetJS, the reader of last resort. */
  reader?: 'sheetjs';
}

export type SheetTable = TableData & { titleCells?: Cell[]; delimiter?: string };

/** A FormatContext for a reader called outside a run: Spanish names, messages to `report`. */
export function contextOf(o: { report?: Report; maxCells?: number } = {}): FormatContext {
  const ctx = createContext('es', new AbortController().signal, [], { ...DEFAULT_TOOL_LIMITS, maxCells: o.maxCells ?? DEFAULT_TOOL_LIMITS.maxCells });
  return { ...ctx, message: o.report ?? (() => {}) };
}

/** A table read as the model gives it, as the plain table tests compare. */
export function plain(t: Table): SheetTable {
  const out: SheetTable = { name: t.name, header: t.header, rows: t.rows() };
  if (t.titleCells !== undefined) out.titleCells = t.titleCells;
  if (t.delimiter !== undefined) out.delimiter = t.delimiter;
  return out;
}

export function mapped<T>(o: { option?: 'file' | 'files' }, f: () => T): T {
  try {
    return f();
  } catch (err) {
    throw mapFormatError(err, o.option ?? 'file');
  }
}

export function open(file: SourceFile, o: Omit<ReadOptions, 'sheets'> & { sheets?: 'first' | 'all' }): Workbook {
  return openWorkbook(file, contextOf(o), { hasHeader: o.hasHeader, detectTypes: o.detectTypes, delimiter: o.delimiter, sheets: o.sheets, reader: o.reader });
}

/** One table per sheet read (one for a CSV), and every sheet name of a workbook (none for a CSV). */
export function readTables(file: SourceFile, o: ReadOptions): { tables: SheetTable[]; sheetNames: string[] } {
  return mapped(o, () => {
    const book = open(file, o);
    const sheets = o.sheets === 'first' ? [book.first] : book.sheets;
    const tables = sheets.map((s) => plain(s.table()));
    return { tables, sheetNames: book.format === 'csv' ? [] : book.sheets.map((s) => s.name) };
  });
}

/** The first table of a file; when a workbook has more sheets, a warning names the ones not used. */
export function readFirstTable(file: SourceFile, o: Omit<ReadOptions, 'sheets'>): SheetTable {
  return mapped(o, () => plain(open(file, { ...o, sheets: 'first' }).table()));
}

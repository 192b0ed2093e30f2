// The fast path for .xls (BIFF8, Excel 97–2003): the Workbook stream is taken from the compound file by
// cfb.ts and its records read straight from the bytes, instead of SheetJS copying the container into arrays
// of numbers and building an object per record and per cell. The cells go through the same SheetGrid, date
// rule and limits as the xlsx fast path's and SheetJS's.
//
// It reads the globals and then only the chosen sheets' substreams. A workbook it does not fully understand
// (BIFF5 and older, encrypted, chart or macro sheets among the tabs, anything unusual in the container)
// raises `NeedsFallback` before anything is reported, and read-table reads the file with SheetJS instead.
import type { Report } from '../report.ts';
import type { XlsxRead, XlsxReadOptions } from '../xlsx/read.ts';
import { CellBudget, SheetGrid } from '../grid.ts';
import { workbookStream } from './cfb.ts';
import { readGlobals } from './globals.ts';
import { readSheetCells } from './sheet-records.ts';

export function readXls(bytes: Uint8Array, o: XlsxReadOptions): XlsxRead {
  const raw = workbookStream(bytes);
  const stream = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const book = readGlobals(stream);
  const cells = new CellBudget(o.maxCells);
  const held: Parameters<Report>[] = [];
  const hold: Report = (...m) => void held.push(m);
  // One table means the first visible sheet (tools.md §2.3); a workbook whose sheets are all hidden gives its first.
  const chosen = o.sheets === 'first' ? [book.sheets.find((s) => !s.hidden) ?? book.sheets[0]] : book.sheets;
  const tables = chosen.map((sheet) => {
    const i = book.sheets.indexOf(sheet);
    const limit = Math.min(stream.length, i + 1 < book.sheets.length ? book.sheets[i + 1].pos : stream.length);
    const grid = new SheetGrid(cells);
    readSheetCells(stream, sheet.pos, limit, { grid, strings: book.strings, dateKinds: book.dateKinds, date1904: book.date1904 });
    grid.report(hold, o.file, sheet.name);
    return { name: sheet.name, rows: grid.rows(o.file, sheet.name) };
  });
  for (const m of held) o.report(...m);
  return { sheetNames: book.sheets.map((s) => s.name), sheets: tables };
}

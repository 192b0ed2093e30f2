// The fast path for .xlsx/.xlsm: the package is read here, streamed from the ZIP through a tokenizer made for
// SpreadsheetML, instead of SheetJS building every part as a string and every cell as an object.
//
// Measured on 100,000 rows × 10 mixed columns (a 37–47 MB sheet XML, written by this service's writeXlsx and
// by SheetJS with and without shared strings), one read in a fresh process on a shared 2-core machine:
// SheetJS 2.6–3.6 s, needing a 192 MB heap; this reader 0.4–0.75 s. saxes, a general streaming XML parser, took
// 1.0–1.3 s to tokenize that sheet where the tokenizer of xml-scan.ts takes about 0.25 s, which is why the
// tokenizer is specialised. Memory, on the 15 MB SheetJS file (32 MB of sheet XML): the process grows by
// 40–50 MB over the input, of which the table is 19 MB of heap; the rest is the young generation (Node's
// default semi-spaces of 16 MB make 32 MB of it) and old-space slack. The XML is never held whole (zip.ts),
// rows are sized once (sheet-grid.ts), and equal dates and repeated inline texts share one value (sheet-xml.ts).
//
// It reads only the parts the workbook references: content types, workbook and its relationships, styles,
// shared strings and the chosen sheets. A package it does not fully understand raises `NeedsFallback` before
// anything is reported, and read-table reads the file with SheetJS instead; messages are held back until the
// whole read has succeeded for that reason.
import type { Row } from '../model.ts';
import type { Report } from '../report.ts';
import { CellBudget, SheetGrid, StreamGrid, type GridSink } from '../grid.ts';
import { readSharedStrings } from './shared-strings.ts';
import { readSheet } from './sheet-xml.ts';
import { readDateKinds } from './styles.ts';
import { readWorkbookInfo } from './workbook.ts';
import { InflateBudget, openZip } from '../zip/read.ts';

export interface XlsxRead {
  /** Every sheet of the workbook, in tab order. */
  sheetNames: string[];
  /** The sheets read: the first, or all (their rows empty when streamed). */
  sheets: { name: string; rows: Row[] }[];
}

export interface XlsxReadOptions {
  sheets: 'first' | 'all';
  /** Cells with a value the whole file may hold. */
  maxCells: number;
  /** The file's name, for messages. */
  file: string;
  report: Report;
  /** Hands each sheet's rows to a sink as they are read (row-stream.ts) instead of returning them. */
  stream?: (sheet: string) => GridSink;
}

export function readXlsx(bytes: Uint8Array, o: XlsxReadOptions): XlsxRead {
  const zip = openZip(bytes);
  const inflate = new InflateBudget();
  const info = readWorkbookInfo(zip, inflate);
  const dateKinds = readDateKinds(zip, info.styles, inflate);
  const strings = readSharedStrings(zip, info.sharedStrings, inflate);
  const cells = new CellBudget(o.maxCells);
  const held: Parameters<Report>[] = [];
  const hold: Report = (...m) => void held.push(m);
  // One table means the first visible sheet (tools.md §2.3); a workbook whose sheets are all hidden gives its first.
  const chosen = o.sheets === 'first' ? [info.sheets.find((s) => !s.hidden) ?? info.sheets[0]] : info.sheets;
  const sheets = chosen.map((sheet) => {
    const grid = o.stream ? new StreamGrid(cells, o.stream(sheet.name)) : new SheetGrid(cells);
    readSheet(zip, zip.get(sheet.path)!, inflate, { grid, strings, dateKinds, date1904: info.date1904 });
    grid.report(hold, o.file, sheet.name);
    return { name: sheet.name, rows: grid.rows(o.file, sheet.name) };
  });
  for (const m of held) o.report(...m);
  return { sheetNames: info.sheets.map((s) => s.name), sheets };
}

// The reader of .xls (BIFF8, Excel 97–2003): the Workbook stream is taken from the compound file by cfb.ts and its
// records read straight from the bytes, instead of SheetJS copying the container into arrays of numbers and
// building an object per record and per cell. The cells go through the same grid, date rule and limits as the
// xlsx reader's and SheetJS's.
//
// It reads the globals when the workbook opens, and each sheet's substream as it is asked for. Read `full`, cells
// keep their number formats, errors stay errors and tables carry merged ranges and column widths, as SheetJS
// gives them; formulas it does not translate to text: such a sheet goes to SheetJS. A workbook it
// does not fully understand (BIFF5 and older, chart or macro sheets among the tabs, anything unusual
// in the container) raises `NeedsFallback`, and the workbook goes to SheetJS (book.ts).
import type { BookReader, SheetRead } from '../book.ts';
import { gridTable, SheetGrid } from '../grid.ts';
import type { Row, Table } from '../model.ts';
import { soleRead } from '../xlsx/read.ts';
import { workbookStream } from './cfb.ts';
import { decryptStream } from './decrypt.ts';
import { readGlobals, type XlsGlobals } from './globals.ts';
import { readSheetCells } from './sheet-records.ts';

export class XlsReader implements BookReader {
  readonly format = 'xls' as const;
  readonly sheets: XlsGlobals['sheets'];
  private readonly records: Buffer;
  private readonly book: XlsGlobals;

  /** `full`: openWorkbook's `cells: 'full'` (number formats, error cells, merged ranges, column widths). */
  constructor(
    bytes: Uint8Array,
    private readonly full = false,
  ) {
    // Encrypted with Excel's default password: decrypted; with another one: refused (decrypt.ts).
    const stream = workbookStream(bytes);
    const raw = decryptStream(stream) ?? stream;
    this.records = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    this.book = readGlobals(this.records);
    this.sheets = this.book.sheets;
  }

  table(i: number, read: SheetRead): Table {
    const { book, records: stream } = this;
    const sheet = book.sheets[i];
    const limit = Math.min(stream.length, i + 1 < book.sheets.length ? book.sheets[i + 1].pos : stream.length);
    const grid = new SheetGrid(read.cells);
    const layout = readSheetCells(stream, sheet.pos, limit, { grid, strings: book.strings, dateKinds: book.dateKinds, date1904: book.date1904, formats: this.full ? book.formatCodes : null });
    grid.report(read.report, read.file, sheet.name);
    const rows = grid.rows(read.file, sheet.name);
    return gridTable(sheet.name, rows, read.hasHeader, this.full ? { origin: grid.origin, merges: layout.merges, widths: layout.widths } : undefined);
  }
}

/** Every sheet read whole by this reader alone (no fallback): for tests that must know it read the file. */
export function readXls(bytes: Uint8Array, o: { sheets?: 'all'; maxCells: number; file: string; report: SheetRead['report'] }): { sheetNames: string[]; sheets: { name: string; rows: Row[] }[] } {
  const reader = new XlsReader(bytes);
  const read = soleRead(o);
  return { sheetNames: reader.sheets.map((s) => s.name), sheets: reader.sheets.map((s, i) => ({ name: s.name, rows: reader.table(i, read).rows() })) };
}

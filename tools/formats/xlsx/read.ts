// The reader of .xlsx/.xlsm packages: streamed from the ZIP through a tokenizer made for SpreadsheetML, instead of
// SheetJS building every part as a string and every cell as an object.
//
// Measured on 100,000 rows × 10 mixed columns (a 37–47 MB sheet XML, written by this service's writer and by
// SheetJS with and without shared strings), one read in a fresh process on a shared 2-core machine: SheetJS
// 2.6–3.6 s, needing a 192 MB heap; this reader 0.4–0.75 s. saxes, a general streaming XML parser, took 1.0–1.3 s
// to tokenize that sheet where the tokenizer of xml/scan.ts takes about 0.25 s, which is why the tokenizer is
// specialised. Memory, on the 15 MB SheetJS file (32 MB of sheet XML): the process grows by 40–50 MB over the
// input, of which the table is 19 MB of heap; the rest is the young generation and old-space slack. The XML is
// never held whole (zip/read.ts), rows are sized once (grid.ts), and equal dates and repeated inline texts share
// one value (sheet-xml.ts).
//
// It reads only the parts the workbook references: content types, workbook and its relationships, styles,
// shared strings (when the workbook opens) and each sheet as it is asked for. A package it does not fully
// understand raises `NeedsFallback`, and the workbook goes to SheetJS (book.ts). A sheet streamed
// (Sheet.stream) hands its rows on as they are read (grid.ts StreamGrid), deciding the table's columns from its
// first rows; when a later row contradicts them, the read restarts as a whole-sheet read.
//
// Opened `full` (openWorkbook's `cells: 'full'`), each sheet read whole also gives number formats, formulas,
// error cells and its layout (origin, merged ranges, column widths): everything SheetJS's full read gives,
// compared with it cell for cell in test/formats/xlsx-full.test.ts. Copied into an .ods (whose writer needs a
// sheet's widths and merges before its rows), a sheet without merged ranges is handed on as its rows are read
// (rowsAsRead) instead of being held whole.
import type { BookReader, SheetRead } from '../book.ts';
import { Restart } from '../errors.ts';
import { CellBudget, gridTable, PulledSheet, RestartRead, RowsGrid, SheetGrid, StreamGrid } from '../grid.ts';
import type { CellRange, Row, RowStream, SheetRows, Table } from '../model.ts';
import { readSharedStrings } from './shared-strings.ts';
import { sheetSteps, type SheetContext } from './sheet-xml.ts';
import { readCellFormats } from './styles.ts';
import { readWorkbookInfo, type WorkbookInfo } from './workbook.ts';
import { InflateBudget, inflateChunks, openZip, type ZipArchive } from '../zip/read.ts';

/** The local name every merged range's element has (`mergeCell`, `x:mergeCell`…), as bytes. */
const MERGE_TAG = Buffer.from('mergeCell');

export class XlsxReader implements BookReader {
  readonly format = 'xlsx' as const;
  readonly sheets: WorkbookInfo['sheets'];
  private readonly zip: ZipArchive;
  private readonly inflate = new InflateBudget();
  private readonly parts: Omit<SheetContext, 'grid' | 'sheet'>;
  /** Inflated bytes of the workbook's own parts, and of each sheet's last read (a sheet read again counts once). */
  private readonly partsBytes: number;
  private readonly sheetBytes: number[];

  /** Opens the package: its workbook, styles and shared strings. */
  constructor(
    bytes: Uint8Array,
    private readonly full = false,
  ) {
    this.zip = openZip(bytes);
    const info = readWorkbookInfo(this.zip, this.inflate);
    this.sheets = info.sheets;
    const { dateKinds, formats } = readCellFormats(this.zip, info.styles, this.inflate);
    this.parts = {
      dateKinds,
      strings: readSharedStrings(this.zip, info.sharedStrings, this.inflate),
      date1904: info.date1904,
      ...(full ? { formats } : {}),
    };
    this.partsBytes = this.inflate.used;
    this.sheetBytes = this.sheets.map(() => 0);
  }

  table(i: number, read: SheetRead): Table {
    const sheet = this.sheets[i];
    const grid = new SheetGrid(read.cells);
    const layout = this.full ? { merges: [] as CellRange[], widths: [] as (number | null)[] } : undefined;
    for (const _ of this.steps(i, grid, layout));
    grid.report(read.report, read.file, sheet.name);
    const rows = grid.rows(read.file, sheet.name);
    if (!layout) return gridTable(sheet.name, rows, read.hasHeader);
    while (layout.widths.length > 0 && layout.widths[layout.widths.length - 1] === null) layout.widths.pop();
    return gridTable(sheet.name, rows, read.hasHeader, { origin: grid.origin, ...layout });
  }

  stream(i: number, read: SheetRead): RowStream {
    // A full read's layout comes with the whole sheet.
    if (this.full) return this.table(i, read);
    const sheet = this.sheets[i];
    return new PulledSheet(sheet.name, read.hasHeader, (sink) => {
      const grid = new StreamGrid(read.cells, sink);
      const reader = this;
      return (function* pull() {
        try {
          yield* reader.steps(i, grid);
          grid.report(read.report, read.file, sheet.name);
          grid.rows();
        } catch (err) {
          if (err instanceof RestartRead) throw new Restart(err.message, (again: SheetRead) => reader.table(i, again));
          throw err;
        }
      })();
    });
  }

  /**
   * A `full` sheet as its rows are read (copy.ts), for a copy into a workbook whose writer needs the layout
   * first (ods). Only a sheet without merged ranges comes this way: they follow the rows in the sheet's XML, so a
   * first pass over the inflated XML looks for them (its bytes only; any mention sends the sheet to a whole read).
   * Its column widths come before its rows and are read before the first row is handed on.
   */
  rowsAsRead(i: number, read: SheetRead, o: { layoutFirst?: boolean }): SheetRows | null {
    // Asked for only by a writer that needs the layout first; a copy into xlsx reads the sheet whole, as before.
    if (!this.full || !o.layoutFirst || this.mayMerge(i)) return null;
    const name = this.sheets[i].name;
    const grid = new RowsGrid(read.cells, read.file, name);
    const layout = { merges: [] as CellRange[], widths: [] as (number | null)[] };
    const steps = this.steps(i, grid, layout);
    let done = false;
    while (!grid.started && !done) done = steps.next().done === true;
    while (layout.widths.length > 0 && layout.widths[layout.widths.length - 1] === null) layout.widths.pop();
    return {
      widths: layout.widths,
      merges: layout.merges,
      rows: (function* () {
        for (;;) {
          yield* grid.take();
          if (done) break;
          done = steps.next().done === true;
        }
        grid.end();
        yield* grid.take();
        grid.report(read.report, read.file, name);
      })(),
    };
  }

  /** Whether sheet `i`'s XML mentions merged ranges (or cannot be looked through: then it is read whole). */
  private mayMerge(i: number): boolean {
    this.budgetFor(i);
    let tail = Buffer.alloc(0);
    try {
      for (const chunk of inflateChunks(this.zip, this.zip.get(this.sheets[i].path)!, this.inflate)) {
        const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        if (bytes.includes(MERGE_TAG) || Buffer.concat([tail, bytes.subarray(0, MERGE_TAG.length - 1)]).includes(MERGE_TAG)) return true;
        // The last bytes read so far, across chunks: a chunk shorter than the tag carries the tail before it on.
        tail = Buffer.from((bytes.length >= MERGE_TAG.length - 1 ? bytes : Buffer.concat([tail, bytes])).subarray(-(MERGE_TAG.length - 1)));
      }
    } catch {
      return true;
    }
    return false;
  }

  /** The inflate budget as it stands before sheet `i` is read (the other sheets' last reads and the parts). */
  private budgetFor(i: number): number {
    return (this.inflate.used = this.partsBytes + this.sheetBytes.reduce((n, b, j) => (j === i ? n : n + b), 0));
  }

  /** Inflates and scans sheet `i` into `grid`, a chunk per step. */
  private *steps(i: number, grid: SheetGrid, layout?: SheetContext['layout']): Generator<void> {
    const base = this.budgetFor(i);
    yield* sheetSteps(this.zip, this.zip.get(this.sheets[i].path)!, this.inflate, { grid, sheet: this.sheets[i].name, ...this.parts, ...(layout ? { layout } : {}) });
    this.sheetBytes[i] = this.inflate.used - base;
  }
}

/** Every sheet read whole by this reader alone (no fallback): for tests that must know it read the file. */
export function readXlsx(bytes: Uint8Array, o: { sheets?: 'all'; maxCells: number; file: string; report: SheetRead['report'] }): { sheetNames: string[]; sheets: { name: string; rows: Row[] }[] } {
  const reader = new XlsxReader(bytes);
  const read = soleRead(o);
  const sheets = reader.sheets.map((s, i) => ({ name: s.name, rows: reader.table(i, read).rows() }));
  return { sheetNames: reader.sheets.map((s) => s.name), sheets };
}

/** A read outside a workbook (a reader tested alone): every row as data, messages to `report`. */
export function soleRead(o: { maxCells: number; file: string; report: SheetRead['report'] }): SheetRead {
  return {
    hasHeader: false,
    detectTypes: true,
    file: o.file,
    report: o.report,
    cells: new CellBudget(o.maxCells),
    ctx: { limits: { maxCells: o.maxCells }, message: o.report, t: (k) => k, name: (k) => k },
  };
}

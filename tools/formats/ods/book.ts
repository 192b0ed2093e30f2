// The ODS reader (read.ts) as a workbook of the format library. The package is opened once (styles, the
// tables' names and visibility); each sheet is read when asked for, as content.xml is inflated and scanned.
// Read as a table, its cells go through the grid every workbook reader shares (grid.ts), so extent, limits and
// warnings are the same as for .xlsx. Read `full`, numbers and dates keep their number formats (FullCell) and
// error cells stay errors; otherwise cells are plain values and errors their text, as the other readers give
// them. A sheet streamed (Sheet.stream) hands its rows on as they are read (grid.ts StreamGrid), as the xlsx
// reader's do; a `full` sheet copied whole (copy.ts) is handed on as its rows are read (rowsAsRead), in sheet
// coordinates: nothing of it is held but the batch being written.
import type { BookReader, SheetRead } from '../book.ts';
import { Restart } from '../errors.ts';
import { checkExtent, gridTable, PulledSheet, RestartRead, SheetGrid, StreamGrid } from '../grid.ts';
import { CellError, FullCell, type AnyCell, type Cell, type CellRange, type RowStream, type SheetRows, type Table, type Visibility } from '../model.ts';
import { OdsBook, verdicts, type OdsSheet } from './read.ts';

export class OdsReader implements BookReader {
  readonly format = 'ods' as const;
  readonly sheets: { name: string; visibility: Visibility }[];
  private readonly book: OdsBook;

  /** Only for a `full` read: a copy of the workbook is its only user. */
  readonly rowsAsRead?: (i: number, read: SheetRead, o: { layoutFirst?: boolean }) => SheetRows | null;

  constructor(bytes: Uint8Array, maxCells: number, private readonly full: boolean) {
    this.book = verdicts(() => new OdsBook(bytes, maxCells));
    this.sheets = this.book.tables.map((s) => ({ name: s.name, visibility: s.hidden ? 'hidden' : 'visible' }));
    // A table's widths and merges are known only once its rows are read.
    if (full) this.rowsAsRead = (i, read, o) => (o.layoutFirst ? null : this.copyRows(i, read));
  }

  table(i: number, read: SheetRead): Table {
    const name = this.sheets[i].name;
    const grid = new SheetGrid(read.cells);
    const fill = this.fill(i, grid);
    let next: IteratorResult<void, Omit<OdsSheet, 'rows'>>;
    while (!(next = fill.next()).done);
    const sheet = next.value;
    this.report(sheet, grid, read);
    const table = grid.rows(read.file, name);
    const widths = sheet.columnWidths.map((w) => w ?? null);
    return gridTable(name, table, read.hasHeader, this.full ? { origin: grid.origin, merges: sheet.merges, widths } : undefined);
  }

  stream(i: number, read: SheetRead): RowStream {
    // A full read's layout comes with the whole sheet.
    if (this.full) return this.table(i, read);
    const reader = this;
    return new PulledSheet(this.sheets[i].name, read.hasHeader, (sink) => {
      const grid = new StreamGrid(read.cells, sink);
      return (function* pull() {
        try {
          reader.report(yield* reader.fill(i, grid), grid, read);
          grid.rows();
        } catch (err) {
          if (err instanceof RestartRead) throw new Restart(err.message, (again: SheetRead) => reader.table(i, again));
          throw err;
        }
      })();
    });
  }

  /** Table `i`'s cells put in `grid` as they are read, a batch of rows a step; the table's facts at the end. */
  private *fill(i: number, grid: SheetGrid): Generator<void, Omit<OdsSheet, 'rows'>> {
    const rows = this.book.read(i);
    let r = 0;
    for (;;) {
      const next = verdicts(() => rows.next());
      if (next.done) return next.value;
      for (const row of next.value) {
        for (let c = 0; c < row.length; c++) {
          const v = row[c];
          if (v === null || v === '') continue;
          if (this.full) grid.set(r, c, v as Exclude<Cell, null>);
          else if (v instanceof CellError) grid.error(r, c, v.text);
          else if (v instanceof FullCell) {
            if (v.value !== null && !(v.value instanceof CellError)) grid.set(r, c, v.value);
          } else grid.set(r, c, v);
        }
        r++;
      }
      yield;
    }
  }

  /** The sheet's warnings, once it is read. */
  private report(sheet: Omit<OdsSheet, 'rows'>, grid: SheetGrid, read: SheetRead): void {
    if (sheet.formulas > 0) read.report('warning', 'formulas_as_values', { name: read.file, sheet: sheet.name, count: sheet.formulas });
    grid.report(read.report, read.file, sheet.name);
  }

  private copyRows(i: number, read: SheetRead): SheetRows {
    const widths: (number | undefined)[] = [];
    const merges: CellRange[] = [];
    const name = this.sheets[i].name;
    const book = this.book;
    return {
      widths,
      merges,
      rows: (function* () {
        const rows = book.read(i);
        // The table's extent, as the grid would find it (a table read whole past it is refused the same way).
        let top = -1;
        let left = Infinity;
        let right = -1;
        let r = 0;
        let next: IteratorResult<AnyCell[][], Omit<OdsSheet, 'rows'>>;
        while (!(next = verdicts(() => rows.next())).done) {
          const batch = next.value;
          for (const row of batch) {
            let last = row.length - 1;
            while (last >= 0 && (row[last] === null || row[last] === '')) last--;
            if (last >= 0) {
              let first = 0;
              while (row[first] === null || row[first] === '') first++;
              if (top < 0) top = r;
              if (first < left) left = first;
              if (last > right) right = last;
              checkExtent(r - top + 1, right - left + 1, read.cells, read.file, name);
            }
            r++;
          }
          yield batch;
        }
        const sheet = next.value;
        for (const w of sheet.columnWidths) widths.push(w);
        for (const m of sheet.merges) merges.push(m);
        if (sheet.formulas > 0) read.report('warning', 'formulas_as_values', { name: read.file, sheet: name, count: sheet.formulas });
      })(),
    };
  }
}

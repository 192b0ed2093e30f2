// The ODS reader (read.ts) as a workbook of the format library: the package is read once, whole (its tables
// are held as read.ts gives them: repeated empty rows and cells never expanded), and each sheet's cells go
// through the grid every workbook reader shares (grid.ts), so extent, limits and warnings are the same as
// for .xlsx. Read `full`, numbers and dates keep their number formats (FullCell) and error cells stay errors;
// otherwise cells are plain values and errors their text, as the other readers give them.
import type { BookReader, SheetRead } from '../book.ts';
import { gridTable, SheetGrid } from '../grid.ts';
import { CellError, FullCell, type Cell, type Table, type Visibility } from '../model.ts';
import { readOds, type OdsSheet } from './read.ts';

export class OdsReader implements BookReader {
  readonly format = 'ods' as const;
  readonly sheets: { name: string; visibility: Visibility }[];
  private readonly read: OdsSheet[];

  constructor(bytes: Uint8Array, maxCells: number, private readonly full: boolean) {
    this.read = readOds(bytes, { maxCells }).sheets;
    this.sheets = this.read.map((s) => ({ name: s.name, visibility: s.hidden ? 'hidden' : 'visible' }));
  }

  table(i: number, read: SheetRead): Table {
    const sheet = this.read[i];
    const grid = new SheetGrid(read.cells);
    const rows = sheet.rows[0];
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      for (let c = 0; c < row.length; c++) {
        const v = row[c];
        if (v === null || v === '') continue;
        if (this.full) grid.set(r, c, v as Exclude<Cell, null>);
        else if (v instanceof CellError) grid.error(r, c, v.text);
        else if (v instanceof FullCell) {
          if (v.value !== null && !(v.value instanceof CellError)) grid.set(r, c, v.value);
        } else grid.set(r, c, v);
      }
    }
    if (sheet.formulas > 0) read.report('warning', 'formulas_as_values', { name: read.file, sheet: sheet.name, count: sheet.formulas });
    grid.report(read.report, read.file, sheet.name);
    const table = grid.rows(read.file, sheet.name);
    const widths = sheet.columnWidths.map((w) => w ?? null);
    return gridTable(sheet.name, table, read.hasHeader, this.full ? { origin: grid.origin, merges: sheet.merges, widths } : undefined);
  }
}

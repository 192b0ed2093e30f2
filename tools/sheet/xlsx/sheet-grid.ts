// The cells of one sheet as they are read, and the table they make: both workbook readers (the xlsx fast
// path and SheetJS) put their cells here, so extent, padding, limits and warnings are decided in one place.
//
// Rules (tools.md §2.3):
// - the table runs from the first to the last non-empty row and column; empty rows and columns inside are kept;
// - rows are kept sparse while reading (a lone cell at XFD1048576 costs one cell) and padded to the table's
//   width only at the end;
// - every cell with a value counts against the cell limit as it is read, across all sheets of the file, so a
//   file past it is refused before the rest is read; the padded table may hold at most EXTENT_FACTOR times
//   that many cells, empty ones included (an empty cell costs a pointer, a value several times more), so two
//   stray cells at A1 and XFD1048576 cannot make sixteen billion;
// - error cells are their text, counted in one warning naming the first (in row order); formulas saved without
//   a value are empty, counted in another.
import { columnLetter, type Cell, type Row } from '../../core/table.ts';
import type { Report } from '../report.ts';
import { PackageError } from './package-error.ts';

export const EXTENT_FACTOR = 4;

/** Cells with a value read from one file, against the cell limit. */
export class CellBudget {
  used = 0;
  constructor(readonly max: number) {}
}

export class SheetGrid {
  private readonly values: (Cell[] | undefined)[] = [];
  private top = -1;
  private bottom = -1;
  private left = Infinity;
  private right = -1;
  private errors = 0;
  private errorRow = Infinity;
  private errorCol = Infinity;
  private firstError = '';
  /** Formulas saved without their value. */
  noValue = 0;
  /** The row cells were last added to, and how many it got. */
  private lastRow = -1;
  private lastCount = 0;

  constructor(private readonly budget: CellBudget) {}

  /** A non-empty cell at 0-based row `r`, column `c`; a later cell at the same place replaces it. */
  set(r: number, c: number, v: Exclude<Cell, null>): void {
    if (++this.budget.used > this.budget.max) {
      throw new PackageError('too_complex', 'cell limit', { messageKey: 'error-details.cells', params: { reason: 'cells', max: this.budget.max } });
    }
    let row = this.values[r];
    if (row === undefined) row = this.values[r] = this.newRow();
    if (r !== this.lastRow) {
      this.lastRow = r;
      this.lastCount = 0;
    }
    this.lastCount++;
    row[c] = v;
    if (this.top < 0 || r < this.top) this.top = r;
    if (r > this.bottom) this.bottom = r;
    if (c < this.left) this.left = c;
    if (c > this.right) this.right = c;
  }

  /**
   * A new row, as long as the last one when that one was dense (most rows of a table are as wide as the one
   * before): a row grown from `[]` holds 17 slots for 10 cells, 56 bytes a row more than one sized once. A sparse
   * last row (a stray cell far right) sizes nothing, so it cannot make every row that wide.
   */
  private newRow(): Cell[] {
    const last = this.lastRow >= 0 ? this.values[this.lastRow] : undefined;
    return last !== undefined && last.length <= 2 * this.lastCount + 8 ? new Array<Cell>(last.length) : [];
  }

  /** An error cell: kept as its text, and counted. */
  error(r: number, c: number, text: string): void {
    this.set(r, c, text);
    this.errors++;
    if (r < this.errorRow || (r === this.errorRow && c < this.errorCol)) {
      this.errorRow = r;
      this.errorCol = c;
      this.firstError = `${columnLetter(c)}${r + 1} ${text}`;
    }
  }

  /** The warnings this sheet deserves, in a fixed order. */
  report(report: Report, file: string, sheet: string): void {
    if (this.errors > 0) report('warning', 'error_cells', { name: file, sheet, count: this.errors, first: this.firstError });
    if (this.noValue > 0) report('warning', 'formulas_without_value', { name: file, sheet, count: this.noValue });
  }

  /** The table: every row as wide as the widest. */
  rows(file: string, sheet: string): Row[] {
    if (this.top < 0) return [];
    const height = this.bottom - this.top + 1;
    const width = this.right - this.left + 1;
    if (height * width > this.budget.max * EXTENT_FACTOR) {
      throw new PackageError('too_complex', 'sheet extent', {
        messageKey: 'error-details.sheet-extent',
        params: { reason: 'cells', name: file, sheet, rows: height, columns: width },
      });
    }
    const out: Row[] = new Array(height);
    for (let r = 0; r < height; r++) {
      const src = this.values[this.top + r];
      if (src !== undefined && this.left === 0) {
        // The usual table starts at column A: its rows are completed where they are, not copied.
        for (let c = 0; c < width; c++) if (src[c] === undefined) src[c] = null;
        out[r] = src;
        continue;
      }
      const row: Row = new Array(width);
      for (let c = 0; c < width; c++) row[c] = src?.[this.left + c] ?? null;
      out[r] = row;
    }
    this.values.length = 0;
    return out;
  }
}

// The cells of one sheet as they are read, and the table they make: every workbook reader (xlsx, xls and
// SheetJS) puts its cells here, so extent, padding, limits and warnings are decided in one place, and all give
// the same tables (test/formats/ compares the fast readers with SheetJS on every fixture).
//
// What a workbook reader gives for its cells, whichever it is:
// - formulas give their cached value; a formula saved without one is an empty cell, with a warning;
// - error cells (#N/A, #DIV/0!…) become their text, with a warning naming the first one;
// - a number is a date when its cell's number format is a date format (number-format.ts), converted in UTC
//   (1904 system included); elapsed-time formats (`[h]:mm`) stay numbers, as do negative numbers and numbers
//   past 9999-12-31 in a date format (Excel shows them as #####).
//
// Rules of the table (tools.md §2.3):
// - the table runs from the first to the last non-empty row and column; empty rows and columns inside are kept;
// - rows are kept sparse while reading (a lone cell at XFD1048576 costs one cell) and padded to the table's
//   width only at the end;
// - every cell with a value counts against the cell limit as it is read, across all sheets of the file, so a
//   file past it is refused before the rest is read; the padded table may hold at most EXTENT_FACTOR times
//   that many cells, empty ones included (an empty cell costs a pointer, a value several times more), so two
//   stray cells at A1 and XFD1048576 cannot make sixteen billion;
// - error cells are their text, counted in one warning naming the first (in row order); formulas saved without
//   a value are empty, counted in another.
//
// StreamGrid, below, gives the same table a batch of rows at a time instead of keeping it (Sheet.stream);
// RowsGrid gives a sheet's rows as they are, in sheet coordinates, for a copy of the workbook (SheetRows).
import { ArrayTable, PulledRows } from './batch.ts';
import { BATCH_ROWS, cellText, columnLetter, type Cell, type Row, type RowStream, type Table, type TableLayout } from './model.ts';
import type { Report } from './report.ts';
import { FormatError } from './errors.ts';

export const EXTENT_FACTOR = 4;

/** Excel's grid: rows and columns a sheet may have. */
export const GRID_ROWS = 1_048_576;
export const GRID_COLUMNS = 16_384;

/** A cell or row reference outside the grid (A1:XFD1048576): the file is broken, and says where. */
export function outsideGrid(ref: string, sheet: string): FormatError {
  return new FormatError('cell-outside-grid', `reference ${ref} outside the grid`, { params: { ref, sheet }, where: ref });
}

const pastCellLimit = (budget: CellBudget) =>
  new FormatError('cells', 'cell limit', { params: { reason: 'cells', max: budget.max } });

export const pastExtent = (height: number, width: number, budget: { max: number }) => height * width > budget.max * EXTENT_FACTOR;

/** Refuses a sheet of `file` whose table, `rows` × `columns` as far as it is known, is past the extent allowed. */
export function checkExtent(rows: number, columns: number, budget: { max: number }, file: string, sheet: string): void {
  if (pastExtent(rows, columns, budget)) throw new FormatError('sheet-extent', 'sheet extent', { params: { reason: 'cells', name: file, sheet, rows, columns } });
}

/** Cells with a value read from one file, against the cell limit. */
export class CellBudget {
  used = 0;
  constructor(readonly max: number) {}
}

export class SheetGrid {
  private readonly values: (Cell[] | undefined)[] = [];
  private top = -1;
  private bottom = -1;
  protected left = Infinity;
  protected right = -1;
  private errors = 0;
  private errorRow = Infinity;
  private errorCol = Infinity;
  private firstError = '';
  /** Formulas saved without their value. */
  noValue = 0;
  /** The row cells were last added to, and how many it got. */
  private lastRow = -1;
  private lastCount = 0;

  constructor(protected readonly budget: CellBudget) {}

  /** A non-empty cell at 0-based row `r`, column `c`; a later cell at the same place replaces it. */
  set(r: number, c: number, v: Exclude<Cell, null>): void {
    if (++this.budget.used > this.budget.max) throw pastCellLimit(this.budget);
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

  /** 0-based sheet row and column of the table's first cell (A1 for an empty sheet). */
  get origin(): { row: number; col: number } {
    return this.top < 0 ? { row: 0, col: 0 } : { row: this.top, col: this.left };
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
    checkExtent(height, width, this.budget, file, sheet);
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

/**
 * Raised by a StreamGrid when the rows it has handed on turn out not to be the table (a cell left or right of
 * the columns decided, a row before one already handed on, an extent past the limit): the caller reads the
 * file again as a table, which gives the right table or the right error.
 */
export class RestartRead extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RestartRead';
  }
}

/** Where a StreamGrid hands its table: `open` once with the table's width, then its rows in order, then `close`. */
export interface GridSink {
  open(width: number): void;
  /** Rows as wide as the table, each a fresh array the sink may keep. */
  rows(batch: Row[]): void;
  close(): void;
}

/** Rows with a value read before the table's columns are decided: a title row alone often misleads. */
export const GATHER_ROWS = 1000;

/**
 * A SheetGrid that hands the table on as it is read instead of keeping it: the same table, cell limit and
 * warnings, for a sheet whose rows come in order (as every writer saves them). The first and last columns are
 * decided from the first GATHER_ROWS rows with a value; empty rows are handed on only once a row with a value
 * follows them, so trailing ones never are. Whatever contradicts what was handed on raises RestartRead.
 */
export class StreamGrid extends SheetGrid {
  /** The row being filled, its number, and whether columns are still being gathered (rows kept sparse). */
  private row: Cell[] | null = null;
  private cur = -1;
  private gathered: Cell[][] | null = [];
  private gatheredAt: number[] = [];
  private first = -1;
  /** The next row to hand on: rows before it have been. */
  private next = -1;
  private width = 0;
  private batch: Row[] = [];

  constructor(
    budget: CellBudget,
    private readonly sink: GridSink,
  ) {
    super(budget);
  }

  override set(r: number, c: number, v: Exclude<Cell, null>): void {
    if (++this.budget.used > this.budget.max) throw pastCellLimit(this.budget);
    if (r !== this.cur) this.moveTo(r);
    if (this.gathered === null) {
      const i = c - this.left;
      if (i < 0 || i >= this.width) throw new RestartRead('a cell outside the columns decided');
      this.row![i] = v;
    } else {
      this.row![c] = v;
      if (c < this.left) this.left = c;
      if (c > this.right) this.right = c;
    }
  }

  /** Ends the sheet: its last rows go to the sink; none is kept, so the table returned is empty. */
  override rows(): Row[] {
    if (this.row !== null) this.endRow();
    if (this.gathered !== null) this.decide();
    this.flush();
    this.sink.close();
    return [];
  }

  private moveTo(r: number): void {
    if (r < this.cur) throw new RestartRead('a row before one already read');
    if (this.row !== null) this.endRow();
    this.cur = r;
    this.row = this.gathered === null ? new Array<Cell>(this.width) : [];
  }

  private endRow(): void {
    const row = this.row!;
    this.row = null;
    if (this.gathered !== null) {
      this.gathered.push(row);
      this.gatheredAt.push(this.cur);
      if (this.gathered.length >= GATHER_ROWS) this.decide();
      return;
    }
    for (let i = 0; i < this.width; i++) if (row[i] === undefined) row[i] = null;
    this.hand(this.cur, row);
  }

  /** Fixes the table's columns from the rows gathered, and hands those on. */
  private decide(): void {
    const rows = this.gathered!;
    const at = this.gatheredAt;
    this.gathered = null;
    this.gatheredAt = [];
    this.first = this.next = at.length > 0 ? at[0] : 0;
    this.width = at.length > 0 ? this.right - this.left + 1 : 0;
    // Before any row is padded: a few far cells must not make rows of thousands of empty ones first.
    if (at.length > 0 && pastExtent(at[at.length - 1] - this.first + 1, this.width, this.budget)) throw new RestartRead('sheet extent past the limit');
    this.sink.open(this.width);
    for (let k = 0; k < rows.length; k++) {
      const src = rows[k];
      rows[k] = [];
      let row: Row;
      if (this.left === 0) {
        for (let c = 0; c < this.width; c++) if (src[c] === undefined) src[c] = null;
        row = src;
      } else {
        row = new Array<Cell>(this.width);
        for (let c = 0; c < this.width; c++) row[c] = src[this.left + c] ?? null;
      }
      this.hand(at[k], row);
    }
  }

  /** Row `r` of the sheet, after the empty ones since the last handed on. */
  private hand(r: number, row: Row): void {
    if (pastExtent(r - this.first + 1, this.width, this.budget)) throw new RestartRead('sheet extent past the limit');
    for (; this.next < r; this.next++) this.push(new Array<Cell>(this.width).fill(null));
    this.push(row);
    this.next = r + 1;
  }

  private push(row: Row): void {
    this.batch.push(row);
    if (this.batch.length >= BATCH_ROWS) this.flush();
  }

  private flush(): void {
    if (this.batch.length === 0) return;
    const batch = this.batch;
    this.batch = [];
    this.sink.rows(batch);
  }
}

/**
 * A sheet's rows pulled as its part is read (xlsx, ods). Its head (titles, width) is known once the grid has decided the
 * table's columns: asking for it reads ahead that far, and the rows read meanwhile wait in a queue.
 */
export class PulledSheet extends PulledRows implements RowStream {
  readonly total = null;
  private head: { header: string[] | null; titleCells?: Row; width: number } | null = null;

  constructor(
    readonly name: string,
    private readonly hasHeader: boolean,
    start: (sink: GridSink) => Iterator<void>,
  ) {
    super();
    this.pull = start({
      open: (width) => {
        if (!this.hasHeader) this.head = { header: null, width };
        else if (width === 0) this.head = { header: [], width };
      },
      rows: (batch) => {
        if (this.head === null) {
          // The title row is the first row of the table, split off as a whole-sheet read splits it.
          const titles = batch[0];
          this.head = { header: titles.map(cellText), titleCells: titles, width: titles.length };
          batch = batch.slice(1);
          if (batch.length === 0) return;
        }
        this.queue.push(batch);
      },
      close: () => {},
    });
  }

  private known() {
    while (this.head === null && this.step());
    return this.head ?? { header: this.hasHeader ? [] : null, width: 0 };
  }

  get header(): string[] | null {
    return this.known().header;
  }

  get titleCells(): Row | undefined {
    return this.known().titleCells;
  }

  get width(): number {
    return this.known().width;
  }

  protected override beforeRows(): void {
    this.known();
  }
}

/** A sheet's rows as read into a grid, as the model's table: the first row split off as titles when asked. */
export function gridTable(name: string, rows: Row[], hasHeader: boolean, layout?: TableLayout): Table {
  const facts = layout ? { name, layout } : { name };
  if (!hasHeader) return new ArrayTable({ ...facts, header: null }, rows);
  const [first = [], ...rest] = rows;
  return new ArrayTable({ ...facts, header: first.map(cellText), ...(rows.length > 0 ? { titleCells: rows[0] } : {}) }, rest);
}

/** Raised by a RowsGrid when a row comes after one it has handed on: the sheet has to be read whole instead. */
export class RowsOutOfOrder extends Error {
  constructor(row: number) {
    super(`row ${row + 1} after a later one`);
    this.name = 'RowsOutOfOrder';
  }
}

const NO_CELLS = Object.freeze([]) as unknown as Cell[];

/**
 * A SheetGrid that hands a sheet on as its rows are read, in sheet coordinates (SheetRows, for a copy of the
 * workbook): from the sheet's first row, each row ending at its last value, empty rows as one shared empty
 * array. The cell limit counts as for a table and the extent is checked as rows come; a row before one already
 * read raises RowsOutOfOrder, since what was handed on cannot be taken back.
 */
export class RowsGrid extends SheetGrid {
  private row: Cell[] | null = null;
  private cur = -1;
  /** The next sheet row to hand on, and the first with a value (-1 before any). */
  private next = 0;
  private first = -1;
  private batch: Cell[][] = [];
  private ready: Cell[][][] = [];

  constructor(
    budget: CellBudget,
    private readonly file: string,
    private readonly sheet: string,
  ) {
    super(budget);
  }

  /** Whether a cell has been read (the sheet's layout before `<sheetData>` is then complete). */
  get started(): boolean {
    return this.cur >= 0;
  }

  override set(r: number, c: number, v: Exclude<Cell, null>): void {
    if (++this.budget.used > this.budget.max) throw pastCellLimit(this.budget);
    if (r !== this.cur) {
      if (r < this.cur) throw new RowsOutOfOrder(r);
      this.endRow();
      this.cur = r;
      this.row = [];
    }
    this.row![c] = v;
    if (c < this.left) this.left = c;
    if (c > this.right) this.right = c;
  }

  /** The batches of rows complete so far (each given once). */
  take(): Cell[][][] {
    const out = this.ready;
    this.ready = [];
    return out;
  }

  /** Ends the sheet: its last rows become ready. */
  end(): void {
    this.endRow();
    if (this.batch.length > 0) this.ready.push(this.batch);
    this.batch = [];
  }

  private endRow(): void {
    const row = this.row;
    if (row === null) return;
    this.row = null;
    const r = this.cur;
    if (this.first < 0) this.first = r;
    // Before any row is padded: a few far cells must not make rows of thousands of empty ones first.
    checkExtent(r - this.first + 1, this.right - this.left + 1, this.budget, this.file, this.sheet);
    for (let c = 0; c < row.length; c++) if (row[c] === undefined) row[c] = null;
    for (; this.next < r; this.next++) this.push(NO_CELLS);
    this.push(row);
    this.next = r + 1;
  }

  private push(row: Cell[]): void {
    this.batch.push(row);
    if (this.batch.length >= BATCH_ROWS) {
      this.ready.push(this.batch);
      this.batch = [];
    }
  }
}

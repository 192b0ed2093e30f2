// Rows in memory as the model's batches and tables, and the first rows a writer keeps for the preview.
import { BATCH_ROWS, PREVIEW_ROWS, widthOf, type AnyCell, type Cell, type Row, type RowBatch, type Table, type TableData, type TableHead, type TableLayout, type TablePreview, type Written } from './model.ts';

/**
 * Rows handed on as a reader's generator makes them (a sheet's part or a CSV read in one pass): each step of
 * `pull` may queue batches, which wait there until the rows are iterated. A subclass sets `pull` in its
 * constructor, and `beforeRows` when something must be known before the first batch goes.
 */
export abstract class PulledRows {
  rowCount = 0;
  protected readonly queue: Row[][] = [];
  protected pull!: Iterator<void>;
  protected ended = false;

  /** One step of the reader; false once it has ended. */
  protected step(): boolean {
    if (this.ended) return false;
    if (this.pull.next().done) this.ended = true;
    return !this.ended;
  }

  protected beforeRows(): void {}

  *[Symbol.iterator](): Iterator<RowBatch> {
    this.beforeRows();
    for (;;) {
      while (this.queue.length > 0) {
        const batch = this.queue.shift()!;
        this.rowCount += batch.length;
        yield new ArrayBatch(batch);
      }
      if (this.ended) return;
      this.step();
    }
  }
}

/** Rows already made, as a batch. */
export class ArrayBatch<C = Cell> implements RowBatch<C> {
  constructor(private readonly list: Row<C>[]) {}

  get length(): number {
    return this.list.length;
  }

  rows(): Row<C>[] {
    return this.list;
  }

  column(col: number): C[] {
    return this.list.map((r) => r[col] ?? (null as C));
  }

  slice(from: number, to: number): RowBatch<C> {
    return new ArrayBatch(this.list.slice(from, to));
  }

  pick(at: ArrayLike<number>): RowBatch<C> {
    const out = new Array<Row<C>>(at.length);
    for (let i = 0; i < at.length; i++) out[i] = this.list[at[i]];
    return new ArrayBatch(out);
  }

  without(col: number): RowBatch<C> {
    return new ArrayBatch(this.list.map((r) => r.filter((_, i) => i !== col)));
  }
}

/** What a table made from rows in memory says about itself besides its rows. */
export interface TableFacts {
  name: string;
  header: string[] | null;
  titleCells?: Cell[];
  delimiter?: string;
  layout?: TableLayout;
}

/** A table whose rows are in memory: a sheet read whole, or rows a tool made. */
export class ArrayTable<C = Cell> implements Table<C> {
  readonly name: string;
  readonly header: string[] | null;
  readonly titleCells?: Cell[];
  readonly delimiter?: string;
  readonly layout?: TableLayout;
  readonly width: number;

  constructor(
    facts: TableFacts,
    private list: Row<C>[],
    width?: number,
  ) {
    this.name = facts.name;
    this.header = facts.header;
    if (facts.titleCells !== undefined) this.titleCells = facts.titleCells;
    if (facts.delimiter !== undefined) this.delimiter = facts.delimiter;
    if (facts.layout !== undefined) this.layout = facts.layout;
    this.width = width ?? widthOf({ header: facts.header, rows: list });
  }

  get rowCount(): number {
    return this.list.length;
  }

  get total(): number {
    return this.list.length;
  }

  rows(): Row<C>[] {
    return this.list;
  }

  *[Symbol.iterator](): Iterator<RowBatch<C>> {
    const rows = this.list;
    for (let at = 0; at < rows.length; at += BATCH_ROWS) yield new ArrayBatch(rows.slice(at, at + BATCH_ROWS));
  }

  slice(from: number, to: number): RowBatch<C> {
    return new ArrayBatch(this.list.slice(from, to));
  }

  pick(at: ArrayLike<number>): RowBatch<C> {
    return new ArrayBatch(this.list).pick(at);
  }

  /**
   * The batches, each row let go once handed on: the collector can take what is done while the rest is
   * used (stacking several tables). The table is empty afterwards.
   */
  *drain(): Generator<RowBatch<C>> {
    const rows = this.list;
    this.list = [];
    for (let at = 0; at < rows.length; at += BATCH_ROWS) {
      yield new ArrayBatch(rows.slice(at, at + BATCH_ROWS));
      rows.fill(undefined as unknown as Row<C>, at, at + BATCH_ROWS);
    }
  }
}

/** A table in memory as the model's Table. */
export function tableOf<C = Cell>(data: TableData<C>): Table<C> {
  return new ArrayTable<C>(data, data.rows);
}

/** The batches of a table, let go as they are handed on when it holds its rows (ArrayTable.drain). */
export function drainBatches<C>(table: Iterable<RowBatch<C>>): Iterable<RowBatch<C>> {
  return table instanceof ArrayTable ? table.drain() : table;
}

/** The rows of a batch, or of an array of rows, as given to a writer. */
export function rowsOf<C>(batch: RowBatch<C> | readonly (readonly C[])[]): readonly (readonly C[])[] {
  return Array.isArray(batch) ? batch : (batch as RowBatch<C>).rows();
}

/** The first PREVIEW_ROWS rows a writer is given, kept for the preview the kernel builds. */
export class FirstRows {
  readonly rows: Row<AnyCell>[] = [];

  take(batch: RowBatch<AnyCell> | readonly (readonly AnyCell[])[]): void {
    const need = PREVIEW_ROWS - this.rows.length;
    if (need <= 0 || batch.length === 0) return;
    const rows = Array.isArray(batch) ? batch : batch.length <= need ? (batch as RowBatch<AnyCell>).rows() : (batch as RowBatch<AnyCell>).slice(0, need).rows();
    for (let i = 0; i < rows.length && this.rows.length < PREVIEW_ROWS; i++) this.rows.push(rows[i] as Row<AnyCell>);
  }

  /** The preview, its rows as wide as the table's widest (known only at the end). */
  preview(name: string, header: string[] | null, width: number, rowCount: number): TablePreview {
    const rows = this.rows.map((r) => (r.length >= width ? r : [...r, ...new Array<AnyCell>(width - r.length).fill(null)]));
    return { name, header, rows, width, rowCount };
  }
}

/** What a writer that lays its table out whole (HTML, XML, SQL, PDF) gives: its bytes and its table's first rows. */
export function writtenOf(bytes: Uint8Array, head: Pick<TableHead, 'name' | 'header' | 'width'>, rows: readonly (readonly AnyCell[])[]): Written {
  const first = new FirstRows();
  first.take(rows);
  return { bytes, preview: first.preview(head.name, head.header, head.width, rows.length) };
}

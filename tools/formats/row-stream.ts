// Tables handed to a tool a batch of rows at a time, for tools that write rows as they come (excel-to-csv,
// split-rows): the table is never held whole when the xlsx fast path reads it, so a 1,000,000-row sheet costs
// its output and a few thousand rows, not its every cell.
//
// The rows are exactly readTables's: the same table, header, typed title cells, warnings (in the same order,
// given once the read is done) and limits. xlsx/sheet-grid.ts `StreamGrid` hands rows on while the sheet is
// read, deciding the table's columns from its first rows; when a later row contradicts them (a cell further
// left or right, rows out of order, an extent past the limit) or the fast path hands the file back, the
// consumer is told to `reset` and the file is read again as a table. Every other format (.xls, SheetJS's,
// CSV) is read as a table and handed on in the same batches, so that a tool has one code path.
//
// On top of it: writeTables (each table written as it is read, with a preview) and streamParts (the first
// table in parts of so many rows, each written when full).
import { ToolError } from '../core/errors.ts';
import { PREVIEW_ROWS, PreviewRows, type PreviewTable } from '../core/output.ts';
import type { InputFile } from '../core/files.ts';
import { cellText, widthOf, type Row } from './model.ts';
import { readTables, reportUnusedSheets, streamXlsx, type ReadOptions } from './read-table.ts';
import { silent, type Report } from './report.ts';
import { BATCH_ROWS, type SheetTable } from './table/titles.ts';
import { NeedsFallback } from './errors.ts';
import { RestartRead, type GridSink } from './grid.ts';

/** A table before its rows: name, titles (typed title cells too) and width; `rows` is empty. */
export type TableStart = SheetTable & { width: number };

/** A table read: its data rows are counted, not kept. */
export type StreamedTable = TableStart & { rowCount: number };

export interface RowConsumer {
  /** A table begins (one per sheet read). */
  start(table: TableStart): void;
  /** Its next data rows, each as wide as the table; the arrays are the consumer's to keep. */
  rows(batch: Row[]): void;
  /** The table is complete. */
  end(): void;
  /** Everything handed on so far is void: the tables start again from the first. */
  reset(): void;
}

export interface StreamResult {
  tables: StreamedTable[];
  /** Every sheet name of a workbook, read or not; empty for a CSV. */
  sheetNames: string[];
}

/** readTables, with the rows handed to `consumer` instead of returned. */
export function streamTables(file: InputFile, o: ReadOptions, consumer: RowConsumer): StreamResult {
  const tables: StreamedTable[] = [];
  // An error of the consumer's own is never a reason to read the file another way.
  let failed = false;
  const guard = (f: () => void) => {
    try {
      f();
    } catch (err) {
      failed = true;
      throw err;
    }
  };
  const to: RowConsumer = {
    start: (t) => guard(() => consumer.start(t)),
    rows: (b) => guard(() => consumer.rows(b)),
    end: () => guard(() => consumer.end()),
    reset: () => consumer.reset(),
  };
  let fastXlsx = true;
  try {
    const sheetNames = streamXlsx(file, o, (name) => new SheetSink(name, o.hasHeader, to, tables));
    if (sheetNames) return { tables, sheetNames };
  } catch (err) {
    if (failed || err instanceof ToolError) throw err;
    if (!(err instanceof RestartRead)) {
      fastXlsx = false;
      // As read-table's readFast: a fault of the fast path must not cost the caller the file.
      if (!(err instanceof NeedsFallback)) console.error('xlsx fast path failed, read with SheetJS:', err);
    }
    tables.length = 0;
    consumer.reset();
  }
  const read = readTables(file, o, fastXlsx);
  for (const t of read.tables) tables.push(handTable(t, to));
  return { tables, sheetNames: read.sheetNames };
}

/** readFirstTable, with the rows handed to `consumer`: the table, and a warning naming the sheets not used. */
export function streamFirstTable(file: InputFile, o: Omit<ReadOptions, 'sheets'>, consumer: RowConsumer): StreamedTable {
  const { tables, sheetNames } = streamTables(file, { ...o, sheets: 'first' }, consumer);
  reportUnusedSheets(file, tables[0].name, sheetNames, o.report);
  return tables[0];
}

function handTable(t: SheetTable, to: RowConsumer): StreamedTable {
  const table: StreamedTable = { ...t, rows: [], width: widthOf(t), rowCount: t.rows.length };
  to.start(table);
  for (let i = 0; i < t.rows.length; i += BATCH_ROWS) to.rows(t.rows.slice(i, i + BATCH_ROWS));
  to.end();
  return table;
}

/** One sheet's rows from a StreamGrid to the consumer, the title row split off as read-table's withHeader does. */
class SheetSink implements GridSink {
  private table: StreamedTable | null = null;

  constructor(
    private readonly name: string,
    private readonly hasHeader: boolean,
    private readonly to: RowConsumer,
    private readonly tables: StreamedTable[],
  ) {}

  open(width: number): void {
    if (!this.hasHeader) this.start({ name: this.name, header: null, rows: [], width, rowCount: 0 });
    else if (width === 0) this.start({ name: this.name, header: [], rows: [], width, rowCount: 0 });
  }

  rows(batch: Row[]): void {
    if (this.table === null) {
      const titles = batch[0];
      this.start({ name: this.name, header: titles.map(cellText), titleCells: titles, rows: [], width: titles.length, rowCount: 0 });
      batch = batch.slice(1);
      if (batch.length === 0) return;
    }
    this.table!.rowCount += batch.length;
    this.to.rows(batch);
  }

  close(): void {
    this.to.end();
  }

  private start(table: StreamedTable): void {
    this.table = table;
    this.tables.push(table);
    this.to.start(table);
  }
}

/** What writes one table as its rows come. */
export interface TableWriter {
  rows(batch: Row[]): void;
  finish(): Uint8Array;
}

export type WrittenTable = StreamedTable & { bytes: Uint8Array; preview: PreviewTable };

/** streamTables, each table written by the writer `open` gives for it: its bytes, and a preview of its first rows. */
export function writeTables(file: InputFile, o: ReadOptions, open: (table: TableStart) => TableWriter): { tables: WrittenTable[]; sheetNames: string[] } {
  let written: { bytes: Uint8Array; head: PreviewRows }[] = [];
  let writer: TableWriter;
  let head: PreviewRows;
  const read = streamTables(file, o, {
    start(t) {
      writer = open(t);
      head = new PreviewRows();
    },
    rows(batch) {
      writer.rows(batch);
      head.take(batch);
    },
    end: () => void written.push({ bytes: writer.finish(), head }),
    reset: () => void (written = []),
  });
  const tables = read.tables.map((t, i) => ({ ...t, bytes: written[i].bytes, preview: written[i].head.table(t.name, t.header, t.width, t.rowCount) }));
  return { tables, sheetNames: read.sheetNames };
}

export interface PartsRead {
  table: StreamedTable;
  /** Each part's bytes, in order. */
  parts: Uint8Array[];
  /** The first part's first rows, for a preview. */
  head: Row[];
}

/**
 * The first table of a file in parts of `size` data rows, each written by `write` as soon as it is full, its
 * rows let go then; a table without rows gives one part, titles only. `write` is told how many parts there
 * are, which is known only at the end: it is told `guess` until then, and when the table needs more parts
 * than that, the file is read a second time with the count (its messages given once, from that read).
 */
export function streamParts(
  file: InputFile,
  o: Omit<ReadOptions, 'sheets'>,
  size: number,
  guess: number,
  write: (part: number, parts: number, rows: Row[], table: TableStart) => Uint8Array,
): PartsRead {
  const report = o.report ?? silent;
  const split = (count: number | null): PartsRead & { count: number } => {
    let parts: Uint8Array[] = [];
    let rows: Row[] = [];
    let head: Row[] = [];
    let table: TableStart | undefined;
    let partCount = 0;
    const flush = () => {
      if (count === null && partCount >= guess) {
        // More parts than guessed: they are only counted now, and all written again by the second read.
        parts = [];
      } else {
        parts.push(write(partCount, count ?? guess, rows, table!));
        if (partCount === 0) head = rows.slice(0, PREVIEW_ROWS);
      }
      partCount++;
      rows = [];
    };
    const held: Parameters<Report>[] = [];
    const read = streamFirstTable(file, { ...o, report: count === null ? (...m) => void held.push(m) : report }, {
      start: (t) => void (table = t),
      rows(batch) {
        for (let i = 0; i < batch.length; i++) {
          rows.push(batch[i]);
          if (rows.length === size) flush();
        }
      },
      end: () => void (rows.length > 0 || partCount === 0 ? flush() : undefined),
      reset() {
        parts = [];
        rows = [];
        head = [];
        partCount = 0;
      },
    });
    if (count === null && partCount <= guess) for (const m of held) report(...m);
    return { table: read, parts, head, count: partCount };
  };
  const first = split(null);
  return first.count <= guess ? first : split(first.count);
}

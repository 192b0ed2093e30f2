// A CSV as a workbook of one sheet named after the file (book.ts). Read whole (Sheet.table), it is cut into
// records over its bytes (records.ts) and its rows are made only when asked for, a batch at a time: a CSV to
// CSV copy never makes them, JSON is written from the records' bytes (json/write.ts). Read in one pass
// (Sheet.stream with onePass) its rows are parsed piece by piece as they are pulled (read.ts OnePassCsv).
import type { BookReader, SheetRead } from '../book.ts';
import { BATCH_ROWS, type Cell, type Row, type RowBatch, type RowStream, type SourceFile, type Table, type TextEncodingName } from '../model.ts';
import { ArrayBatch } from '../batch.ts';
import { ColumnTexts, RecentDates } from '../shared-cells.ts';
import { detectType, languageDateOrder, type DetectOptions } from './detect-type.ts';
import { baseNameOf, csvTyping, OnePassCsv, refuseBinary, sniffDelimiter, textKind, type TextKind } from './read.ts';
import { readCsvRecords, type CsvRecords } from './records.ts';

export class CsvReader implements BookReader {
  readonly format = 'csv' as const;
  readonly sheets: { name: string; visibility: 'visible' }[];
  readonly encoding: TextEncodingName;
  readonly delimiter: string;
  private readonly kind: TextKind;

  /** Decides the encoding and the delimiter; a binary file (NUL bytes in 8-bit text) is refused here. */
  constructor(
    private readonly file: SourceFile,
    delimiter?: string,
  ) {
    this.kind = textKind(file.bytes);
    this.encoding = this.kind.encoding;
    refuseBinary(file.bytes, this.encoding);
    this.delimiter = delimiter ?? sniffDelimiter(file.bytes, this.kind) ?? ',';
    this.sheets = [{ name: baseNameOf(file.name), visibility: 'visible' }];
  }

  table(_i: number, read: SheetRead): Table {
    const src = readCsvRecords(this.file, { hasHeader: read.hasHeader, delimiter: this.delimiter, encoding: this.encoding, report: read.report, maxCells: read.cells.max });
    src.typing = this.typing(read);
    return new RecordTable(src, read.detectTypes);
  }

  stream(i: number, read: SheetRead, onePass: boolean): RowStream {
    if (!onePass) return this.table(i, read);
    // Slash-date orders are learnt as the pass goes (OnePassCsv), not on a first pass of their own.
    const typing = { decimalComma: this.delimiter !== ',', dateOrder: languageDateOrder(read.ctx.lang) };
    const o = { hasHeader: read.hasHeader, detectTypes: read.detectTypes, delimiter: this.delimiter, kind: this.kind, maxCells: read.cells.max, typing };
    return new OnePassCsv(this.file, o, read.report, false);
  }

  private typings = new Map<boolean, DetectOptions>();

  /** The decimal mark, and each column's slash-date order from a first pass over the text (once per title choice). */
  private typing(read: SheetRead): DetectOptions {
    if (!read.detectTypes) return { decimalComma: this.delimiter !== ',' };
    const t = this.typings.get(read.hasHeader) ?? csvTyping(this.file.bytes, this.kind, this.delimiter, read.hasHeader, languageDateOrder(read.ctx.lang));
    this.typings.set(read.hasHeader, t);
    return t;
  }
}

/** The data records `from` to `to` (excluded) as record numbers. */
function range(from: number, to: number): Int32Array {
  const ks = new Int32Array(Math.max(0, to - from));
  for (let i = 0; i < ks.length; i++) ks[i] = from + i;
  return ks;
}

/** A CSV cut into records: its head and counts known, its rows made per batch as they are pulled. */
export class RecordTable implements Table {
  readonly name: string;
  readonly header: string[] | null;
  readonly width: number;
  readonly delimiter: string;
  readonly rowCount: number;
  readonly total: number;
  private made: Row[] | null = null;

  constructor(
    readonly src: CsvRecords,
    /** Rows are typed (detectTypes); else every value is its text. */
    readonly typed: boolean,
  ) {
    this.name = src.name;
    this.header = src.header;
    this.width = src.width;
    this.delimiter = src.delimiter;
    this.rowCount = this.total = src.rowCount;
  }

  *[Symbol.iterator](): Iterator<RowBatch> {
    // The record numbers once, each batch a view of them: a buffer per batch was an allocation outside the
    // heap each, which V8 counts towards its next collection.
    const all = range(this.src.first, this.src.size);
    for (let k = 0; k < all.length; k += BATCH_ROWS) yield new RecordBatch(this.src, all.subarray(k, k + BATCH_ROWS), this.typed);
  }

  /** Every row, made once; repeated texts of a column and equal dates share one value, as a whole read keeps them all. */
  rows(): Row[] {
    if (this.made) return this.made;
    const texts = new ColumnTexts();
    const dates = new RecentDates();
    const rows: Row[] = new Array(this.rowCount);
    const typing = this.src.typing;
    for (let j = 0; j < rows.length; j++) {
      const cells: Cell[] = this.src.fields(this.src.first + j);
      for (let i = 0; i < cells.length; i++) {
        const s = cells[i] as string;
        if (s === '') cells[i] = null;
        else {
          const v = this.typed ? detectType(s, typing, i) : s;
          cells[i] = typeof v === 'string' ? texts.share(i, v) : v instanceof Date ? dates.share(v) : v;
        }
      }
      rows[j] = cells;
    }
    return (this.made = rows);
  }

  slice(from: number, to: number): RowBatch {
    return new RecordBatch(this.src, range(this.src.first + from, this.src.first + Math.min(to, this.rowCount)), this.typed);
  }

  pick(at: ArrayLike<number>): RowBatch {
    const ks = new Int32Array(at.length);
    for (let i = 0; i < ks.length; i++) ks[i] = this.src.first + at[i];
    return new RecordBatch(this.src, ks, this.typed);
  }
}

/**
 * Records of a CSV as a batch: rows made when asked for. A CSV writer with the same delimiter copies a text
 * batch's records instead (csv/write.ts); a JSON writer writes a typed one from its bytes (json/write.ts).
 */
export class RecordBatch implements RowBatch {
  constructor(
    readonly src: CsvRecords,
    /** Record numbers, in order. */
    readonly ks: Int32Array,
    readonly typed: boolean,
    /** A column left out of every row, or -1. */
    readonly drop = -1,
  ) {}

  get length(): number {
    return this.ks.length;
  }

  rows(): Row[] {
    const { src, ks, drop } = this;
    const out: Row[] = new Array(ks.length);
    for (let i = 0; i < ks.length; i++) {
      const row = this.typed ? src.typedRow(ks[i]) : src.row(ks[i]);
      if (drop >= 0) row.splice(drop, 1);
      out[i] = row;
    }
    return out;
  }

  column(col: number): Cell[] {
    const c = this.drop >= 0 && col >= this.drop ? col + 1 : col;
    const texts: Cell[] = this.src.column(this.ks, c);
    if (!this.typed) return texts;
    const typing = this.src.typing;
    for (let i = 0; i < texts.length; i++) if (texts[i] !== null) texts[i] = detectType(texts[i] as string, typing, c);
    return texts;
  }

  slice(from: number, to: number): RowBatch {
    return new RecordBatch(this.src, this.ks.subarray(from, to), this.typed, this.drop);
  }

  pick(at: ArrayLike<number>): RowBatch {
    const ks = new Int32Array(at.length);
    for (let i = 0; i < ks.length; i++) ks[i] = this.ks[at[i]];
    return new RecordBatch(this.src, ks, this.typed, this.drop);
  }

  without(col: number): RowBatch {
    if (this.drop >= 0) return new ArrayBatch(this.rows()).without(col);
    return new RecordBatch(this.src, this.ks, this.typed, col);
  }
}

/**
 * Records of a CSV with their columns laid out anew (merge-columns, split-column): output column `i` is the
 * source column `layout[i]`, or, when that is negative, the added column `-1 - layout[i]`, whose cells (one per
 * record) are in `added`. Source cells go through `type` when given (a workbook result); added ones are kept
 * as they are. A CSV writer with the same delimiter copies the source fields' bytes and writes only the added
 * cells (csv/write.ts); every other writer gets rows.
 */
export class LaidOutRecords implements RowBatch<Cell> {
  constructor(
    readonly src: CsvRecords,
    /** Record numbers, in order. */
    readonly ks: Int32Array,
    readonly layout: Int32Array,
    readonly added: readonly (readonly Cell[])[],
    readonly type: ((c: Cell) => Cell) | null,
  ) {}

  get length(): number {
    return this.ks.length;
  }

  rows(): Row[] {
    const { src, ks, layout, added, type } = this;
    const out: Row[] = new Array(ks.length);
    for (let j = 0; j < ks.length; j++) {
      const fields = src.row(ks[j]);
      const row: Cell[] = new Array(layout.length);
      for (let i = 0; i < layout.length; i++) {
        const c = layout[i];
        row[i] = c < 0 ? added[-1 - c][j] : type ? type(fields[c] ?? null) : (fields[c] ?? null);
      }
      out[j] = row;
    }
    return out;
  }

  column(col: number): Cell[] {
    const c = this.layout[col];
    if (c < 0) return this.added[-1 - c].slice();
    const texts: Cell[] = this.src.column(this.ks, c);
    return this.type ? texts.map(this.type) : texts;
  }

  slice(from: number, to: number): RowBatch {
    return new LaidOutRecords(this.src, this.ks.subarray(from, to), this.layout, this.added.map((a) => a.slice(from, to)), this.type);
  }

  pick(at: ArrayLike<number>): RowBatch {
    const ks = new Int32Array(at.length);
    for (let i = 0; i < ks.length; i++) ks[i] = this.ks[at[i]];
    const added = this.added.map((a) => Array.from({ length: at.length }, (_, i) => a[at[i]]));
    return new LaidOutRecords(this.src, ks, this.layout, added, this.type);
  }

  without(col: number): RowBatch {
    return new LaidOutRecords(this.src, this.ks, this.layout.filter((_, i) => i !== col), this.added, this.type);
  }
}

/**
 * A batch with its columns laid out anew, as LaidOutRecords describes: records of a CSV read as text stay
 * records (their fields are copied as bytes by a CSV writer), any other batch becomes rows.
 */
export function laidOut(batch: RowBatch<Cell>, layout: readonly number[], added: readonly (readonly Cell[])[], type: ((c: Cell) => Cell) | null): RowBatch<Cell> {
  if (batch instanceof RecordBatch && !batch.typed && batch.drop < 0) return new LaidOutRecords(batch.src, batch.ks, Int32Array.from(layout), added, type);
  const rows = batch.rows();
  return new ArrayBatch(rows.map((row, j) => layout.map((c) => (c < 0 ? added[-1 - c][j] : type ? type(row[c] ?? null) : (row[c] ?? null)))));
}

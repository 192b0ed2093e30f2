// The workbook every reader's file becomes (model.ts's Workbook and Sheet), built once here over a format's
// BookReader: what a reader must give, and everything readers share. Per read of a sheet:
// - its messages are held and given once the read has succeeded (a read may fail over to another one);
// - its cells count against the run's limit together with the file's other sheets, each sheet counted once
//   however often it is read;
// - a reader's FormatError names the file;
// - a fast reader that does not fully understand the file (NeedsFallback), or fails itself (a fault, logged),
//   hands the workbook to its fallback (SheetJS), which reads that sheet and every later one;
// - a fast reader that calls the file damaged in a way that costs no data (FormatError.repairable) does too, as
//   Excel repairs such files: when the fallback reads it, a warning says it was repaired (and where, when
//   known); when the fallback fails too, the fast reader's verdict stands;
// - a stream whose rows turn out not to be the table (Restart) runs its consumer again on the reader's other read.
// Errors of a stream's consumer are never reasons to read again.
import { CellBudget } from './grid.ts';
import { FormatError, NeedsFallback, Restart } from './errors.ts';
import { listText } from './report.ts';
import type { AnyCell, Cell, ContentFormat, FormatContext, Report, RowBatch, RowStream, Sheet, SheetRows, SourceFile, Table, TextEncodingName, Visibility, Workbook } from './model.ts';

/** How the caller reads a file: the same for every sheet. */
export interface ReadOptions {
  /** The first row holds the titles. */
  hasHeader: boolean;
  /** Text formats: numbers, dates and booleans typed by csv-to-excel's rules; else every value is its text. */
  detectTypes: boolean;
  /** CSV: one character; detected when left out. */
  delimiter?: string;
}

/** One read of one sheet, as the machinery gives it to a reader. */
export interface SheetRead extends ReadOptions {
  /** The file's name, for messages. */
  file: string;
  /** Where the read's messages go: held until it has succeeded. */
  report: Report;
  /** The run's cell limit, shared by the file's sheets. */
  cells: CellBudget;
  ctx: FormatContext;
}

/** What a format gives the machinery. Reading may throw NeedsFallback (when the reader has a fallback). */
export interface BookReader {
  readonly format: ContentFormat;
  readonly sheets: readonly { name: string; visibility: Visibility; source?: string }[];
  readonly encoding?: TextEncodingName;
  /** SheetJS, the reader of last resort. */
  readonly lastResort?: true;
  /** Sheet `i` read whole. */
  table(i: number, read: SheetRead): Table;
  /**
   * Sheet `i` as its rows are read, for readers that stream; may throw Restart (whose `next` takes the new
   * SheetRead). Without it, a stream is the whole table's batches.
   */
  stream?(i: number, read: SheetRead, onePass: boolean): RowStream;
  /**
   * Sheet `i` read `full` as its rows are (SheetRows), for readers that can (null where it cannot, as with
   * `layoutFirst` it may not); its messages go to `read` at the end.
   */
  rowsAsRead?(i: number, read: SheetRead, o: { layoutFirst?: boolean }): SheetRows | null;
}

/** Errors thrown by a reader while a consumer pulls from it: only these may lead to reading again. */
const fromReader = new WeakSet<object>();

function readerError(err: unknown): unknown {
  if (err !== null && typeof err === 'object') fromReader.add(err);
  return err;
}

/** A stream whose errors are marked as the reader's. */
class ReaderStream implements RowStream {
  constructor(private readonly inner: RowStream) {}
  private get<T>(f: () => T): T {
    try {
      return f();
    } catch (err) {
      throw readerError(err);
    }
  }
  get name() {
    return this.get(() => this.inner.name);
  }
  get header() {
    return this.get(() => this.inner.header);
  }
  get titleCells() {
    return this.get(() => this.inner.titleCells);
  }
  get width() {
    return this.get(() => this.inner.width);
  }
  get delimiter() {
    return this.inner.delimiter;
  }
  get rowCount() {
    return this.inner.rowCount;
  }
  get total() {
    return this.inner.total;
  }
  *[Symbol.iterator](): Iterator<RowBatch> {
    const it = this.get(() => this.inner[Symbol.iterator]());
    try {
      for (;;) {
        const next = this.get(() => it.next());
        if (next.done) return;
        yield next.value;
      }
    } finally {
      it.return?.();
    }
  }
}

/** A stream made when first asked about. */
class LazyStream implements RowStream {
  private made: RowStream | null = null;
  constructor(private readonly make: () => RowStream) {}
  private get s(): RowStream {
    return (this.made ??= this.make());
  }
  get name() {
    return this.s.name;
  }
  get header() {
    return this.s.header;
  }
  get titleCells() {
    return this.s.titleCells;
  }
  get width() {
    return this.s.width;
  }
  get delimiter() {
    return this.s.delimiter;
  }
  get rowCount() {
    return this.s.rowCount;
  }
  get total() {
    return this.s.total;
  }
  [Symbol.iterator](): Iterator<RowBatch> {
    return this.s[Symbol.iterator]();
  }
}

class BookSheet implements Sheet {
  constructor(
    private readonly book: Book,
    readonly index: number,
    readonly name: string,
    readonly visibility: Visibility,
    readonly source?: string,
  ) {}

  table(): Table {
    return this.book.read(this.index, (reader, read) => markReaderErrors(() => reader.table(this.index, read)));
  }

  rowsAsRead(o: { layoutFirst?: boolean } = {}): SheetRows | null {
    return this.book.rowsAsRead(this.index, o);
  }

  stream<T>(use: (rows: RowStream) => T, o: { onePass?: boolean } = {}): T {
    // A reader that reads sheets whole is done (and may be let go) before `use` pulls the first row.
    if (!this.book.streams) return use(this.table());
    // After a Restart: the read its reader gave instead (never another reader's, should it fail over).
    let next: { reader: BookReader; read: (read: SheetRead) => unknown } | null = null;
    let last: BookReader | null = null;
    return this.book.read(
      this.index,
      (reader, read) => {
        last = reader;
        const again = next !== null && next.reader === reader ? next : null;
        // After a Restart `use` runs again at once, and pulling from it reads the sheet the other way.
        const rows = again ? new LazyStream(() => again.read(read) as RowStream) : markReaderErrors(() => (reader.stream ? reader.stream(this.index, read, o.onePass === true) : reader.table(this.index, read)));
        return use(new ReaderStream(rows));
      },
      (err) => {
        if (!(err instanceof Restart) || !fromReader.has(err) || last === null) return false;
        next = { reader: last, read: err.next as (read: SheetRead) => unknown };
        return true;
      },
    );
  }
}

export class Book implements Workbook {
  readonly sheets: BookSheet[];
  readonly first: BookSheet;
  readonly format: ContentFormat;
  readonly encoding?: TextEncodingName;
  private readonly cells: CellBudget;
  /** Cells each sheet's last read counted. */
  private readonly spent: number[];
  /** Sheets the caller said it reads and has not read yet: once none is left, the reader is let go. */
  private readonly wanted: Set<number>;
  private reader: BookReader | null;

  constructor(
    reader: BookReader,
    /** Opens the reader again, should a sheet be read after it was let go. */
    private reopen: () => BookReader,
    private fallback: (() => BookReader) | null,
    private readonly file: SourceFile,
    private readonly ctx: FormatContext,
    private readonly options: ReadOptions,
    sheets: 'first' | 'all',
  ) {
    this.reader = reader;
    this.streams = reader.stream !== undefined;
    this.readBy = reader.lastResort ? 'sheetjs' : 'fast';
    this.format = reader.format;
    if (reader.encoding !== undefined) this.encoding = reader.encoding;
    this.sheets = reader.sheets.map((s, i) => new BookSheet(this, i, s.name, s.visibility, s.source));
    this.first = this.sheets.find((s) => s.visibility === 'visible') ?? this.sheets[0];
    this.cells = new CellBudget(ctx.limits.maxCells);
    this.spent = this.sheets.map(() => 0);
    this.wanted = new Set(sheets === 'first' ? [this.first.index] : this.sheets.map((s) => s.index));
  }

  /** Whether its reader hands rows on as it parses (else a stream is the whole table's batches). */
  streams: boolean;

  table(): Table {
    const t = this.first.table();
    this.leftOut(this.first);
    return t;
  }

  stream<T>(use: (rows: RowStream) => T, o?: { onePass?: boolean }): T {
    const result = this.first.stream(use, o);
    this.leftOut(this.first);
    return result;
  }

  leftOut(used: Sheet): void {
    if (this.sheets.length <= 1) return;
    const others = this.sheets.filter((s) => s !== used).map((s) => s.name);
    this.ctx.message('warning', 'sheets_unused', { name: this.file.name, sheet: used.name, sheets: listText(others) });
  }

  /**
   * Sheet `i` as its reader hands its rows on (SheetRows), or null when the reader cannot. Once rows have gone
   * to the writer there is no reading again: an error while they are pulled is the run's (a FormatError naming
   * the file). Messages are given, and the reader let go, once the last row is read.
   */
  rowsAsRead(i: number, o: { layoutFirst?: boolean } = {}): SheetRows | null {
    const reader = (this.reader ??= this.reopen());
    if (!reader.rowsAsRead) return null;
    const held: Parameters<Report>[] = [];
    const read: SheetRead = { ...this.options, file: this.file.name, report: (...m) => void held.push(m), cells: this.cells, ctx: this.ctx };
    const file = this.file;
    let sheet: SheetRows | null;
    try {
      sheet = reader.rowsAsRead(i, read, o);
    } catch (err) {
      throw namedFor(err, file);
    }
    if (sheet === null) return null;
    const done = () => {
      for (const m of held) this.ctx.message(...m);
      this.release(i);
    };
    return {
      widths: sheet.widths,
      merges: sheet.merges,
      rows: (function* () {
        const it = sheet.rows[Symbol.iterator]();
        try {
          for (;;) {
            let next: IteratorResult<AnyCell[][]>;
            try {
              next = it.next();
            } catch (err) {
              throw namedFor(err, file);
            }
            if (next.done) break;
            yield next.value;
          }
        } finally {
          it.return?.();
        }
        done();
      })(),
    };
  }

  /**
   * One read of sheet `i`, attempted until it succeeds or fails for good: `retry` may claim an error (a
   * Restart) and have it read again; a fast reader's refusal or fault hands the workbook to its fallback.
   */
  read<T>(i: number, attempt: (reader: BookReader, read: SheetRead) => T, retry: (err: unknown) => boolean = () => false): T {
    for (;;) {
      const base = this.cells.used - this.spent[i];
      this.cells.used = base;
      this.spent[i] = 0;
      const held: Parameters<Report>[] = [];
      const read: SheetRead = { ...this.options, file: this.file.name, report: (...m) => void held.push(m), cells: this.cells, ctx: this.ctx };
      try {
        const result = attempt((this.reader ??= this.reopen()), read);
        this.spent[i] = this.cells.used - base;
        if (this.repair !== null) {
          const where = this.repair.where;
          this.ctx.message('warning', where ? 'read_repaired_at' : 'read_repaired', { name: this.file.name, ...(where ? { where } : {}) });
          this.repair = null;
        }
        for (const m of held) this.ctx.message(...m);
        this.release(i);
        return result;
      } catch (err) {
        this.cells.used = base;
        if (retry(err)) continue;
        if (err instanceof FormatError) {
          namedFor(err, this.file);
          if (!repairable(err, this.fallback) || !fromReader.has(err)) throw err;
          this.useFallback(repairedBy(this.fallback, err));
          this.repaired = err;
          continue;
        }
        if (this.fallback === null || !(err instanceof NeedsFallback || fromReader.has(err as object))) throw err;
        // A fault of the fast reader itself (not a verdict on the file) must not cost the caller the file:
        // the fallback reads it, and the fault is logged to be fixed.
        this.fellBack = handedOver(err, `${this.format} reader`);
        this.useFallback(this.fallback());
      }
    }
  }

  /** Sheet `i` is read: what the reader holds (a ZIP's strings and styles, a BIFF stream) is let go once nothing more is. */
  private release(i: number): void {
    this.wanted.delete(i);
    if (this.wanted.size === 0) this.reader = null;
  }

  private useFallback(reader: BookReader): void {
    this.reopen = this.fallback ?? this.reopen;
    this.reader = reader;
    this.streams = reader.stream !== undefined;
    this.fallback = null;
    this.readBy = 'sheetjs';
  }

  /** Which reader read the file, for the corpus report: the fast one, or SheetJS (from the start or after it). */
  readBy: 'fast' | 'sheetjs';
  /** Why the fast reader handed the file to SheetJS (its NeedsFallback, a fault), when it did. */
  fellBack?: string;
  /** The fast reader's verdict of damage the fallback reads past: warned of once the fallback's read has succeeded. */
  private set repaired(err: FormatError) {
    this.fellBack = `damaged: ${err.message}`;
    this.readBy = 'sheetjs';
    this.repair = err;
  }
  private repair: FormatError | null = null;

  /** Errors of the reader's open, before any sheet is read: the file named, the fallback taken. */
  static open(file: SourceFile, ctx: FormatContext, options: ReadOptions, sheets: 'first' | 'all', open: () => BookReader, fallback: (() => BookReader) | null): Book {
    let reader: BookReader;
    try {
      reader = open();
    } catch (err) {
      if (err instanceof FormatError) {
        namedFor(err, file);
        if (!repairable(err, fallback)) throw err;
        const book = new Book(repairedBy(fallback, err), fallback, null, file, ctx, options, sheets);
        book.repaired = err;
        return book;
      }
      if (fallback === null) throw err;
      const why = handedOver(err, 'fast reader');
      const book = Book.open(file, ctx, options, sheets, fallback, null);
      book.readBy = 'sheetjs';
      book.fellBack = why;
      return book;
    }
    return new Book(reader, open, fallback, file, ctx, options, sheets);
  }
}

/**
 * Why a fast reader handed the workbook to its fallback: its NeedsFallback, or a fault of its own, which is
 * logged to be fixed.
 */
function handedOver(err: unknown, reader: string): string {
  if (err instanceof NeedsFallback) return err.message;
  console.error(`${reader} failed, read with SheetJS:`, err);
  return `fault: ${String((err as Error)?.message ?? err).slice(0, 120)}`;
}

/** A fast reader's verdict of damage that costs no data, when there is a fallback to try: other verdicts (a cut part, a bomb, a password, a limit) stand. */
function repairable(err: FormatError, fallback: (() => BookReader) | null): fallback is () => BookReader {
  return fallback !== null && err.reason === 'unreadable' && err.repairable === true;
}

/**
 * The fallback's reader of a file the fast reader called damaged; should the fallback fail too (or find nothing),
 * the fast reader's verdict is the answer.
 */
function repairedBy(fallback: () => BookReader, verdict: FormatError): BookReader {
  try {
    return fallback();
  } catch (err) {
    if (err instanceof FormatError && err.reason !== 'unreadable') throw Object.assign(err, { file: verdict.file, source: verdict.source });
    throw verdict;
  }
}

/** A FormatError names the file it was read from (the first one to name it wins). */
function namedFor(err: unknown, file: SourceFile): unknown {
  if (err instanceof FormatError) {
    err.file ??= file.name;
    err.source ??= file;
  }
  return err;
}

/** Marks a table read's errors as the reader's (a table read is the reader's alone). */
export function markReaderErrors<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    throw readerError(err);
  }
}

export type { Cell };

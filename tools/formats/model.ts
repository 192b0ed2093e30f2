// The one model every reader gives and every writer takes: a workbook of sheets, each read as a table of typed
// cells that comes in batches of rows. README "How to add a format" says which reader fills what.
import type { EightBitEncoding } from './csv/charset.ts';

/**
 * A cell keeps its type: text stays text (leading zeros and all), numbers are numbers, booleans are
 * booleans, dates are Date objects in UTC (a date without time is midnight UTC), empty is null.
 */
export type Cell = string | number | boolean | Date | null;
export type Row<C = Cell> = C[];

/**
 * An error value (`#N/A`, `#DIV/0!`…). Readers give error cells as their text unless opened with
 * `cells: 'full'`; workbook writers write a CellError as an error cell, text writers as its text.
 */
export class CellError {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/**
 * A cell with what a workbook keeps besides its value (`cells: 'full'`): its number format and the formula
 * whose cached value it is. Writers that cannot hold a format or a formula write the value.
 */
export class FullCell {
  constructor(
    readonly value: Cell | CellError,
    readonly format: string | null = null,
    readonly formula: string | null = null,
  ) {}
}

/** A cell of a workbook read whole (`cells: 'full'`): plain values where nothing else is known. */
export type AnyCell = Cell | CellError | FullCell;

/** A table's name, titles and width: what a writer needs before the rows. */
export interface TableHead {
  /** Sheet name, or the file's base name for formats without sheets. */
  name: string;
  /** Column titles as text when the first row is a header; null when the table has none. */
  header: string[] | null;
  /** The title row as typed cells (a year stays 2024), when the reader kept it; writers write these. */
  titleCells?: Cell[];
  /** Columns: the widest of the titles and every row. */
  width: number;
  /** The delimiter of the CSV the table was read from: a CSV result keeps it (tools.md §2.5). */
  delimiter?: string;
}

/** A table in memory, as tools and tests build it. */
export interface TableData<C = Cell> {
  name: string;
  header: string[] | null;
  titleCells?: Cell[];
  delimiter?: string;
  rows: Row<C>[];
}

/**
 * Rows handed on together: readers hand on at most BATCH_ROWS at a time (a batch a tool picks may be larger).
 * A batch read from a text format may make its rows only when asked, and a writer of the same format may copy
 * it without making them (CSV to CSV copies records).
 */
export interface RowBatch<C = Cell> {
  readonly length: number;
  /** The rows, each as wide as the table; the arrays are the caller's to keep (never changed by the reader). */
  rows(): Row<C>[];
  /** The cell of column `col` of every row, cheaper than the rows for a batch of records (grouping). */
  column(col: number): C[];
  /** Rows `from` to `to` (excluded) as a batch. */
  slice(from: number, to: number): RowBatch<C>;
  /** The rows at these positions, in this order, as a batch. */
  pick(at: ArrayLike<number>): RowBatch<C>;
  /** The rows without column `col`. */
  without(col: number): RowBatch<C>;
}

/**
 * A table's rows pulled a batch at a time (for (const batch of rows)), after its head. Pulling reads: nothing
 * past the batch handed on is held by a reader that streams.
 */
export interface RowStream<C = Cell> extends TableHead, Iterable<RowBatch<C>> {
  /** Data rows handed on so far; all of them once iterated (a Table has them all from the start). */
  readonly rowCount: number;
  /** Data rows of the table when known before they are read (a table read whole, a CSV), else null. */
  readonly total: number | null;
}

/** Where the table lies in its sheet, and what the sheet says about its layout, when the reader knows it. */
export interface TableLayout {
  /** 0-based sheet row and column of the table's first cell (its title row when it has one). */
  origin: { row: number; col: number };
  /** Merged ranges, in sheet coordinates (0-based, inclusive). */
  merges: CellRange[];
  /** Column widths in characters, by 0-based sheet column; null where the sheet sets none. */
  widths: (number | null)[];
}

export interface CellRange {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

/** A sheet read whole (or, for a CSV, cut into records): everything is known before the rows are pulled. */
export interface Table<C = Cell> extends RowStream<C> {
  readonly total: number;
  /** Every data row at once, made on the first call where rows are made as pulled. */
  rows(): Row<C>[];
  /** Rows `from` to `to` (excluded), or the rows at these positions, as one batch. */
  slice(from: number, to: number): RowBatch<C>;
  pick(at: ArrayLike<number>): RowBatch<C>;
  /** Filled by readers that know it (README "How to add a format"). */
  readonly layout?: TableLayout;
}

export type Visibility = 'visible' | 'hidden' | 'veryHidden';

/**
 * One sheet handed to a workbook writer (xls, ods): its rows in batches, in order, each row taking the next row
 * number, with what §2.7 keeps of a sheet besides its cells.
 */
export interface SheetIn {
  name: string;
  /** Default `visible`. */
  visibility?: Visibility;
  /** Widths by 0-based column, in characters (`<col width>` of xlsx); null or a gap keeps the default. */
  columnWidths?: readonly (number | null | undefined)[];
  /**
   * Merged ranges, 0-based and inclusive. The xls and xlsx writers read them after the rows (as the xlsx one
   * reads the widths), the ODS writer before: a sheet copied as it is read fills them as it goes (copy.ts).
   */
  merges?: readonly CellRange[];
  rows: Iterable<RowBatch<AnyCell> | readonly (readonly AnyCell[])[]> | AsyncIterable<RowBatch<AnyCell> | readonly (readonly AnyCell[])[]>;
}

/** A workbook handed to a workbook writer: its sheets in tab order. */
export interface BookIn {
  sheets: Iterable<SheetIn> | AsyncIterable<SheetIn>;
}

export interface Sheet<C = Cell> {
  readonly name: string;
  /** The name the file gives what the sheet was read from, when the sheet's name is only part of it (an SQL table with its schema). */
  readonly source?: string;
  /** 0-based position in tab order. */
  readonly index: number;
  readonly visibility: Visibility;
  /** The sheet read whole: its messages are given by the time it returns. */
  table(): Table<C>;
  /**
   * The sheet's rows as they are read: `use` pulls them, and what it returns is returned. A reader that finds
   * halfway that the rows handed on were not the table (a cell further left than the columns decided, a part
   * it hands to SheetJS) reads the sheet again whole and runs `use` again from the start, so `use` must keep
   * its effects in what it returns. Messages of the read are given once, after `use` returns.
   * `onePass`: `use` does not need the width before the rows, so a CSV is read in one pass, its width growing
   * as rows come (and its `total` unknown).
   */
  stream<T>(use: (rows: RowStream<C>) => T, o?: { onePass?: boolean }): T;
  /**
   * A sheet of a workbook read `full`, as its rows are read (SheetRows); null when its reader reads sheets whole,
   * or cannot give the sheet's widths and merges before its rows when `layoutFirst` asks for them.
   */
  rowsAsRead?(o?: { layoutFirst?: boolean }): SheetRows | null;
}

/**
 * A sheet read `full` as its rows come, to be copied as it was (copy.ts): in sheet coordinates, so nothing is
 * held to find the table's origin. Its widths and merges are complete once the rows are read, or before them
 * when asked for `layoutFirst` (for a writer that needs them first: ods).
 */
export interface SheetRows {
  /** Widths by sheet column, in characters (null or undefined: the default). */
  readonly widths: readonly (number | null | undefined)[];
  /** Merged ranges, in sheet coordinates. */
  readonly merges: readonly CellRange[];
  /** From the sheet's first row, each ending at its last value; empty rows are empty arrays, trailing ones left out. */
  readonly rows: Iterable<AnyCell[][]>;
}

/** What a file's content was read as. */
export type ContentFormat = 'xlsx' | 'xls' | 'ods' | 'csv' | 'json' | 'html' | 'xml' | 'spreadsheetml' | 'biff' | 'markdown' | 'sql' | 'vcard';

export interface Workbook<C = Cell> {
  readonly format: ContentFormat;
  /** Every sheet, hidden ones included, in tab order. */
  readonly sheets: readonly Sheet<C>[];
  /** The sheet a one-table tool reads: the first visible one, or the first when all are hidden (tools.md §2.3). */
  readonly first: Sheet<C>;
  /** The first sheet read whole; then a warning names the sheets left out. */
  table(): Table<C>;
  /** The first sheet streamed (Sheet.stream); then a warning names the sheets left out. */
  stream<T>(use: (rows: RowStream<C>) => T, o?: { onePass?: boolean }): T;
  /** The warning naming the sheets other than `used`, for a one-table tool that reads a sheet itself. */
  leftOut(used: Sheet<C>): void;
  /** A text format's encoding, as detected. */
  readonly encoding?: TextEncodingName;
}

/** Text encodings read: the Unicode ones, and 8-bit code pages (Windows-1252 unless detected otherwise, csv/charset.ts). */
export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be' | EightBitEncoding;

/** A file to read: its name decides only what the content cannot (sniff.ts). */
export interface SourceFile {
  name: string;
  bytes: Uint8Array;
}

export type MessageLevel = 'info' | 'warning' | 'error';
/** A message for the caller: `messages.<key>` in its language, with its placeholders. */
export type Report = (level: MessageLevel, key: string, params?: Record<string, string | number>) => void;

/** Bounds of one run: the same for every reader and writer of it. */
export interface FormatLimits {
  /** Cells with a value one run may read (all files and sheets of a reader together). */
  maxCells: number;
  /** MB the results of one run may take together, counted as writers write (budget.ts); unbounded when absent. */
  maxResultMb?: number;
}

/**
 * What readers and writers get from the run, once (the kernel's ToolContext is one): its limits, where
 * messages go, and localized text for generated names and message details.
 */
export interface FormatContext {
  limits: FormatLimits;
  message: Report;
  t(key: string, params?: Record<string, string | number>): string;
  /** A localized generated name: name('sheet') → `Hoja`. */
  name(key: string, params?: Record<string, string | number>): string;
  /** Aborted when the run is stopped; long loops may check it. */
  signal?: AbortSignal;
  /** The caller's language: what an ambiguous date means (03/04/2024) follows it. */
  readonly lang?: string;
}

/** Rows a written table keeps for the caller's preview. */
export const PREVIEW_ROWS = 20;

/** The first rows of a written table, for the preview the kernel builds. */
export interface TablePreview {
  name: string;
  header: string[] | null;
  /** At most PREVIEW_ROWS rows, each as wide as the table. */
  rows: Row<AnyCell>[];
  width: number;
  rowCount: number;
}

/**
 * Characters a writer left out of its result (removed.ts): U+0000 from any format (`nul`), what XML 1.0 cannot
 * hold from an XML-based one (`xml`). The kernel gives one warning per run for all its files.
 */
export interface Removed {
  kind: 'nul' | 'xml';
  count: number;
  /** The first cell that lost some, in the result (`B3`, the title row being row 1), and its table's name. */
  cell: string;
  table: string;
}

/** What a writer made: the bytes, the first rows of its first table, and what it had to leave out. */
export interface Written {
  bytes: Uint8Array;
  preview: TablePreview | null;
  removed?: Removed | null;
}

/** Number of columns of a table in memory: the widest of the header and every row. */
export function widthOf(table: Pick<TableData<unknown>, 'header' | 'rows'>): number {
  let w = table.header?.length ?? 0;
  for (const r of table.rows) if (r.length > w) w = r.length;
  return w;
}

/** Spreadsheet column letters for a 0-based index: 0 → A, 26 → AA. */
export function columnLetter(index: number): string {
  let s = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** Text of a cell as a title. */
export function cellText(c: AnyCell): string {
  if (c === null) return '';
  if (c instanceof Date) return isoDate(c);
  if (c instanceof FullCell) return cellText(c.value);
  return String(c);
}

/** ISO 8601 text of a date: `yyyy-mm-dd`, with `Thh:mm:ss` only when it has a time of day. */
export function isoDate(d: Date): string {
  const iso = d.toISOString();
  if (d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0 && d.getUTCMilliseconds() === 0) return iso.slice(0, 10);
  return d.getUTCMilliseconds() === 0 ? iso.slice(0, 19) : iso.slice(0, 23);
}

/** Key under which titles are matched: case and outer spaces do not count. */
export function titleKey(title: string): string {
  return title.trim().toLocaleLowerCase('und');
}

/**
 * Rows handed on at a time wherever rows are piped (readers, stacking): each row made for a batch dies young.
 * 4,096 rows of new cells outgrew the job workers' 8 MB young generation and were promoted as garbage
 * (merge-stack, 5 × 20,000 csv: growth 99–113 against 42–45 MB at 512).
 */
export const BATCH_ROWS = 512;

// What the workbook writers of this folder take and the ODS reader gives, until tools/formats/ has its one
// model (issue 12): the cells of tools/core/table.ts (text, number, boolean, Date in UTC, null) plus an error
// cell and a number with its number format, sheets with the facts §2.7 keeps, and one error type with a
// reason and a place. Kept apart from the kernel's ToolError: the adapter maps `BookError` once.

/** An error cell (`#N/A`, `#DIV/0!`…): it stays an error in workbook results (tools.md §2.3). */
export class CellError {
  constructor(readonly code: string) {}
}

/** A number or date shown through a number format (Excel's code, e.g. `0.00%`, `#,##0`, `dd/mm/yyyy`). */
export class Formatted {
  constructor(
    readonly value: number | Date,
    readonly format: string,
  ) {}
}

/** A cell: `string | number | boolean | Date | null` as tools/core/table.ts has it, an error or a formatted number. */
export type CellValue = string | number | boolean | Date | null | CellError | Formatted;
export type RowBatch = readonly (readonly CellValue[])[];

/** A merged range, 0-based and inclusive. */
export interface Range {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

/** One sheet handed to a writer. Rows come in batches, in order; each row takes the next row number. */
export interface SheetIn {
  name: string;
  hidden?: boolean;
  /** Widths by 0-based column, in Excel's character units (`<col width>` of xlsx); a gap keeps the default. */
  columnWidths?: readonly (number | undefined)[];
  /** The xls writer reads these after the rows (a reader may learn them late); the ODS writer before them. */
  merges?: readonly Range[];
  rows: Iterable<RowBatch> | AsyncIterable<RowBatch>;
}

export interface BookIn {
  sheets: Iterable<SheetIn> | AsyncIterable<SheetIn>;
}

/** Where a problem is: the sheet, and the 1-based row and column when it concerns a cell. */
export interface Place {
  sheet?: string;
  row?: number;
  column?: number;
  /** A package part or record, for damaged files. */
  part?: string;
}

export type BookErrorReason =
  /** A result that does not fit its format (tools.md §2.8): `limit` says which, how many were found. */
  | 'format_limit_exceeded'
  /** An input that is not what it claims, damaged, or encrypted (`encrypted` then says so). */
  | 'invalid_file'
  /** An input that would cost more than the guards allow (a ZIP bomb, too many cells). */
  | 'too_complex';

export interface LimitFound {
  what: 'rows' | 'columns' | 'cell_characters';
  max: number;
  found: number;
}

export class BookError extends Error {
  constructor(
    readonly reason: BookErrorReason,
    message: string,
    readonly place: Place = {},
    readonly details: { limit?: LimitFound; encrypted?: boolean } = {},
  ) {
    super(message);
    this.name = 'BookError';
  }
}

/** A cell text changed by a writer because the format cannot hold the value as it is, counted with the first place. */
export interface Changed {
  kind: string;
  count: number;
  first: Place;
}

/** Counts changes by kind, keeping the first place of each. */
export class ChangeLog {
  private readonly byKind = new Map<string, Changed>();
  note(kind: string, place: () => Place): void {
    const c = this.byKind.get(kind);
    if (c) c.count++;
    else this.byKind.set(kind, { kind, count: 1, first: place() });
  }
  list(): Changed[] {
    return [...this.byKind.values()];
  }
}

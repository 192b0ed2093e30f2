// The format library's one error type, and the two signals its readers pass among themselves.
//
// - `FormatError` is a verdict on a file (broken, lying, a bomb, a password, past a limit) or on a result that a
//   format cannot hold. Its `reason` says which; the kernel maps reasons to the service's error codes in one
//   table (tools/core/format-errors.ts). `file` is the file it concerns (set by the workbook machinery),
//   `where` the part or cell when known, the message a detail for logs and tests, never shown to callers.
// - `NeedsFallback` means the file is fine but uses something a fast reader does not read: the workbook is read
//   with SheetJS instead. Its message is for logs and tests.
// - `Restart` means the rows a reader has handed on turned out not to be the table (a cell further left than
//   the columns decided, a quote open until the end of a CSV read in pieces): Sheet.stream runs its consumer
//   again on `next()`, a read that cannot go wrong that way.

export type FormatReason =
  /** Not readable as what its name says, or not a spreadsheet at all (invalid_file). */
  | 'unreadable'
  /** Holds no row of data. */
  | 'empty'
  /** Text that holds NUL bytes (a binary file named as text). */
  | 'binary'
  /** Encrypted with a password to open. */
  | 'password'
  /** An XML part declares a DTD. */
  | 'xml-dtd'
  /** XML input: not well-formed (line, column), an encoding not read, a row element not found (invalid_option). */
  | 'xml-syntax'
  | 'xml-encoding'
  | 'xml-row-element'
  /** Markup nested past its bound (XML elements, HTML tables). */
  | 'too-deep'
  /** JSON input: syntax, nesting, a top level or an item of the wrong kind. */
  | 'json_syntax'
  | 'json_too_deep'
  | 'json_not_list'
  | 'json_item_not_object'
  /** SQL input: a string, identifier or comment never closed; a statement that cannot be read; a tuple of the
   * wrong width; parentheses nested too deep; no CREATE TABLE and no INSERT … VALUES. */
  | 'sql_unclosed'
  | 'sql_syntax'
  | 'sql_values'
  | 'sql_too_deep'
  | 'sql_nothing'
  /** vCard input: no BEGIN:VCARD. */
  | 'vcard_none'
  /** More cells with a value than a run may read (too_complex). */
  | 'cells'
  /** A cell or row reference outside Excel's grid (A1:XFD1048576): a broken file (invalid_file). */
  | 'cell-outside-grid'
  /** A used range far too large for its cells. */
  | 'sheet-extent'
  /** A ZIP entry inflating past the ratio bound, or a file past the inflated-size bound. */
  | 'zip-ratio'
  | 'zip-size'
  /** A PDF whose rows take more lines than a run lays out (too_complex). */
  | 'pdf-lines'
  /** Past a bound with no message of its own (too_complex). */
  | 'too-complex'
  /** A Markdown file with no GFM table (invalid_file). */
  | 'no-table'
  /** Nesting deeper than a parser may follow (invalid_file). */
  | 'too-deep'
  /** Results past the MB a run may return (result_too_large), counted as they are written (budget.ts). */
  | 'result-size'
  /** A result that does not fit its format (rows, columns, characters). */
  | 'format-limit';

export class FormatError extends Error {
  readonly reason: FormatReason;
  readonly params: Record<string, string | number>;
  /** The part or cell concerned, when known. */
  readonly where?: string;
  /**
   * Damage the fast reader knows costs no data (a part name twice in two cases, bytes left over after a
   * record's fields): the fallback may read the file, with a warning that it was repaired (book.ts). Damage that
   * cuts or garbles data (XML cut short, a string past its record) is never repaired: a lenient reader would give
   * a partial table without a word.
   */
  repairable?: boolean;
  /** The file concerned, by name (a writer's errors concern none). */
  file?: string;
  /** The file concerned itself: the kernel tells by it which input field it came in (two files may share a name). */
  source?: object;
  constructor(reason: FormatReason, message: string, o: { params?: Record<string, string | number>; where?: string; cause?: unknown } = {}) {
    super(message, { cause: o.cause });
    this.name = 'FormatError';
    this.reason = reason;
    this.params = o.params ?? {};
    this.where = o.where;
  }
}

/** A damaged or lying file: `unreadable`, the detail for logs. */
export const damaged = (detail: string, where?: string) => new FormatError('unreadable', detail, { where });

/** Damage that costs no data (FormatError.repairable): the fallback is tried before the file is refused. */
export const repairableDamage = (detail: string, where?: string) => Object.assign(damaged(detail, where), { repairable: true });

export const passwordProtected = (detail: string) => new FormatError('password', detail);

export class NeedsFallback extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'NeedsFallback';
  }
}

export class Restart extends Error {
  constructor(
    reason: string,
    /** The read to use instead, given the new attempt's SheetRead (book.ts). */
    readonly next: (read: never) => unknown,
  ) {
    super(reason);
    this.name = 'Restart';
  }
}

/** The limit of a result format a value passed (tools.md §2.8): `unit` is its `names.<unit>` key. */
export type LimitUnit = 'rows' | 'columns' | 'characters';

/**
 * A result past a limit of its format: the limit, the count found and where, in `params` (`unit` localized
 * when the writer was given `t`, else its key) for the message tools.md §2.8 asks for.
 */
export function formatLimit(format: string, unit: LimitUnit, max: number, found: number, where: { sheet?: string; row?: number; column?: number }, t?: (key: string) => string): FormatError {
  const params: Record<string, string | number> = { format, max, found, unit: t ? t(`names.${unit}`) : unit, limit: unit };
  if (where.sheet !== undefined) params.sheet = where.sheet;
  if (where.row !== undefined) params.row = where.row;
  if (where.column !== undefined) params.column = where.column;
  return new FormatError('format-limit', `${found} ${unit}; .${format} holds ${max}`, { params });
}

// Titles as read: the table model keeps titles as text (to match and show them), but a workbook's title row
// may hold numbers or dates (years, months across a report). Readers keep that row's typed cells here so
// that writers can put it back unchanged; anything that rebuilds titles carries them along.
import type { Cell, Row, TableData } from '../model.ts';

/** A table that may remember its title row as typed cells, one per title. */
export type SheetTable = TableData & {
  titleCells?: Cell[];
  /** The delimiter of the CSV the table was read from: a CSV result keeps it (tools.md §2.5). */
  delimiter?: string;
};

/**
 * Rows handed on at a time wherever rows are piped (readers, stacking): each row made for a batch dies young.
 * 4,096 rows of new cells outgrew the job workers' 8 MB young generation and were promoted as garbage
 * (merge-stack, 5 × 20,000 csv: growth 99–113 against 42–45 MB at 512).
 */
export const BATCH_ROWS = 512;

/**
 * A table whose rows are made only as they are handed on, in batches, and never all held at once (stacked
 * files, for one): the writer takes them as they come.
 */
export type PipedTable = Omit<SheetTable, 'rows'> & {
  width: number;
  rowCount: number;
  pipe(sink: (rows: Row[]) => void): void;
};

/** The title row to write: the typed cells when they still match the titles, else the titles as text. */
export function titleRow(t: Pick<SheetTable, 'header' | 'titleCells'>): Cell[] | null {
  if (!t.header) return null;
  return t.titleCells && t.titleCells.length === t.header.length ? t.titleCells : t.header;
}

/** The typed title of column `i` (its text when no typed row is known). */
export function titleCell(t: Pick<SheetTable, 'header' | 'titleCells'>, i: number): Cell {
  const row = titleRow(t);
  return row?.[i] ?? t.header?.[i] ?? '';
}

// Titles as read: the model keeps titles as text (to match and show them), but a workbook's title row may hold
// numbers or dates (years, months across a report). Readers keep that row's typed cells (TableHead.titleCells)
// so that writers can put it back unchanged; anything that rebuilds titles carries them along.
import type { Cell, TableHead } from '../model.ts';

type Titled = Pick<TableHead, 'header' | 'titleCells'>;

/** The title row to write: the typed cells when they still match the titles, else the titles as text. */
export function titleRow(t: Titled): Cell[] | null {
  if (!t.header) return null;
  return t.titleCells && t.titleCells.length === t.header.length ? t.titleCells : t.header;
}

/** The typed title of column `i` (its text when no typed row is known). */
export function titleCell(t: Titled, i: number): Cell {
  const row = titleRow(t);
  return row?.[i] ?? t.header?.[i] ?? '';
}

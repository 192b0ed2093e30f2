// A workbook read `full` (openWorkbook's `cells: 'full'`, read without a header) handed to a workbook writer
// as it was (tools.md §2.7): each sheet's cells back where they were in the sheet (a table read from its first
// non-empty row and column is put back at its origin), with its visibility, merged ranges and column widths.
// Sheets are read one at a time, as the writer asks for them.
import { drainBatches } from './batch.ts';
import { BATCH_ROWS, type AnyCell, type CellRange, type Row, type RowBatch, type Sheet, type SheetIn, type Table, type Visibility } from './model.ts';

/** One sheet to copy: the sheet, and what the caller changes of it. */
export interface SheetCopy {
  sheet: Sheet<AnyCell>;
  /** Its name in the result (default its own). */
  name?: string;
  /** Its visibility in the result (default its own). */
  visibility?: Visibility;
  /** Changes the sheet's table in place before it is written (unmerge-cells): rows in table coordinates. */
  edit?: (table: Table<AnyCell>, merges: CellRange[]) => CellRange[];
}

const NO_CELLS: readonly AnyCell[] = Object.freeze([]) as readonly AnyCell[];

/**
 * The sheets as a workbook writer takes them, each read when the writer gets to it. `layoutAfterRows`: the
 * writer reads a sheet's widths and merges after its rows (xlsx), so a sheet whose reader hands rows on as it
 * reads them (ods) goes to it that way, in sheet coordinates, unless the caller edits it (the edit needs it whole).
 * `layoutFirst`: the writer needs them before the rows (ods), and takes a sheet that way from a reader that can
 * give them first (xlsx without merged ranges).
 */
export function* copySheets(copies: Iterable<SheetCopy>, o: { layoutAfterRows?: boolean; layoutFirst?: boolean } = {}): Generator<SheetIn> {
  for (const copy of copies) {
    const asRead = o.layoutAfterRows || o.layoutFirst;
    const streamed = asRead && !copy.edit ? (copy.sheet.rowsAsRead?.({ layoutFirst: !o.layoutAfterRows }) ?? null) : null;
    if (streamed !== null) {
      yield { name: copy.name ?? copy.sheet.name, visibility: copy.visibility ?? copy.sheet.visibility, columnWidths: streamed.widths, merges: streamed.merges, rows: streamed.rows };
      continue;
    }
    const table = copy.sheet.table();
    const layout = table.layout;
    const origin = layout?.origin ?? { row: 0, col: 0 };
    // Merges and widths in sheet coordinates; an edit sees the table's rows and the merges within it.
    let merges = layout?.merges ?? [];
    if (copy.edit) {
      const local = merges.map((m) => ({ top: m.top - origin.row, left: m.left - origin.col, bottom: m.bottom - origin.row, right: m.right - origin.col }));
      merges = copy.edit(table, local).map((m) => ({ top: m.top + origin.row, left: m.left + origin.col, bottom: m.bottom + origin.row, right: m.right + origin.col }));
    }
    yield {
      name: copy.name ?? copy.sheet.name,
      visibility: copy.visibility ?? copy.sheet.visibility,
      columnWidths: layout?.widths ?? [],
      merges,
      rows: placed(table, origin),
    };
  }
}

/** The table's batches, after `origin.row` empty rows and with `origin.col` empty cells in front of each row. */
function* placed(table: Table<AnyCell>, origin: { row: number; col: number }): Generator<RowBatch<AnyCell> | readonly (readonly AnyCell[])[]> {
  for (let r = 0; r < origin.row; r += BATCH_ROWS) yield new Array<readonly AnyCell[]>(Math.min(BATCH_ROWS, origin.row - r)).fill(NO_CELLS);
  const pad = new Array<AnyCell>(origin.col).fill(null);
  for (const batch of drainBatches(table)) yield origin.col === 0 ? batch : batch.rows().map((row: Row<AnyCell>) => [...pad, ...row]);
}

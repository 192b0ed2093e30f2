// The result of an editing tool (tools.md §2.5): the sheet it edited written in its place among the
// workbook's other sheets, copied as the reader gives them (xlsx), or the edited table alone (CSV), with an
// info naming the sheets left out. What the readers do not fill (number formats other than dates, widths,
// merged ranges, visibility) is not carried to the copied sheets (README "Readers and what they fill").
import { FirstRows, rowsOf } from '../batch.ts';
import { csvWriter } from '../csv/write.ts';
import { detectType } from '../csv/detect-type.ts';
import { listText } from '../report.ts';
import { XlsxWriter } from '../xlsx/write.ts';
import type { AnyCell, Cell, FormatContext, RowBatch, Sheet, TableData, TableHead, Workbook, Written } from '../model.ts';

/** The edited table: its head (its name is the sheet's), and its rows in batches. */
export interface EditedTable {
  head: Omit<TableHead, 'name'>;
  rows: Iterable<RowBatch<AnyCell> | readonly (readonly AnyCell[])[]>;
}

/**
 * Writes the edited sheet `used` of `book` as `format`; `edit` makes the edited table when its turn comes.
 * Returns the file and the edited table's first rows, for the preview.
 */
export function writeEdited(book: Workbook<Cell>, used: Sheet<Cell>, format: 'xlsx' | 'csv', ctx: FormatContext, edit: () => EditedTable): { written: Written; preview: TableData<AnyCell> } {
  const first = new FirstRows();
  let head: TableHead | null = null;
  const take = (write: (batch: RowBatch<AnyCell> | readonly (readonly AnyCell[])[]) => void) => (batch: RowBatch<AnyCell> | readonly (readonly AnyCell[])[]) => {
    first.take(batch);
    write(batch);
  };
  let written: Written;
  if (format === 'csv') {
    const table = edit();
    head = { ...table.head, name: used.name };
    const out = csvWriter(head);
    const write = take((b) => out.write(b));
    for (const batch of table.rows) write(batch);
    written = out.end();
    const others = book.sheets.filter((s) => s !== used).map((s) => s.name);
    if (others.length > 0) ctx.message('info', 'sheets_not_written', { sheet: used.name, sheets: listText(others) });
  } else {
    const out = new XlsxWriter(ctx, book.sheets.map((s) => s.name));
    for (const sheet of book.sheets) {
      if (sheet === used) {
        const table = edit();
        head = { ...table.head, name: used.name };
        const write = take(out.sheet(head).write);
        for (const batch of table.rows) write(batch);
      } else {
        // Another sheet, unchanged, read whole: a streamed read may have to start again (a cell left of the
        // columns its first rows decided, book.ts Restart), and a sheet the ZIP has begun cannot be taken back.
        const table = sheet.table();
        const copy = out.sheet(table);
        for (const batch of table) copy.write(batch);
      }
    }
    written = out.end();
  }
  const h = head!;
  return { written, preview: { name: used.name, header: h.header, rows: first.preview(used.name, h.header, h.width, 0).rows } };
}

/**
 * Editing tools that join or split a CSV's fields read it as text, so that a field shows as written (tools.md
 * §2.6); for a workbook result its other fields are then typed as csv-to-excel types them (§2.3). The typing
 * of a cell for `format`, or null when there is nothing to type (a workbook's cells are typed already).
 */
export function typingFor(head: Pick<TableHead, 'delimiter'>, format: 'xlsx' | 'csv'): ((c: Cell) => Cell) | null {
  if (format !== 'xlsx' || head.delimiter === undefined) return null;
  const o = { decimalComma: head.delimiter !== ',' };
  return (c) => (typeof c === 'string' ? detectType(c, o) : c);
}

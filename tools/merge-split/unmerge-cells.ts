// Splits merged ranges and writes the range's top-left cell into every cell it covered (value, type and number
// format; a formula stays in the top-left cell, the others get its cached value, since a copied formula would
// refer to other cells), or leaves them empty with `fill=first-only`. Every sheet by default, hidden ones
// included; with `all-sheets=false` only the first visible one, the others kept with their ranges. Everything
// else of the workbook is kept as it was (tools.md §2.7). CSV: one file per processed sheet.
import * as v from 'valibot';
import { defineTool, type ToolContext } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf, extensionOf } from '../core/files.ts';
import type { OutputFile } from '../core/output.ts';
import { reportChanges, reportNotCarried, writeBook } from '../core/workbooks.ts';
import { copySheets, csvWriter, FullCell, openWorkbook, type AnyCell, type CellRange, type Row, type Table } from '../formats/index.ts';

/** Cells one call may fill (tools.md: past it, too_complex). */
const MAX_FILLED = 2_000_000;

export default defineTool({
  id: 'unmerge-cells',
  category: 'merge-split',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'ods'] },
  options: v.strictObject({
    fill: v.optional(v.picklist(['all', 'first-only']), 'all'),
    'all-sheets': v.optional(v.boolean(), true),
    format: v.optional(v.picklist(['auto', 'xlsx', 'csv']), 'auto'),
  }),
  async run({ file }, opts, ctx) {
    const book = openWorkbook(file, ctx, { hasHeader: false, cells: 'full' });
    const processed = new Set(opts['all-sheets'] ? book.sheets : [book.first]);
    const to = opts.format === 'auto' ? (extensionOf(file.name) === 'ods' ? 'ods' : 'xlsx') : opts.format;
    const budget = { filled: 0, ranges: 0 };
    const unmerge = (table: Table<AnyCell>, merges: CellRange[], sheet: string) => {
      const r = unmergeTable(table, merges, opts.fill === 'all', budget);
      if (r.ranges > 0) ctx.message('info', 'cells_unmerged', { sheet, ranges: r.ranges, cells: r.filled });
    };
    let files: OutputFile[];
    if (to === 'csv') {
      files = [...processed].map((sheet) => {
        const table = sheet.table();
        unmerge(table, localMerges(table), sheet.name);
        return csvOf(table, sheet.name, ctx);
      });
    } else {
      reportNotCarried(file, ctx);
      const sheets = copySheets(
        book.sheets.map((sheet) => ({
          sheet,
          ...(processed.has(sheet)
            ? {
                edit: (table: Table<AnyCell>, merges: CellRange[]) => {
                  unmerge(table, merges, sheet.name);
                  return [];
                },
              }
            : {}),
        })),
      );
      const written = await writeBook(to, { sheets }, ctx);
      reportChanges(written.changed, ctx);
      files = [ctx.file(`${baseNameOf(file.name)}-${ctx.name('unmerged')}.${to}`, written)];
    }
    if (budget.ranges === 0) ctx.message('info', 'no_merged_cells', { name: file.name });
    return { files };
  },
});

/** The table's merged ranges in table coordinates. */
function localMerges(table: Table<AnyCell>): CellRange[] {
  const o = table.layout?.origin ?? { row: 0, col: 0 };
  return (table.layout?.merges ?? []).map((m) => ({ top: m.top - o.row, left: m.left - o.col, bottom: m.bottom - o.row, right: m.right - o.col }));
}

/**
 * Fills each range (table coordinates) with its top-left cell, growing the rows a range reaches past; the
 * count of cells filled is checked against MAX_FILLED across the call.
 */
function unmergeTable(table: Table<AnyCell>, merges: readonly CellRange[], fill: boolean, budget: { filled: number; ranges: number }): { ranges: number; filled: number } {
  const rows = table.rows();
  let ranges = 0;
  let filled = 0;
  for (const m of merges) {
    if (m.bottom === m.top && m.right === m.left) continue;
    ranges++;
    if (!fill || m.top < 0 || m.left < 0) continue;
    const first = rows[m.top]?.[m.left] ?? null;
    if (first === null || first === '') continue;
    const copy: AnyCell = first instanceof FullCell && first.formula !== null ? new FullCell(first.value, first.format, null) : first;
    const cells = (m.bottom - m.top + 1) * (m.right - m.left + 1) - 1;
    budget.filled += cells;
    if (budget.filled > MAX_FILLED) throw new ToolError('too_complex', { messageKey: 'error-details.unmerge-cells', params: { max: MAX_FILLED } });
    while (rows.length <= m.bottom) rows.push([] as Row<AnyCell>);
    for (let r = m.top; r <= m.bottom; r++) {
      const row = rows[r];
      while (row.length <= m.right) row.push(null);
      for (let c = m.left; c <= m.right; c++) if (r !== m.top || c !== m.left) row[c] = copy;
    }
    filled += cells;
  }
  budget.ranges += ranges;
  return { ranges, filled };
}

/** One processed sheet's values as CSV, named after the sheet. */
function csvOf(table: Table<AnyCell>, name: string, ctx: ToolContext): OutputFile {
  const width = table.rows().reduce((n, r) => Math.max(n, r.length), table.width);
  const out = csvWriter({ name, header: null, width });
  for (const batch of table) out.write(batch);
  return ctx.file(`${name}.csv`, out.end());
}

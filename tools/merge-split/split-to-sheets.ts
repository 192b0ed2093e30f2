// split-by-column into one workbook (tools.md §4 split-to-sheets): one sheet per distinct value of a column,
// each with the titles row and its rows in their original order. Rows are grouped by the cell's machine form
// (§2.6) without outer spaces: case, accents and inner spaces count, and the number 7 and the text `7` are one
// group. Empty cells form the group `(vacío)` / `(empty)`, last when sorted.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { columnRef, resolveColumn } from '../core/columns.ts';
import { ToolError } from '../core/errors.ts';
import { editedName } from '../core/schema.ts';
import { csvText, listText, openWorkbook, sheetNames, XlsxWriter, type AnyCell, type Cell, type RowBatch } from '../formats/index.ts';

const MAX_GROUPS = 1000;
/** Renamed values an info message lists. */
const LISTED = 20;

export default defineTool({
  id: 'split-to-sheets',
  category: 'merge-split',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    column: columnRef,
    'include-column-in-name': v.optional(v.boolean(), false),
    'keep-column': v.optional(v.boolean(), true),
    'sheet-order': v.optional(v.picklist(['appearance', 'alphabetical']), 'appearance'),
    'include-original': v.optional(v.boolean(), false),
  }),
  run({ file }, opts, ctx) {
    const table = openWorkbook(file, ctx, { hasHeader: true, sheets: 'first' }).table();
    const col = resolveColumn(table, opts.column, 'column', ctx);
    const title = table.header?.[col]?.trim() ? table.header[col] : ctx.name('column', { n: col + 1 });

    // Groups by key, in order of first appearance; null is the empty group.
    const groups = new Map<string | null, number[]>();
    let row = 0;
    for (const batch of table as Iterable<RowBatch>) {
      for (const c of batch.column(col)) {
        const text = c === null ? '' : csvText(c).trim();
        const key = text === '' ? null : text;
        let rows = groups.get(key);
        if (rows === undefined) {
          if (groups.size >= MAX_GROUPS) throw new ToolError('invalid_option', { option: 'column', messageKey: 'error-details.too-many-groups', params: { option: 'column', max: MAX_GROUPS, found: countGroups(table, col) } });
          groups.set(key, (rows = []));
        }
        rows.push(row++);
      }
    }
    let list = [...groups.entries()].map(([key, rows]) => ({ key, rows }));
    if (opts['sheet-order'] === 'alphabetical') {
      const collator = new Intl.Collator(ctx.lang);
      list = list.sort((a, b) => (a.key === null ? 1 : b.key === null ? -1 : collator.compare(a.key, b.key)));
    }
    if (list.length === 0) list.push({ key: null, rows: [] });

    const empty = `(${ctx.name('empty')})`;
    const wanted = list.map((g) => (opts['include-column-in-name'] ? `${title}-${g.key ?? empty}` : (g.key ?? empty)));
    const original = opts['include-original'] ? [table.delimiter !== undefined ? ctx.name('data') : table.name] : [];
    const names = sheetNames([...original, ...wanted], ctx.name('sheet'));
    const groupNames = names.slice(original.length);
    const changed = list.flatMap((g, i) => (groupNames[i] !== wanted[i] && g.key !== null ? [`${g.key} → ${groupNames[i]}`] : []));
    if (changed.length > 0) ctx.message('info', 'sheet_names_changed', { count: changed.length, names: listText(changed, LISTED) });

    const keep = opts['keep-column'];
    const drop = <T>(xs: readonly T[]): T[] => (keep ? [...xs] : xs.filter((_, i) => i !== col));
    const head = { header: table.header ? drop(table.header) : null, ...(table.titleCells ? { titleCells: drop(table.titleCells) } : {}), width: table.width - (keep ? 0 : 1) };
    const out = new XlsxWriter(ctx, names);
    if (original.length > 0) {
      const sheet = out.sheet({ ...table, name: names[0], header: table.header, width: table.width });
      for (const batch of table as Iterable<RowBatch>) sheet.write(batch);
    }
    const pad = (r: Cell[]) => (r.length >= table.width ? r : [...r, ...new Array<Cell>(table.width - r.length).fill(null)]);
    let preview: AnyCell[][] = [];
    list.forEach((g, i) => {
      const batch = table.pick(g.rows);
      const rows = (keep ? batch : batch.without(col)).rows().map((r) => (keep ? pad(r) : r));
      if (i === 0) preview = rows.slice(0, 20);
      out.sheet({ ...head, name: groupNames[i] }).write(rows);
    });
    ctx.message('info', 'split_to_sheets_done', { rows: table.total, sheets: list.length, column: title });
    const written = out.end();
    return {
      files: [ctx.file(editedName(file, ctx.name('sheets'), 'xlsx', ctx), written)],
      preview: { name: groupNames[0], header: head.header, rows: preview },
    };
  },
});

/** The number of groups a column has, for the message that refuses it (read once more, only then). */
function countGroups(table: Iterable<RowBatch>, col: number): number {
  const keys = new Set<string>();
  for (const batch of table) for (const c of batch.column(col)) keys.add(c === null ? '' : csvText(c).trim());
  return keys.size;
}

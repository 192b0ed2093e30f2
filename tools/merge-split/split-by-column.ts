// One file per distinct value of a column, in order of first appearance, named `<value>.<ext>` (or
// `<column>-<value>.<ext>`). `column` is a title (ignoring case and outer spaces) or, failing that, a 1-based
// position. Values are grouped exactly (type and text); empty cells form their own group, named "vacío"/
// "empty"; dates name their group in ISO form. CSV to CSV keeps every value's text exactly (no typing).
import * as v from 'valibot';
import { defineTool, type ToolContext } from '../core/define.ts';
import { resolveColumn } from '../core/columns.ts';
import { outputFormat } from '../core/schema.ts';
import { cellText, columnLetter, csvText, openWorkbook, tableWriter, type Cell, type TableHead } from '../formats/index.ts';

/** Rows grouped by value, exactly (type and text): a map per type, so that no key text is made per row. */
class Groups {
  readonly list: { value: Cell; rows: number[] }[] = [];
  private readonly byKind = { string: new Map<string, number[]>(), number: new Map<number, number[]>(), boolean: new Map<boolean, number[]>(), date: new Map<number, number[]>() };
  private empty: number[] | null = null;

  add(value: Cell, row: number): void {
    let rows: number[] | undefined;
    if (value === null) rows = this.empty ??= this.open(value);
    else if (value instanceof Date) rows = this.in(this.byKind.date, value.getTime(), value);
    else if (typeof value === 'string') rows = this.in(this.byKind.string, value, value);
    else if (typeof value === 'number') rows = this.in(this.byKind.number, value, value);
    else rows = this.in(this.byKind.boolean, value, value);
    rows.push(row);
  }

  private in<K>(map: Map<K, number[]>, key: K, value: Cell): number[] {
    let rows = map.get(key);
    if (rows === undefined) map.set(key, (rows = this.open(value)));
    return rows;
  }

  private open(value: Cell): number[] {
    const rows: number[] = [];
    this.list.push({ value, rows });
    return rows;
  }
}

function groupName(c: Cell, ctx: ToolContext): string {
  if (c === null || (typeof c === 'string' && c.trim() === '')) return ctx.name('empty');
  return typeof c === 'number' || c instanceof Date ? csvText(c) : cellText(c);
}

export default defineTool({
  id: 'split-by-column',
  category: 'merge-split',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    column: v.pipe(v.string(), v.minLength(1), v.maxLength(255)),
    format: outputFormat,
    'include-column-in-name': v.optional(v.boolean(), false),
    'keep-column': v.optional(v.boolean(), true),
  }),
  run({ file }, opts, ctx) {
    const keep = opts['keep-column'];
    const named = (value: Cell, title: string) => (opts['include-column-in-name'] ? `${title}-${groupName(value, ctx)}` : groupName(value, ctx));
    // CSV to CSV keeps every value's text (its records are copied as they are); to xlsx, CSV values are typed.
    const table = openWorkbook(file, ctx, { hasHeader: true, detectTypes: opts.format === 'xlsx', sheets: 'first' }).table();
    const col = resolveColumn(table, opts.column, 'column', ctx);
    const title = table.header?.[col] || columnLetter(col);
    // Rows grouped by the column's value, groups in order of first appearance.
    const groups = new Groups();
    let row = 0;
    for (const batch of table) for (const value of batch.column(col)) groups.add(value, row++);
    const drop = <T>(xs: T[] | null | undefined) => (xs && !keep ? xs.filter((_, i) => i !== col) : (xs ?? undefined));
    const head: Omit<TableHead, 'name'> = { header: drop(table.header) ?? null, titleCells: drop(table.titleCells), width: table.width - (keep ? 0 : 1), delimiter: table.delimiter };
    const parts = groups.list.map((g) => ({ name: named(g.value, title), rows: g.rows }));
    if (parts.length === 0) parts.push({ name: ctx.name('empty'), rows: [] });
    // Each part is written as one batch of its rows: a CSV part copied from a CSV is then one exact buffer.
    const files = parts.map((p) => {
      const out = tableWriter(opts.format, { ...head, name: p.name }, ctx);
      const batch = table.pick(p.rows);
      out.write(keep ? batch : batch.without(col));
      return ctx.file(`${p.name}.${opts.format}`, out.end());
    });
    return { files };
  },
});

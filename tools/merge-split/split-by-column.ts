// One file per distinct value of a column, in order of first appearance, named `<value>.<ext>` (or
// `<column>-<value>.<ext>`). `column` is a title (ignoring case and outer spaces) or, failing that, a 1-based
// position. Values are grouped exactly (type and text); empty cells form their own group, named "vacío"/
// "empty"; dates name their group in ISO form. CSV to CSV keeps every value's text exactly (no typing).
import * as v from 'valibot';
import { defineTool, type ToolContext } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { extensionOf } from '../core/files.ts';
import { outputFormat } from '../core/schema.ts';
import { cellText, columnLetter, titleKey, type Cell, type Row } from '../formats/model.ts';
import { partPreview, readCsvRecords, writeCsvParts } from '../formats/csv/records.ts';
import { csvText, listText, readFirstTable, writeCsv, writeXlsx, type SheetTable } from '../formats/index.ts';

function findColumn(header: string[] | null, column: string, ctx: ToolContext): number {
  const titles = header ?? [];
  const byTitle = titles.findIndex((t) => titleKey(t) === titleKey(column));
  if (byTitle >= 0) return byTitle;
  if (/^\s*\d+\s*$/.test(column)) {
    const n = Number(column);
    if (n >= 1 && n <= titles.length) return n - 1;
  }
  const expected = ctx.t('messages.column_expected', { titles: listText(titles.map((t, i) => t || columnLetter(i)), 20), max: titles.length });
  throw new ToolError('invalid_option', { option: 'column', params: { option: 'column', expected, received: column.slice(0, 100) } });
}

const groupKey = (c: Cell) => (c === null ? 'null' : c instanceof Date ? `date:${c.getTime()}` : `${typeof c}:${String(c)}`);

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
    if (extensionOf(file.name) === 'csv' && opts.format === 'csv') {
      // Records are copied as they are: no typing, no table (tools/sheet/csv-records.ts). Every value is
      // text or empty, so the text itself is the group key ('' for the empty group).
      const src = readCsvRecords(file, { hasHeader: true, report: ctx.message, maxCells: ctx.limits.maxCells });
      const col = findColumn(src.header, opts.column, ctx);
      const title = src.header?.[col] || columnLetter(col);
      const { partOf, values } = src.groups(col);
      const header = keep ? src.header : src.header!.filter((_, i) => i !== col);
      const names = values.map((value) => named(value === '' ? null : value, title));
      if (names.length === 0) names.push(ctx.name('empty'));
      const dropColumn = keep ? -1 : col;
      const bytes = writeCsvParts(src, partOf, names.length, { header: () => header, dropColumn });
      const files = names.map((name, i) => ctx.file(`${name}.csv`, bytes[i]));
      return { files, preview: partPreview(src, partOf, 0, names[0], header, dropColumn) };
    }
    const table = readFirstTable(file, { hasHeader: true, detectTypes: true, report: ctx.message, maxCells: ctx.limits.maxCells });
    const col = findColumn(table.header, opts.column, ctx);
    const title = table.header?.[col] || columnLetter(col);
    const groups = new Map<string, { value: Cell; rows: Row[] }>();
    for (const row of table.rows) {
      const value = row[col] ?? null;
      const key = groupKey(value);
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { value, rows: [] }));
      g.rows.push(keep ? row : row.filter((_, i) => i !== col));
    }
    const drop = <T>(xs: T[] | null | undefined) => (xs && !keep ? xs.filter((_, i) => i !== col) : (xs ?? undefined));
    const header = drop(table.header) ?? null;
    const titleCells = drop(table.titleCells);
    const parts: SheetTable[] = [...groups.values()].map((g) => ({ name: named(g.value, title), header, titleCells, delimiter: table.delimiter, rows: g.rows }));
    if (parts.length === 0) parts.push({ name: ctx.name('empty'), header, titleCells, delimiter: table.delimiter, rows: [] });
    const files = parts.map((p) => ctx.file(`${p.name}.${opts.format}`, opts.format === 'csv' ? writeCsv(p) : writeXlsx([p], ctx)));
    return { files, preview: parts[0] };
  },
});

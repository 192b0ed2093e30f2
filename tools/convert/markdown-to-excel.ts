// Reads the GFM pipe tables of a Markdown file (tools/formats/markdown/read.ts: found as GFM finds them, in
// block quotes and list items, never in code blocks) into one sheet per table, or one CSV per table. Inline
// markup is reduced to its text unless `keep-markdown`; values are typed by csv-to-excel's rules unless
// `detect-types` is false (titles stay text). Sheets are named after the nearest heading above their table.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf } from '../core/files.ts';
import { outputFormat } from '../core/schema.ts';
import { openWorkbook, sheetNames, tableWriter, XlsxWriter, type FormatContext, type Table } from '../formats/index.ts';

export default defineTool({
  id: 'markdown-to-excel',
  category: 'convert',
  input: { kind: 'file', formats: ['md', 'markdown'] },
  options: v.strictObject({
    table: v.optional(v.union([v.pipe(v.string(), v.regex(/^(all|[1-9][0-9]{0,5})?$/)), v.pipe(v.number(), v.integer(), v.minValue(1))]), 'all'),
    'keep-markdown': v.optional(v.boolean(), false),
    'detect-types': v.optional(v.boolean(), true),
    format: outputFormat,
  }),
  run({ file }, opts, ctx) {
    const book = openWorkbook(file, ctx, { hasHeader: true, detectTypes: opts['detect-types'], keepMarkdown: opts['keep-markdown'] });
    const wanted = opts.table === '' || opts.table === 'all' ? null : Number(opts.table);
    if (wanted !== null && wanted > book.sheets.length) {
      throw new ToolError('invalid_option', { option: 'table', messageKey: 'error-details.table-beyond', params: { option: 'table', value: wanted, count: book.sheets.length } });
    }
    const chosen = wanted === null ? book.sheets : [book.sheets[wanted - 1]];
    const tables: Table[] = chosen.map((s) => s.table());
    const names = sheetNames(tables.map((t) => t.name), ctx.name('sheet'));
    const base = baseNameOf(file.name);
    const rows = tables.reduce((n, t) => n + t.rowCount, 0);
    const files =
      opts.format === 'xlsx'
        ? [ctx.file(`${base}.xlsx`, writeBook(tables, names, ctx))]
        : tables.map((t, i) => {
            const out = tableWriter('csv', t, ctx);
            for (const batch of t) out.write(batch);
            return ctx.file(`${tables.length === 1 ? base : names[i]}.csv`, out.end());
          });
    ctx.message('info', 'markdown_read', { name: file.name, found: book.sheets.length, tables: tables.length, rows, sheets: names.join(', ').slice(0, 500) });
    return { files };
  },
});

function writeBook(tables: Table[], names: string[], ctx: FormatContext) {
  const book = new XlsxWriter(ctx, names);
  for (const t of tables) {
    const sheet = book.sheet(t);
    for (const batch of t) sheet.write(batch);
  }
  return book.end();
}

// The <table>s of an HTML page, one sheet (or CSV) per table, in document order (tools.md §5; how a page is read
// is in tools/formats/html/read.ts: spans, sections, nested tables, captions, charsets, nothing fetched). The
// inverse of excel-to-html. `spans`: a merged range in xlsx (`merge`), the value in every covered cell
// (`fill`), or in the first cell only (`first-only`, and `merge` in CSV, which has no merged cells).
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf } from '../core/files.ts';
import { outputFormat } from '../core/schema.ts';
import { csvWriter, openWorkbook, sheetNames, XlsxWriter, type CellRange, type Row, type Table } from '../formats/index.ts';

export default defineTool({
  id: 'html-to-excel',
  category: 'convert',
  input: { kind: 'file', formats: ['html', 'htm'] },
  options: v.strictObject({
    table: v.optional(v.union([v.pipe(v.string(), { ...v.regex(/^(?:all|[1-9]\d{0,8})?$/), expects: '"all" or a position from 1' }), v.pipe(v.number(), v.integer(), v.minValue(1))]), 'all'),
    spans: v.optional(v.picklist(['merge', 'fill', 'first-only']), 'merge'),
    'detect-types': v.optional(v.boolean(), true),
    format: outputFormat,
  }),
  run({ file }, opts, ctx) {
    const book = openWorkbook(file, ctx, { hasHeader: false, detectTypes: opts['detect-types'] });
    const count = book.sheets.length;
    const pick = opts.table === 'all' || opts.table === '' ? null : Number(opts.table);
    if (pick !== null && pick > count) throw new ToolError('invalid_option', { option: 'table', messageKey: 'error-details.html-table', params: { received: pick, count } });
    const sheets = pick === null ? book.sheets : [book.sheets[pick - 1]];
    const names = sheetNames(sheets.map((s) => s.name), ctx.name('sheet'));
    const base = baseNameOf(file.name);
    let rows = 0;
    const write = (table: Table, merges: readonly CellRange[]) => {
      rows += table.total;
      return opts.spans === 'fill' ? filled(table.rows(), merges) : table.rows();
    };
    let files;
    if (opts.format === 'xlsx') {
      const out = new XlsxWriter(ctx, names);
      sheets.forEach((sheet, i) => {
        const table = sheet.table();
        const merges = table.layout?.merges ?? [];
        out.sheet({ name: names[i], header: null, width: table.width }, { merges: opts.spans === 'merge' ? merges : [] }).write(write(table, merges));
      });
      files = [ctx.file(`${base}.xlsx`, out.end())];
    } else {
      files = sheets.map((sheet, i) => {
        const table = sheet.table();
        const out = csvWriter({ name: names[i], header: null, width: table.width });
        out.write(write(table, table.layout?.merges ?? []));
        return ctx.file(sheets.length === 1 ? `${base}.csv` : `${names[i]}.csv`, out.end());
      });
    }
    ctx.message('info', 'tables_from_html', { name: file.name, tables: sheets.length, found: count, rows });
    return { files };
  },
});

/** The rows with each span's value copied into every cell it covers. */
function filled(rows: Row[], merges: readonly CellRange[]): Row[] {
  for (const m of merges) {
    const value = rows[m.top]?.[m.left] ?? null;
    for (let r = m.top; r <= m.bottom; r++) for (let c = m.left; c <= m.right; c++) if (rows[r]) rows[r][c] = value;
  }
  return rows;
}

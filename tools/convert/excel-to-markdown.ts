// Writes the first sheet (or the CSV, or every sheet as `## name` sections) as GitHub Flavored Markdown pipe
// tables (tools/formats/markdown/write.ts): cells in display form (§2.6), escaped so that GFM shows them as they
// are and markdown-to-excel reads them back to the same text. A column whose non-empty cells are all numbers is
// right-aligned unless `align-numbers` is false. Empty sheets are skipped with a warning.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf } from '../core/files.ts';
import { hasHeader } from '../core/schema.ts';
import { numericColumns, openWorkbook, shownRows, shownTitles, writeMarkdown, type MarkdownSection, type Table } from '../formats/index.ts';

export default defineTool({
  id: 'excel-to-markdown',
  category: 'convert',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    'has-header': hasHeader,
    'all-sheets': v.optional(v.boolean(), false),
    'align-numbers': v.optional(v.boolean(), true),
  }),
  run({ file }, opts, ctx) {
    const book = openWorkbook(file, ctx, { hasHeader: opts['has-header'], detectTypes: false, sheets: opts['all-sheets'] ? 'all' : 'first' });
    const tables: Table[] = opts['all-sheets'] ? book.sheets.map((s) => s.table()) : [book.table()];
    const display = { lang: ctx.lang, words: { true: ctx.t('display.true'), false: ctx.t('display.false') } };
    const sections: MarkdownSection[] = [];
    let rows = 0;
    for (const table of tables) {
      if (table.width === 0) {
        ctx.message('warning', 'sheet_skipped_empty', { name: file.name, sheet: table.name });
        continue;
      }
      const all = table.rows();
      sections.push({
        name: table.name,
        titles: shownTitles(table, display, (n) => ctx.name('column', { n })),
        rows: shownRows(all, table.width, display),
        right: opts['align-numbers'] ? numericColumns(table, all, { dates: false }) : new Array<boolean>(table.width).fill(false),
      });
      rows += all.length;
    }
    if (sections.length === 0) throw new ToolError('invalid_file', { option: 'file', messageKey: 'error-details.empty', params: { name: file.name.slice(0, 200) } });
    const out = ctx.file(`${baseNameOf(file.name)}.md`, writeMarkdown(sections, { headings: opts['all-sheets'] }));
    ctx.message('info', 'markdown_written', { file: out.name, tables: sections.length, rows });
    return { files: [out] };
  },
});

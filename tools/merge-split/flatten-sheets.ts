// Joins every sheet of one workbook into a single .xlsx table: columns aligned by title when the sheets have
// titles, by position otherwise (tools/formats/table/stack.ts); empty sheets are skipped with an info message.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { hasHeader, optionalText } from '../core/schema.ts';
import { openWorkbook, stack, xlsxWriter } from '../formats/index.ts';

export default defineTool({
  id: 'flatten-sheets',
  category: 'merge-split',
  input: { kind: 'file', formats: ['xlsx', 'xls'] },
  options: v.strictObject({
    'has-header': hasHeader,
    'add-sheet-column': v.optional(v.boolean(), true),
    'sheet-column-name': optionalText,
  }),
  run({ file }, opts, ctx) {
    const book = openWorkbook(file, ctx, { hasHeader: opts['has-header'] });
    const sources = book.sheets.map((sheet) => ({ label: sheet.name, table: sheet.table() }));
    const flat = stack(sources, {
      name: ctx.name('flattened'),
      hasHeader: opts['has-header'],
      matchByName: true,
      labelColumn: opts['add-sheet-column'] ? opts['sheet-column-name'] || ctx.name('sheet-column') : null,
      report: ctx.message,
    });
    // The rows are made as the sheet is written: never a second copy of every row.
    const out = xlsxWriter(flat, ctx);
    for (const batch of flat) out.write(batch);
    return { files: [ctx.file(`${ctx.name('flattened')}.xlsx`, out.end())] };
  },
});

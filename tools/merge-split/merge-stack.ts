// Stacks the rows of 2 to 20 files into one .xlsx table. Only the first sheet of each workbook is used (a
// warning names the others); columns are aligned by title or by position as tools/formats/table/stack.ts
// describes, and every difference between the files' columns is reported. CSV values are typed (the result is
// xlsx), each row only as it is stacked: the files' tables are never all held at once.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { hasHeader, optionalText } from '../core/schema.ts';
import { openWorkbook, stack, xlsxWriter } from '../formats/index.ts';

export default defineTool({
  id: 'merge-stack',
  category: 'merge-split',
  input: { kind: 'files', formats: ['xlsx', 'xls', 'csv'], min: 2, max: 20 },
  options: v.strictObject({
    'has-header': hasHeader,
    'match-by-name': v.optional(v.boolean(), true),
    'add-source-column': v.optional(v.boolean(), true),
    'source-column-name': optionalText,
  }),
  run({ files }, opts, ctx) {
    const sources = files.map((file) => ({ label: file.name, table: openWorkbook(file, ctx, { hasHeader: opts['has-header'], sheets: 'first' }).table() }));
    const merged = stack(sources, {
      name: ctx.name('merged'),
      hasHeader: opts['has-header'],
      matchByName: opts['match-by-name'],
      labelColumn: opts['add-source-column'] ? opts['source-column-name'] || ctx.name('source-column') : null,
      report: ctx.message,
    });
    // The merged rows are made as the sheet is written: never a second copy of every row.
    const out = xlsxWriter(merged, ctx);
    for (const batch of merged) out.write(batch);
    return { files: [ctx.file(`${ctx.name('merged')}.xlsx`, out.end())] };
  },
});

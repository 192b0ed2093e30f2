// Joins every sheet of one workbook into a single .xlsx table: columns aligned by title when the sheets have
// titles, by position otherwise (tools/sheet/header.ts); empty sheets are skipped with an info message.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { hasHeader, optionalText } from '../core/schema.ts';
import { readTables, stack, tableSource, writePipedXlsx } from '../formats/index.ts';

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
    const { tables } = readTables(file, { hasHeader: opts['has-header'], sheets: 'all', detectTypes: true, report: ctx.message, maxCells: ctx.limits.maxCells });
    const flat = stack(
      tables.map((t) => tableSource(t, t.name)),
      {
        name: ctx.name('flattened'),
        hasHeader: opts['has-header'],
        matchByName: true,
        labelColumn: opts['add-sheet-column'] ? opts['sheet-column-name'] || ctx.name('sheet-column') : null,
        report: ctx.message,
      },
    );
    const { bytes, preview } = writePipedXlsx(flat, ctx);
    return { files: [ctx.file(`${ctx.name('flattened')}.xlsx`, bytes)], preview };
  },
});

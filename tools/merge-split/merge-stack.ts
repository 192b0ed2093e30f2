// Stacks the rows of 2 to 20 files into one .xlsx table. Only the first sheet of each workbook is used (a
// warning names the others); columns are aligned by title or by position as tools/sheet/header.ts describes,
// and every difference between the files' columns is reported. CSV values are typed (the result is xlsx).
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { hasHeader, optionalText } from '../core/schema.ts';
import { extensionOf } from '../core/files.ts';
import { readFirstTable, stack, tableSource, writePipedXlsx } from '../formats/index.ts';
import { readCsvRecords, recordsSource } from '../formats/csv/records.ts';

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
    const sources = files.map((file) => {
      const read = { hasHeader: opts['has-header'], option: 'files' as const, report: ctx.message, maxCells: ctx.limits.maxCells };
      // A CSV is typed only as its rows are stacked: the files' tables are never all held at once.
      if (extensionOf(file.name) === 'csv') return recordsSource(readCsvRecords(file, read), file.name);
      return tableSource(readFirstTable(file, { ...read, detectTypes: true }), file.name);
    });
    const merged = stack(sources, {
      name: ctx.name('merged'),
      hasHeader: opts['has-header'],
      matchByName: opts['match-by-name'],
      labelColumn: opts['add-source-column'] ? opts['source-column-name'] || ctx.name('source-column') : null,
      report: ctx.message,
    });
    // The merged rows are made as the sheet is written: never a second copy of every row.
    const { bytes, preview } = writePipedXlsx(merged, ctx);
    return { files: [ctx.file(`${ctx.name('merged')}.xlsx`, bytes)], preview };
  },
});

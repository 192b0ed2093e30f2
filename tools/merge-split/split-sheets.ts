// One file per sheet of a workbook, named `<sheet name>.<format>`; every sheet is kept, empty ones included.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { hasHeader, outputFormat } from '../core/schema.ts';
import { readTables, writeCsv, writeXlsx } from '../formats/index.ts';

export default defineTool({
  id: 'split-sheets',
  category: 'merge-split',
  input: { kind: 'file', formats: ['xlsx', 'xls'] },
  options: v.strictObject({
    'has-header': hasHeader,
    format: outputFormat,
  }),
  run({ file }, opts, ctx) {
    const { tables } = readTables(file, { hasHeader: opts['has-header'], sheets: 'all', detectTypes: true, report: ctx.message, maxCells: ctx.limits.maxCells });
    const files = tables.map((t) =>
      ctx.file(`${t.name}.${opts.format}`, opts.format === 'csv' ? writeCsv(t) : writeXlsx([t], ctx)),
    );
    return { files, preview: tables[0] };
  },
});

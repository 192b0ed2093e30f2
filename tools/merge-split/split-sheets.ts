// One file per sheet of a workbook, named `<sheet name>.<format>`; every sheet is kept, empty ones included.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { hasHeader, outputFormat } from '../core/schema.ts';
import { openWorkbook, tableWriter } from '../formats/index.ts';

export default defineTool({
  id: 'split-sheets',
  category: 'merge-split',
  input: { kind: 'file', formats: ['xlsx', 'xls'] },
  options: v.strictObject({
    'has-header': hasHeader,
    format: outputFormat,
  }),
  run({ file }, opts, ctx) {
    const book = openWorkbook(file, ctx, { hasHeader: opts['has-header'] });
    const files = book.sheets.map((sheet) => {
      const table = sheet.table();
      const out = tableWriter(opts.format, table, ctx);
      for (const batch of table) out.write(batch);
      return ctx.file(`${table.name}.${opts.format}`, out.end());
    });
    return { files };
  },
});

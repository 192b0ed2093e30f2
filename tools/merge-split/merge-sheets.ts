// Gathers 2 to 20 files into one .xlsx workbook, one sheet per file (the first sheet of each workbook; a
// warning names the others). Sheets are named after their file, or keep their original name on request (a CSV
// has none: its file name is used); names are made valid and unique for Excel.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { baseNameOf } from '../core/files.ts';
import { hasHeader } from '../core/schema.ts';
import { readFirstTable, sheetNames, writeXlsx } from '../formats/index.ts';

export default defineTool({
  id: 'merge-sheets',
  category: 'merge-split',
  input: { kind: 'files', formats: ['xlsx', 'xls', 'csv'], min: 2, max: 20 },
  options: v.strictObject({
    'has-header': hasHeader,
    'keep-original-sheet-names': v.optional(v.boolean(), false),
  }),
  run({ files }, opts, ctx) {
    const tables = files.map((file) => {
      const table = readFirstTable(file, { hasHeader: opts['has-header'], detectTypes: true, option: 'files', report: ctx.message, maxCells: ctx.limits.maxCells });
      const isCsv = file.name.toLowerCase().endsWith('.csv');
      return { ...table, name: opts['keep-original-sheet-names'] && !isCsv ? table.name : baseNameOf(file.name) };
    });
    const names = sheetNames(tables.map((t) => t.name), ctx.name('sheet'));
    tables.forEach((t, i) => {
      if (names[i] !== t.name) ctx.message('info', 'sheet_renamed', { name: files[i].name, from: t.name, to: names[i] });
      t.name = names[i];
    });
    return { files: [ctx.file(`${ctx.name('merged')}.xlsx`, writeXlsx(tables, ctx))], preview: tables[0] };
  },
});

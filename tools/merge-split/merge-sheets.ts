// Gathers 2 to 20 files into one .xlsx workbook, one sheet per file (the first sheet of each workbook; a
// warning names the others). Sheets are named after their file, or keep their original name on request (a CSV
// has none: its file name is used); names are made valid and unique for Excel.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { baseNameOf } from '../core/files.ts';
import { hasHeader } from '../core/schema.ts';
import { openWorkbook, sheetNames, XlsxWriter } from '../formats/index.ts';

export default defineTool({
  id: 'merge-sheets',
  category: 'merge-split',
  input: { kind: 'files', formats: ['xlsx', 'xls', 'csv'], min: 2, max: 20 },
  options: v.strictObject({
    'has-header': hasHeader,
    'keep-original-sheet-names': v.optional(v.boolean(), false),
  }),
  run({ files }, opts, ctx) {
    const tables = files.map((file) => openWorkbook(file, ctx, { hasHeader: opts['has-header'], sheets: 'first' }).table());
    // A CSV's table is named after its file already.
    const wanted = tables.map((t, i) => (opts['keep-original-sheet-names'] ? t.name : baseNameOf(files[i].name)));
    const names = sheetNames(wanted, ctx.name('sheet'));
    names.forEach((name, i) => {
      if (name !== wanted[i]) ctx.message('info', 'sheet_renamed', { name: files[i].name, from: wanted[i], to: name });
    });
    const book = new XlsxWriter(ctx, names);
    tables.forEach((t) => {
      const sheet = book.sheet(t);
      for (const batch of t) sheet.write(batch);
    });
    return { files: [ctx.file(`${ctx.name('merged')}.xlsx`, book.end())] };
  },
});

// Turns a JSON list of objects into a table: one row per object, one column per property (the union of the
// keys in first-seen order; nested objects as `parent.child` columns, arrays as JSON text). Strings stay text
// exactly, numbers numbers, booleans booleans, null empty. Anything but a list of objects is `invalid_file`
// naming the item or position (an element that is not an object is refused rather than dropped or guessed
// at); see tools/formats/json/read.ts for the rules. Result `<base>.xlsx` (sheet `sheet-name`, or the file's
// name, made valid for Excel) or `<base>.csv` as excel-to-csv writes it by default.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { baseNameOf } from '../core/files.ts';
import { optionalText, outputFormat } from '../core/schema.ts';
import { openWorkbook, sheetNames, tableWriter } from '../formats/index.ts';

export default defineTool({
  id: 'json-to-excel',
  category: 'convert',
  input: { kind: 'file', formats: ['json'] },
  options: v.strictObject({
    format: outputFormat,
    'sheet-name': optionalText,
  }),
  run({ file }, opts, ctx) {
    const base = baseNameOf(file.name);
    const wanted = opts['sheet-name'] || base;
    const [sheet] = opts.format === 'xlsx' ? sheetNames([wanted], ctx.name('sheet')) : [wanted];
    if (sheet !== wanted) ctx.message('info', 'sheet_renamed', { name: file.name, from: wanted, to: sheet });
    const table = openWorkbook(file, ctx, { hasHeader: true }).table();
    const writer = tableWriter(opts.format, table, ctx, { name: sheet });
    for (const batch of table) writer.write(batch);
    const out = ctx.file(`${base}.${opts.format}`, writer.end());
    ctx.message('info', 'table_from_json', { name: file.name, file: out.name, rows: table.rowCount, columns: table.header!.length });
    return { files: [out] };
  },
});

// Turns an XML document into a table: one row per repeated element (`row-element`, else chosen by the reader),
// one column per descendant element or attribute, named by its path (tools.md §5; the rules are in
// tools/formats/xml/read.ts). The inverse of excel-to-xml. Result `<base>.xlsx` (sheet `sheet-name`, or the
// file's name, made valid for Excel) or `<base>.csv` as excel-to-csv writes it by default.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { baseNameOf } from '../core/files.ts';
import { outputFormat } from '../core/schema.ts';
import { openWorkbook, sheetNames, tableWriter } from '../formats/index.ts';

export default defineTool({
  id: 'xml-to-excel',
  category: 'convert',
  input: { kind: 'file', formats: ['xml'] },
  options: v.strictObject({
    'row-element': v.optional(v.pipe(v.string(), v.maxLength(100)), ''),
    'include-attributes': v.optional(v.boolean(), true),
    'detect-types': v.optional(v.boolean(), true),
    format: outputFormat,
    'sheet-name': v.optional(v.pipe(v.string(), v.maxLength(31)), ''),
  }),
  run({ file }, opts, ctx) {
    const base = baseNameOf(file.name);
    const wanted = opts['sheet-name'] || base;
    const [sheet] = opts.format === 'xlsx' ? sheetNames([wanted], ctx.name('sheet')) : [wanted];
    if (sheet !== wanted) ctx.message('info', 'sheet_renamed', { name: file.name, from: wanted, to: sheet });
    const xml = { rowElement: opts['row-element'], attributes: opts['include-attributes'] };
    const table = openWorkbook(file, ctx, { hasHeader: true, detectTypes: opts['detect-types'], xml }).table();
    const writer = tableWriter(opts.format, table, ctx, { name: sheet });
    for (const batch of table) writer.write(batch);
    const out = ctx.file(`${base}.${opts.format}`, writer.end());
    ctx.message('info', 'table_from_xml', { name: file.name, file: out.name, rows: table.rowCount, columns: table.width });
    return { files: [out] };
  },
});

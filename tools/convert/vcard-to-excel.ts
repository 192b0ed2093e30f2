// The contacts of a .vcf (vCard 2.1, 3.0, 4.0) into one table: a row per card, a column per property that some
// card uses, titled in the caller's language (tools/formats/vcard/read.ts has the rules). Result `<base>.xlsx`
// (sheet `Contactos` / `Contacts`) or `<base>.csv`.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { baseNameOf } from '../core/files.ts';
import { outputFormat } from '../core/schema.ts';
import { openWorkbook, tableWriter } from '../formats/index.ts';

export default defineTool({
  id: 'vcard-to-excel',
  category: 'convert',
  input: { kind: 'file', formats: ['vcf', 'vcard'] },
  options: v.strictObject({
    format: outputFormat,
  }),
  run({ file }, opts, ctx) {
    const table = openWorkbook(file, ctx, { hasHeader: true }).table();
    const out = tableWriter(opts.format, table, ctx);
    for (const batch of table) out.write(batch);
    ctx.message('info', 'vcard_read', { cards: table.rowCount, columns: table.width });
    return { files: [ctx.file(`${baseNameOf(file.name) || ctx.name('file')}.${opts.format}`, out.end())] };
  },
});

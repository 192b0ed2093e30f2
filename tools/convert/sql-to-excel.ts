// Reads the CREATE TABLE and INSERT … VALUES statements of a SQL script into one sheet per table (or one CSV per
// table), in order of first appearance; the script is tokenized, never executed (tools/formats/sql/read.ts has
// the rules). `tables` chooses tables by name, with or without schema, ignoring case, or by position.
import * as v from 'valibot';
import { columnList, listItems, resolveList } from '../core/columns.ts';
import { defineTool } from '../core/define.ts';
import { baseNameOf } from '../core/files.ts';
import { outputFormat } from '../core/schema.ts';
import { openWorkbook, sheetNames, SQL_DIALECTS, tableWriter, XlsxWriter } from '../formats/index.ts';

export default defineTool({
  id: 'sql-to-excel',
  category: 'convert',
  input: { kind: 'file', formats: ['sql'] },
  options: v.strictObject({
    dialect: v.optional(v.picklist(SQL_DIALECTS), 'auto'),
    tables: columnList,
    format: outputFormat,
  }),
  run({ file }, opts, ctx) {
    const book = openWorkbook(file, ctx, { hasHeader: true, sqlDialect: opts.dialect });
    const sheets = book.sheets;
    // A name with its schema (`public.ventas`) is given as the position of the table it names.
    const items = listItems(opts.tables).map((item) => {
      if (typeof item !== 'string') return item;
      const key = item.trim().toLowerCase();
      const i = sheets.findIndex((s) => s.source !== undefined && s.source !== s.name && s.source.toLowerCase() === key);
      return i >= 0 && !sheets.some((s) => s.name === item) ? i + 1 : item;
    });
    const chosen = items.length === 0 ? sheets.map((s) => s.index) : resolveList(sheets.map((s) => s.name), sheets.length, items, 'tables', ctx, { min: 0 }, 'table');
    const tables = chosen.map((i) => sheets[i].table());
    const base = baseNameOf(file.name) || ctx.name('file');
    let rows = 0;
    let files;
    if (opts.format === 'xlsx') {
      const wanted = tables.map((t) => t.name);
      const names = sheetNames(wanted, ctx.name('sheet'));
      names.forEach((name, i) => {
        if (name !== wanted[i]) ctx.message('info', 'sheet_renamed', { name: file.name, from: wanted[i], to: name });
      });
      const out = new XlsxWriter(ctx, names);
      for (const t of tables) {
        const sheet = out.sheet(t);
        for (const batch of t) sheet.write(batch);
        rows += t.rowCount;
      }
      files = [ctx.file(`${base}.xlsx`, out.end())];
    } else {
      files = tables.map((t) => {
        const out = tableWriter('csv', t, ctx);
        for (const batch of t) out.write(batch);
        rows += t.rowCount;
        return ctx.file(`${tables.length === 1 ? base : t.name}.csv`, out.end());
      });
    }
    ctx.message('info', 'sql_read', { tables: tables.length, rows, names: tables.map((t) => t.name).slice(0, 20).join(', ') });
    return { files };
  },
});

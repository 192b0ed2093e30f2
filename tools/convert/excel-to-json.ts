// Writes the first sheet (or the CSV) as JSON: a list of objects keyed by the titles, or a list of lists (the
// titles row first when `has-header`). Numbers are numbers, booleans booleans, dates ISO text (`yyyy-mm-dd`, with
// `Thh:mm:ss` when there is a time), empty cells null, or left out of objects with `skip-empty-values` (lists
// keep their nulls, so that positions hold). Keys: a missing title is `Columna N` / `Column N`, a repeated one
// gets `_2`, `_3`… The JSON text is written key by key (tools/formats/json/write.ts), so that no object is built
// (`__proto__` is an ordinary key) and a large table is encoded in chunks. `pretty` indents as
// JSON.stringify(x, null, 2) does.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf } from '../core/files.ts';
import { hasHeader } from '../core/schema.ts';
import { jsonWriter, listText, resultBudget, namedTitles, openWorkbook, uniqueNames, type JsonLayout } from '../formats/index.ts';

export default defineTool({
  id: 'excel-to-json',
  category: 'convert',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    'has-header': hasHeader,
    shape: v.optional(v.picklist(['objects', 'arrays']), 'objects'),
    pretty: v.optional(v.boolean(), true),
    'skip-empty-values': v.optional(v.boolean(), false),
  }),
  run({ file }, opts, ctx) {
    const book = openWorkbook(file, ctx, { hasHeader: opts['has-header'], sheets: 'first' });
    // A CSV's table is cut into records, its rows typed as they are written: the JSON is written from the
    // records' bytes (tools/formats/json/write.ts), without a table of a million typed cells.
    const table = book.first.table();
    if (table.width === 0) {
      if (book.sheets.length <= 1) throw new ToolError('invalid_file', { option: 'file', messageKey: 'error-details.empty', params: { name: file.name.slice(0, 200) } });
      ctx.message('warning', 'sheet_empty', { name: file.name, sheet: table.name });
    }
    book.leftOut(book.first);
    const width = table.width;
    const layout: JsonLayout = { pretty: opts.pretty, keys: null, skipEmpty: opts['skip-empty-values'], width };
    let titles: string[] | null = null;
    if (opts.shape === 'objects') {
      const { names, renamed } = uniqueNames(namedTitles(table, (n) => ctx.name('column', { n })), (name, n) => `${name}_${n}`);
      if (renamed.length > 0) ctx.message('info', 'keys_renamed', { names: listText([...new Set(renamed)]) });
      layout.keys = names;
    } else {
      if (table.header && table.header.length > 0) titles = table.header;
      if (layout.skipEmpty) ctx.message('info', 'skip_empty_arrays');
    }
    const writer = jsonWriter(table, layout, titles, resultBudget(ctx));
    for (const batch of table) writer.write(batch);
    const out = ctx.file(`${baseNameOf(file.name)}.json`, writer.end());
    ctx.message('info', `json_written_${opts.shape}`, { file: out.name, sheet: table.name, rows: table.rowCount, columns: width });
    return { files: [out] };
  },
});

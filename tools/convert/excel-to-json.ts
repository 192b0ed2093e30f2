// Writes the first sheet (or the CSV) as JSON: a list of objects keyed by the titles, or a list of lists (the
// titles row first when `has-header`). Numbers are numbers, booleans booleans, dates ISO text (`yyyy-mm-dd`, with
// `Thh:mm:ss` when there is a time), empty cells null, or left out of objects with `skip-empty-values` (lists
// keep their nulls, so that positions hold). Keys: a missing title is `Columna N` / `Column N`, a repeated one
// gets `_2`, `_3`… The JSON text is written key by key (tools/sheet/json-text.ts), so that no object is built
// (`__proto__` is an ordinary key) and a large table is encoded in chunks. `pretty` indents as
// JSON.stringify(x, null, 2) does.
import * as v from 'valibot';
import { defineTool, type ToolContext } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf, extensionOf, type InputFile } from '../core/files.ts';
import { PREVIEW_ROWS, type PreviewTable } from '../core/output.ts';
import { hasHeader } from '../core/schema.ts';
import { widthOf } from '../formats/model.ts';
import { readCsvRecords } from '../formats/csv/records.ts';
import { listText, namedTitles, readTables, uniqueNames } from '../formats/index.ts';
import { csvJsonBytes, jsonBytes, type Layout } from '../formats/json/write.ts';

/** The rows to write: a whole table, or a CSV's records typed one at a time (no table is built). */
interface Source {
  /** The table for the titles and the preview; a CSV's holds only its first rows. */
  table: PreviewTable;
  count: number;
  /** The JSON of the rows. */
  json: (o: Layout, titles: readonly string[] | null) => Uint8Array;
}

function readSource(file: InputFile, hasTitles: boolean, ctx: ToolContext): Source {
  if (extensionOf(file.name) === 'csv') {
    // Written from the CSV's bytes: a table of a million typed cells cost more in garbage collection than
    // the JSON text took to write (tools/sheet/json-text.ts).
    const src = readCsvRecords(file, { hasHeader: hasTitles, report: ctx.message, maxCells: ctx.limits.maxCells });
    const rows = Array.from({ length: Math.min(src.rowCount, PREVIEW_ROWS) }, (_, r) => src.typedRow(src.first + r));
    return { table: { name: src.name, header: src.header, rows, totalRows: src.rowCount }, count: src.rowCount, json: (o, titles) => csvJsonBytes(src, o, titles) };
  }
  const { tables, sheetNames } = readTables(file, { hasHeader: hasTitles, sheets: 'first', detectTypes: true, report: ctx.message, maxCells: ctx.limits.maxCells });
  const table = tables[0];
  if (widthOf(table) === 0) {
    if (sheetNames.length <= 1) throw new ToolError('invalid_file', { option: 'file', messageKey: 'error-details.empty', params: { name: file.name.slice(0, 200) } });
    ctx.message('warning', 'sheet_empty', { name: file.name, sheet: table.name });
  }
  if (sheetNames.length > 1) ctx.message('warning', 'sheets_unused', { name: file.name, sheet: table.name, sheets: listText(sheetNames.filter((n) => n !== table.name)) });
  const rows = table.rows;
  return { table, count: rows.length, json: (o, titles) => (titles ? jsonBytes(rows.length + 1, (r) => (r === 0 ? titles : rows[r - 1]), o) : jsonBytes(rows.length, (r) => rows[r], o)) };
}

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
    const { table, count, json } = readSource(file, opts['has-header'], ctx);
    const width = widthOf(table);
    const layout: Layout = { pretty: opts.pretty, keys: null, skipEmpty: opts['skip-empty-values'], width };
    let titles: string[] | null = null;
    if (opts.shape === 'objects') {
      const { names, renamed } = uniqueNames(namedTitles(table, (n) => ctx.name('column', { n })), (name, n) => `${name}_${n}`);
      if (renamed.length > 0) ctx.message('info', 'keys_renamed', { names: listText([...new Set(renamed)]) });
      layout.keys = names;
    } else {
      if (table.header && table.header.length > 0) titles = table.header;
      if (layout.skipEmpty) ctx.message('info', 'skip_empty_arrays');
    }
    const out = ctx.file(`${baseNameOf(file.name)}.json`, json(layout, titles));
    ctx.message('info', `json_written_${opts.shape}`, { file: out.name, sheet: table.name, rows: count, columns: width });
    return { files: [out], preview: table };
  },
});

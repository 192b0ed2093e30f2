// Writes the first sheet (or the CSV) as JSON: a list of objects keyed by the titles, or a list of lists (the
// titles row first when `has-header`). Numbers are numbers, booleans booleans, dates ISO text (`yyyy-mm-dd`, with
// `Thh:mm:ss` when there is a time), empty cells null, or left out of objects with `skip-empty-values` (lists
// keep their nulls, so that positions hold). Keys: a missing title is `Columna N` / `Column N`, a repeated one
// gets `_2`, `_3`… The JSON text is written here, key by key, so that no object is built (`__proto__` is an
// ordinary key) and a large table is encoded in chunks. `pretty` indents as JSON.stringify(x, null, 2) does.
import * as v from 'valibot';
import { defineTool, type ToolContext } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf, type InputFile } from '../core/files.ts';
import { hasHeader } from '../core/schema.ts';
import { widthOf, type Cell, type Row } from '../core/table.ts';
import { csvText, listText, namedTitles, readTables, uniqueNames, type SheetTable } from '../sheet/index.ts';

function valueText(c: Cell): string {
  if (c === null) return 'null';
  if (typeof c === 'number') return Number.isFinite(c) ? String(c) : JSON.stringify(String(c));
  if (typeof c === 'boolean') return c ? 'true' : 'false';
  return JSON.stringify(typeof c === 'string' ? c : csvText(c));
}

/** Text pieces encoded as UTF-8 in chunks of about 64 KB, never as one huge string. */
class Utf8Chunks {
  private parts: Uint8Array[] = [];
  private pending = '';
  private size = 0;
  private encoder = new TextEncoder();
  push(s: string): void {
    this.pending += s;
    if (this.pending.length > 65_536) this.flush();
  }
  private flush(): void {
    const b = this.encoder.encode(this.pending);
    this.parts.push(b);
    this.size += b.length;
    this.pending = '';
  }
  bytes(): Uint8Array {
    this.flush();
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

interface Layout {
  pretty: boolean;
  /** Property names (objects) or null (lists). */
  keys: string[] | null;
  skipEmpty: boolean;
  width: number;
}

/** One element of the top-level list, in the layout JSON.stringify gives it at depth 1. */
function itemText(row: Row, o: Layout): string {
  const parts: string[] = [];
  for (let i = 0; i < o.width; i++) {
    const c = row[i] ?? null;
    if (o.keys === null) parts.push(valueText(c));
    else if (c !== null || !o.skipEmpty) parts.push(JSON.stringify(o.keys[i]) + (o.pretty ? ': ' : ':') + valueText(c));
  }
  const [open, close] = o.keys === null ? ['[', ']'] : ['{', '}'];
  if (parts.length === 0) return open + close;
  return o.pretty ? `${open}\n    ${parts.join(',\n    ')}\n  ${close}` : open + parts.join(',') + close;
}

function jsonBytes(rows: Row[], o: Layout): Uint8Array {
  const out = new Utf8Chunks();
  out.push('[');
  rows.forEach((r, i) => out.push((i > 0 ? ',' : '') + (o.pretty ? '\n  ' : '') + itemText(r, o)));
  out.push((o.pretty && rows.length > 0 ? '\n' : '') + ']\n');
  return out.bytes();
}

function readTable(file: InputFile, hasTitles: boolean, ctx: ToolContext): SheetTable {
  const { tables, sheetNames } = readTables(file, { hasHeader: hasTitles, sheets: 'first', detectTypes: true, report: ctx.message, maxCells: ctx.limits.maxCells });
  const table = tables[0];
  if (widthOf(table) === 0) {
    if (sheetNames.length <= 1) throw new ToolError('invalid_file', { option: 'file', messageKey: 'error-details.empty', params: { name: file.name.slice(0, 200) } });
    ctx.message('warning', 'sheet_empty', { name: file.name, sheet: table.name });
  }
  if (sheetNames.length > 1) ctx.message('warning', 'sheets_unused', { name: file.name, sheet: table.name, sheets: listText(sheetNames.filter((n) => n !== table.name)) });
  return table;
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
    const table = readTable(file, opts['has-header'], ctx);
    const width = widthOf(table);
    const layout: Layout = { pretty: opts.pretty, keys: null, skipEmpty: opts['skip-empty-values'], width };
    let rows = table.rows;
    if (opts.shape === 'objects') {
      const { names, renamed } = uniqueNames(namedTitles(table, (n) => ctx.name('column', { n })), (name, n) => `${name}_${n}`);
      if (renamed.length > 0) ctx.message('info', 'keys_renamed', { names: listText([...new Set(renamed)]) });
      layout.keys = names;
    } else {
      if (table.header && table.header.length > 0) rows = [table.header, ...rows];
      if (layout.skipEmpty) ctx.message('info', 'skip_empty_arrays');
    }
    const out = ctx.file(`${baseNameOf(file.name)}.json`, jsonBytes(rows, layout));
    ctx.message('info', `json_written_${opts.shape}`, { file: out.name, sheet: table.name, rows: table.rows.length, columns: width });
    return { files: [out], preview: table };
  },
});

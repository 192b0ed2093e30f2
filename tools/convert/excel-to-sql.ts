// Writes the first sheet (or the CSV) as a SQL script: CREATE TABLE with column types deduced from the data,
// then INSERT statements of `batch-size` rows each. The first row holds the column names. Names, types and
// literals per dialect: sql/names.ts, sql/column-types.ts, sql/dialects.ts. Statements end with `;` and
// lines with LF; the script is UTF-8 without BOM.
import * as v from 'valibot';
import { joinBytes } from '../formats/util/bytes.ts';
import { defineTool, type ToolContext } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf, extensionOf } from '../core/files.ts';
import { readFirstTable } from '../formats/index.ts';
import { columnInfo, type ColumnInfo } from '../formats/sql/column-types.ts';
import { DIALECT, DIALECTS, literal, typeNames, type Dialect } from '../formats/sql/dialects.ts';
import { columnNames, DEFAULT_TABLE, tableName, type ColumnNames } from '../formats/sql/names.ts';

export default defineTool({
  id: 'excel-to-sql',
  category: 'convert',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    'table-name': v.optional(v.pipe(v.string(), v.maxLength(255)), DEFAULT_TABLE),
    dialect: v.optional(v.picklist(DIALECTS), 'standard'),
    'create-table': v.optional(v.boolean(), true),
    'batch-size': v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)), 100),
  }),
  run({ file }, opts, ctx) {
    const table = readFirstTable(file, { hasHeader: true, detectTypes: true, report: ctx.message, maxCells: ctx.limits.maxCells });
    const d = DIALECT[opts.dialect];
    const requested = opts['table-name'] || DEFAULT_TABLE;
    const name = tableName(requested, d);
    if (name !== requested) ctx.message('info', 'sql_table_renamed', { from: requested, to: name });
    const columns = columnNames(table, d, (n) => ctx.name('column', { n }));
    if (columns.names.length === 0) {
      throw new ToolError('invalid_file', { option: 'file', messageKey: 'error-details.empty', params: { name: file.name.slice(0, 200), format: extensionOf(file.name) } });
    }
    reportNames(columns, ctx);
    const infos = columns.names.map((_, i) => columnInfo(table.rows, i));
    reportMixed(infos, columns.names, ctx);

    // The script is encoded as it is written, in pieces of about 64 KB joined once: holding every statement as
    // a string until the end cost about four times the script (lines, their join, the encoded copy).
    const chunks: Uint8Array[] = [];
    let out = '';
    let blocks = 0;
    /** One block of lines; blocks are separated by an empty line. */
    const block = (lines: string[]) => {
      if (blocks++ > 0) out += '\n';
      out += lines.join('\n') + '\n';
      if (out.length > 65_536) {
        chunks.push(Buffer.from(out, 'utf8'));
        out = '';
      }
    };
    if (d.preamble.length > 0) block(d.preamble);
    if (opts['create-table']) block(createTable(d, name, columns.names, infos));
    const head = `INSERT INTO ${d.quote(name)} (${columns.names.map(d.quote).join(', ')}) VALUES`;
    const size = opts['batch-size'];
    let statements = 0;
    for (let start = 0; start < table.rows.length; start += size) {
      const end = Math.min(table.rows.length, start + size);
      const lines = [head];
      for (let r = start; r < end; r++) {
        const row = table.rows[r];
        const values = infos.map((info, c) => literal(row[c] ?? null, info.type, d));
        lines.push(`  (${values.join(', ')})${r === end - 1 ? ';' : ','}`);
      }
      block(lines);
      statements++;
    }
    chunks.push(Buffer.from(out, 'utf8'));
    ctx.message('info', 'sql_written', {
      rows: table.rows.length,
      columns: columns.names.length,
      table: name,
      statements,
      dialect: opts.dialect,
    });
    const base = baseNameOf(file.name) || ctx.name('file');
    return {
      files: [ctx.file(`${base}.sql`, joinBytes(chunks))],
      preview: { name, header: columns.names, rows: table.rows },
    };
  },
});

function createTable(d: Dialect, name: string, names: string[], infos: ColumnInfo[]): string[] {
  const types = typeNames(infos.map((info) => info.type), d);
  const defs = names.map((n, i) => `  ${d.quote(n)} ${types[i]}${i < names.length - 1 ? ',' : ''}`);
  return [`CREATE TABLE ${d.quote(name)} (`, ...defs, `)${d.tableSuffix};`];
}

const MAX_LISTED = 8;
const quoted = (s: string) => `"${s.length > 60 ? s.slice(0, 57) + '...' : s}"`;
const listed = (items: string[]) => items.slice(0, MAX_LISTED).join(', ') + (items.length > MAX_LISTED ? ` (+${items.length - MAX_LISTED})` : '');

function reportNames({ changes }: ColumnNames, ctx: ToolContext): void {
  if (changes.length === 0) return;
  ctx.message('info', 'sql_columns_renamed', { count: changes.length, changes: listed(changes.map((c) => `${quoted(c.from)} → ${quoted(c.to)}`)) });
}

function reportMixed(infos: ColumnInfo[], names: string[], ctx: ToolContext): void {
  const mixed = infos.flatMap((info, i) => (info.firstConverted >= 0 ? [i] : []));
  if (mixed.length === 0) return;
  const first = mixed[0];
  ctx.message('warning', 'sql_mixed_columns', {
    count: mixed.length,
    columns: listed(mixed.map((i) => quoted(names[i]))),
    column: names[first],
    // Row 1 of the file holds the titles.
    row: infos[first].firstConverted + 2,
  });
}

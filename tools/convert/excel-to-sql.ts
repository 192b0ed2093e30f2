// Writes the first sheet (or the CSV) as a SQL script: CREATE TABLE with column types deduced from the data,
// then INSERT statements of `batch-size` rows each. The first row holds the column names. Names, types and
// literals per dialect: tools/formats/sql/. Statements end with `;` and
// lines with LF; the script is UTF-8 without BOM.
import * as v from 'valibot';
import { defineTool, type ToolContext } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf, extensionOf } from '../core/files.ts';
import { columnInfo, columnNames, DEFAULT_TABLE, DIALECT, DIALECTS, openWorkbook, resultBudget, tableName, writeSql, type ColumnInfo, type ColumnNames } from '../formats/index.ts';

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
    const read = openWorkbook(file, ctx, { hasHeader: true, sheets: 'first' }).table();
    const table = { name: read.name, header: read.header, width: read.width, rows: read.rows() };
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

    const { statements, ...written } = writeSql(table.rows, { dialect: d, table: name, columns: columns.names, types: infos, createTable: opts['create-table'], batchSize: opts['batch-size'], budget: resultBudget(ctx) });
    ctx.message('info', 'sql_written', {
      rows: table.rows.length,
      columns: columns.names.length,
      table: name,
      statements,
      dialect: opts.dialect,
    });
    const base = baseNameOf(file.name) || ctx.name('file');
    return { files: [ctx.file(`${base}.sql`, written)] };
  },
});

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

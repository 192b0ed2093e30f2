// Stacked tables gathered whole: what table/stack.ts's stack() hands on, as one table, for tests to compare.
import { stack, type Row, type StackOptions, type TableData } from '../../tools/formats/index.ts';
import { tableOf } from '../../tools/formats/batch.ts';

export function stackTables(sources: { table: TableData; label: string }[], o: StackOptions): TableData {
  const stacked = stack(sources.map((s) => ({ label: s.label, table: tableOf(s.table) })), o);
  const rows: Row[] = [];
  for (const batch of stacked) for (const r of batch.rows()) rows.push(r);
  const { name, header, titleCells } = stacked;
  return titleCells === undefined ? { name, header, rows } : { name, header, titleCells, rows };
}

// Stacked tables gathered whole: what header.ts's stack() pipes, as one table, for tests to compare.
import type { Row } from '../../tools/formats/model.ts';
import { stack, tableSource, type StackOptions } from '../../tools/formats/table/stack.ts';
import type { SheetTable } from '../../tools/formats/table/titles.ts';

export function stackTables(sources: { table: SheetTable; label: string }[], o: StackOptions): SheetTable {
  const { name, header, titleCells, pipe } = stack(sources.map((s) => tableSource(s.table, s.label)), o);
  const rows: Row[] = [];
  pipe((batch) => {
    for (const r of batch) rows.push(r);
  });
  return titleCells === undefined ? { name, header, rows } : { name, header, titleCells, rows };
}

// The writers of a table file by name, for tools whose `format` option picks one.
import type { FormatContext, FormatLimits, TableHead } from './model.ts';
import { resultBudget } from './budget.ts';
import { csvWriter } from './csv/write.ts';
import { xlsxWriter, type TableWriter } from './xlsx/write.ts';

/**
 * A one-table file: xlsx (one sheet, named `name` or after the head) or CSV as excel-to-csv writes it by
 * default (comma, or the source CSV's delimiter; titles; UTF-8 with a BOM).
 */
export function tableWriter(format: 'xlsx' | 'csv', head: TableHead, ctx: Pick<FormatContext, 't' | 'name'> & { limits?: FormatLimits }, o: { name?: string } = {}): TableWriter {
  return format === 'xlsx' ? xlsxWriter(head, ctx, o) : csvWriter(head, { name: o.name, budget: resultBudget(ctx) });
}

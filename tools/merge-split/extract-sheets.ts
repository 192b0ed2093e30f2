// Copies the chosen sheets (names, positions, ranges `2-4`, in the order given) into a new workbook or one file
// each, as they were (tools.md §2.7): contents, number formats, merges, widths, visibility. A workbook whose
// chosen sheets are all hidden shows the first. A formula that refers to a sheet not in the same result file
// is written as its cached value, counted in a warning. `format=auto` keeps the input's type (.xls gives
// .xlsx); CSV writes each sheet's values as excel-to-csv does, and takes one sheet per file.
import * as v from 'valibot';
import { columnList, resolveSheets } from '../core/columns.ts';
import { defineTool, type ToolContext } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf, extensionOf } from '../core/files.ts';
import type { OutputFile } from '../core/output.ts';
import { reportChanges, reportNotCarried, showOne, writeBook } from '../core/workbooks.ts';
import { copySheets, csvWriter, FullCell, openWorkbook, type AnyCell, type Sheet, type Table } from '../formats/index.ts';

export default defineTool({
  id: 'extract-sheets',
  category: 'merge-split',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'ods'] },
  options: v.strictObject({
    sheets: columnList.wrapped,
    output: v.optional(v.picklist(['workbook', 'files']), 'workbook'),
    format: v.optional(v.picklist(['auto', 'xlsx', 'csv']), 'auto'),
  }),
  async run({ file }, opts, ctx) {
    const book = openWorkbook(file, ctx, { hasHeader: false, cells: 'full' });
    const chosen = resolveSheets(
      book.sheets.map((s) => s.name),
      opts.sheets,
      'sheets',
      ctx,
      { min: 1 },
    ).map((i) => book.sheets[i]);
    const to = opts.format === 'auto' ? (extensionOf(file.name) === 'ods' ? 'ods' : 'xlsx') : opts.format;
    if (to === 'csv' && opts.output === 'workbook' && chosen.length > 1) {
      throw new ToolError('invalid_option', { option: 'format', messageKey: 'error-details.csv-one-sheet', params: { count: chosen.length } });
    }
    if (to !== 'csv') reportNotCarried(file, ctx);
    const groups = opts.output === 'workbook' ? [chosen] : chosen.map((s) => [s]);
    const files: OutputFile[] = [];
    let crossing = 0;
    for (const group of groups) {
      const name = opts.output === 'workbook' ? `${baseNameOf(file.name)}-${ctx.name('extracted')}` : group[0].name;
      if (to === 'csv') {
        files.push(csvOf(group[0], name, ctx));
        continue;
      }
      const shown = showOne(group, ctx);
      const inFile = new Set(group.map((s) => s.name));
      const sheets = copySheets(
        group.map((sheet, i) => ({
          sheet,
          visibility: shown[i],
          edit: (table, merges) => {
            crossing += cutFormulas(table, inFile);
            return merges;
          },
        })),
      );
      const written = await writeBook(to, { sheets }, ctx);
      reportChanges(written.changed, ctx);
      files.push(ctx.file(`${name}.${to}`, written));
    }
    if (crossing > 0) ctx.message('warning', 'formulas_other_sheets', { count: crossing });
    ctx.message('info', 'sheets_extracted', { count: chosen.length, sheets: chosen.map((s) => `«${s.name}»`).join(', '), files: files.length });
    return { files };
  },
});

/** One sheet's values as CSV, as excel-to-csv writes them by default. */
function csvOf(sheet: Sheet<AnyCell>, name: string, ctx: ToolContext): OutputFile {
  const table = sheet.table();
  const out = csvWriter({ name: table.name, header: null, width: table.width });
  for (const batch of table) out.write(batch);
  if (table.width === 0) ctx.message('warning', 'sheet_empty', { name: sheet.name, sheet: sheet.name });
  return ctx.file(`${name}.csv`, out.end());
}

/** A sheet name as a formula refers to it: `Datos!A1`, `'Mis datos'!A1` (quotes doubled inside). */
const SHEET_REF = /'((?:[^']|'')+)'!|([^\s'!(),;=+\-*/&^<>:"{}]+)!/g;

/** Formulas of the table that refer to a sheet not in `inFile`, made their cached values; how many. */
function cutFormulas(table: Table<AnyCell>, inFile: ReadonlySet<string>): number {
  let n = 0;
  for (const row of table.rows()) {
    for (let c = 0; c < row.length; c++) {
      const cell = row[c];
      if (!(cell instanceof FullCell) || cell.formula === null || !cell.formula.includes('!')) continue;
      for (const m of cell.formula.matchAll(SHEET_REF)) {
        const ref = m[1] !== undefined ? m[1].replace(/''/g, "'") : m[2];
        if (!inFile.has(ref)) {
          row[c] = new FullCell(cell.value, cell.format, null);
          n++;
          break;
        }
      }
    }
  }
  return n;
}

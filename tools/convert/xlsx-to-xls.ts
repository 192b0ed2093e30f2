// An .xlsx converted whole to legacy BIFF8 .xls (formats/xls/write.ts, a streaming writer: SheetJS's needed
// 1.6 GB for 10,000 rows). Kept: values, text, numbers, dates, number formats, merged ranges, sheet names, order,
// visibility, column widths. Formulas are written as their cached values (BIFF8 lacks many later functions),
// counted in a warning. Past BIFF8's limits the call fails naming the limit, the count and the sheet; with
// `overflow=new-sheets` a sheet past 65,536 rows goes on in sheets `<name> (2)`, `(3)`… right after it, each
// starting with the title row when `has-header` (so 65,535 data rows each). Columns are never split.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { baseNameOf } from '../core/files.ts';
import { hasHeader } from '../core/schema.ts';
import { reportChanges, reportNotCarried, showOne, writeBook } from '../core/workbooks.ts';
import { copySheets, openWorkbook, sheetNames, XLS_MAX_ROWS, type AnyCell, type CellRange, type Row, type RowBatch, type SheetIn } from '../formats/index.ts';

export default defineTool({
  id: 'xlsx-to-xls',
  category: 'convert',
  input: { kind: 'file', formats: ['xlsx'] },
  options: v.strictObject({
    overflow: v.optional(v.picklist(['error', 'new-sheets']), 'error'),
    'has-header': hasHeader,
  }),
  async run({ file }, opts, ctx) {
    const book = openWorkbook(file, ctx, { hasHeader: false, cells: 'full' });
    reportNotCarried(file, ctx, 'xls_not_carried');
    const shown = showOne(book.sheets, ctx);
    const split = opts.overflow === 'new-sheets';
    const titled = opts['has-header'];
    const sheets: SheetIn[] = [];
    const names: string[] = [];
    // Each sheet read once; a sheet past the rows BIFF8 holds becomes several when asked to.
    for (const copy of copySheets(book.sheets.map((sheet, i) => ({ sheet, visibility: shown[i] })))) {
      const rows = await collect(copy);
      if (!split || rows.length <= XLS_MAX_ROWS) {
        sheets.push({ ...copy, rows: [rows] });
        names.push(copy.name);
        continue;
      }
      const title = titled ? rows[0] : null;
      const per = title ? XLS_MAX_ROWS - 1 : XLS_MAX_ROWS;
      let part = 0;
      for (let at = 0; at < rows.length; part++) {
        const from = part === 0 ? 0 : at;
        const to = part === 0 ? XLS_MAX_ROWS : at + per;
        const shift = part === 0 ? 0 : from - (title ? 1 : 0);
        sheets.push({
          name: copy.name,
          visibility: copy.visibility,
          columnWidths: copy.columnWidths,
          merges: within(copy.merges ?? [], from, Math.min(to, rows.length), shift),
          rows: [part === 0 || !title ? rows.slice(from, to) : [title, ...rows.slice(from, to)]],
        });
        names.push(copy.name);
        at = to;
      }
      ctx.message('info', 'xls_sheet_continued', { sheet: copy.name, rows: rows.length, sheets: part });
    }
    // Continuation sheets are named `<name> (2)`… as Excel's rules for unique names make them.
    const unique = sheetNames(names, ctx.name('sheet'));
    sheets.forEach((s, i) => (s.name = unique[i]));
    const written = await writeBook('xls', { sheets }, ctx, (unit) => (unit === 'rows' ? 'xls-rows' : 'xls-other'));
    reportChanges(written.changed, ctx);
    const out = ctx.file(`${baseNameOf(file.name)}.xls`, written);
    ctx.message('info', 'workbook_converted', { file: out.name, sheets: written.sheets.length, rows: written.sheets.reduce((n, s) => n + s.rows, 0) });
    return { files: [out] };
  },
});

/** A sheet's rows, in sheet coordinates (a continuation sheet takes a slice of them). */
async function collect(copy: SheetIn): Promise<Row<AnyCell>[]> {
  const out: Row<AnyCell>[] = [];
  for await (const batch of copy.rows) for (const r of Array.isArray(batch) ? batch : (batch as RowBatch<AnyCell>).rows()) out.push(r as Row<AnyCell>);
  return out;
}

/** The merged ranges inside rows `from`..`to` (excluded), moved up by `shift`. */
function within(merges: readonly CellRange[], from: number, to: number, shift: number): CellRange[] {
  return merges.filter((m) => m.top >= from && m.bottom < to).map((m) => ({ ...m, top: m.top - shift, bottom: m.bottom - shift }));
}

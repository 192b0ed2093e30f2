// Prints the first sheet (or the CSV) as a PDF table: the title (or the sheet name) in every page header,
// "page n of m" in every footer, the title row repeated on every page. `auto` orientation switches to
// landscape from 7 columns. Cells show as a spreadsheet shows them (tools/formats/display.ts); CSV fields
// as written. A table wider than the page is printed in bands of columns; a table whose layout would exceed
// PDF_MAX_ROWS rows (counted once per band) is refused with `too_complex` before layout starts.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf } from '../core/files.ts';
import { fontSize, hasHeader, optionalText, orientation, pageSize, PAPER_NAMES } from '../core/schema.ts';
import { openWorkbook, PDF_CELL_CHARS, PDF_LINES_PER_ROW, pdfSetup, planColumns, renderPdf, titleRow, writtenOf, type PdfTable } from '../formats/index.ts';


export default defineTool({
  id: 'excel-to-pdf',
  category: 'convert',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    'has-header': hasHeader,
    orientation,
    'page-size': pageSize,
    'font-size': fontSize,
    title: optionalText,
  }),
  // pdfmake and its fonts: about 17 MB and 170 ms on a process's first PDF.
  prepare: pdfSetup,
  async run({ file }, opts, ctx) {
    const sheet = openWorkbook(file, ctx, { hasHeader: opts['has-header'], detectTypes: false, sheets: 'first' }).table();
    const table: PdfTable = { header: titleRow(sheet), rows: sheet.rows(), width: sheet.width };
    if (table.width === 0) ctx.message('warning', 'pdf_empty', { name: file.name, sheet: sheet.name });

    const orientation = opts.orientation === 'auto' ? (table.width >= 7 ? 'landscape' : 'portrait') : opts.orientation;
    const words = { true: ctx.t('display.true'), false: ctx.t('display.false') };
    const layout = { pageSize: opts['page-size'], orientation, fontSize: opts['font-size'], lang: ctx.lang, words } as const;
    const plan = planColumns(table, layout);
    const laidOut = table.rows.length * Math.max(1, plan.bands.length);
    if (laidOut > ctx.limits.pdfMaxRows) {
      throw new ToolError('too_complex', { messageKey: 'error-details.pdf_rows', params: { reason: 'pdf_rows', rows: laidOut, max: ctx.limits.pdfMaxRows } });
    }
    if (plan.bands.length > 1) ctx.message('info', 'pdf_bands', { columns: table.width, bands: plan.bands.length });
    if (plan.cut.first) {
      const named = sheet.header?.[plan.cut.first.column]?.trim();
      const column = named || ctx.name('column', { n: plan.cut.first.column + 1 });
      ctx.message('warning', 'pdf_cells_cut', { count: plan.cut.count, max: PDF_CELL_CHARS, row: plan.cut.first.row + 1, column });
    }

    const title = opts.title.trim() || sheet.name;
    const pdf = await renderPdf(table, plan, {
      ...layout,
      title,
      pageLabel: (page, pages) => ctx.t('pdf.page', { page, pages }),
      bandLabel: (first, last, total) => ctx.t('pdf.columns', { first, last, total }),
      signal: ctx.signal,
      maxLines: ctx.limits.pdfMaxRows * PDF_LINES_PER_ROW,
    });

    const { count, first } = pdf.missing;
    if (first === 'title') ctx.message('warning', 'pdf_missing_glyphs_title', { count });
    else if (first) {
      const named = sheet.header?.[first.column]?.trim();
      const column = named || ctx.name('column', { n: first.column + 1 });
      ctx.message('warning', 'pdf_missing_glyphs', { count, row: first.row + 1, column });
    }
    ctx.message('info', 'pdf_written', {
      rows: table.rows.length,
      columns: table.width,
      pages: pdf.pages,
      size: PAPER_NAMES[opts['page-size']],
      orientation: ctx.t(`pdf.${orientation}`),
    });
    return { files: [ctx.file(`${baseNameOf(file.name)}.pdf`, { ...writtenOf(pdf.bytes, sheet, table.rows), removed: pdf.removed })] };
  },
});

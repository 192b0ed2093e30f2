// Writes the first sheet (or the CSV) as a Word document holding one real table (tools/formats/docx/write.ts),
// laid out like excel-to-pdf: the title (or the sheet name) in every page header and as the document's title,
// `Página X de Y` in every footer, the title row in bold repeated at the top of each page, landscape from seven
// columns with `auto`. Cells in display form (§2.6), numbers and dates right-aligned. Word tables hold at most
// 63 columns: a wider table is refused with format_limit_exceeded, pointing to excel-to-pdf.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf } from '../core/files.ts';
import { fontSize, hasHeader, orientation, pageSize, PAPER_NAMES } from '../core/schema.ts';
import { countsAsNumeric, DOCX_MAX_COLUMNS, numericColumns, openWorkbook, shownRow, shownTitles, writeDocx } from '../formats/index.ts';

const LANGUAGE_TAGS = { es: 'es-ES', en: 'en-US' } as const;

export default defineTool({
  id: 'excel-to-docx',
  category: 'convert',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    'has-header': hasHeader,
    orientation,
    'page-size': pageSize,
    'font-size': fontSize,
    title: v.optional(v.pipe(v.string(), v.maxLength(200)), ''),
  }),
  run({ file }, opts, ctx) {
    const sheet = openWorkbook(file, ctx, { hasHeader: opts['has-header'], detectTypes: false, sheets: 'first' }).table();
    if (sheet.width > DOCX_MAX_COLUMNS) {
      throw new ToolError('format_limit_exceeded', { messageKey: 'error-details.docx-columns', params: { format: 'docx', max: DOCX_MAX_COLUMNS, count: sheet.width, sheet: sheet.name } });
    }
    if (sheet.width === 0) ctx.message('warning', 'sheet_empty', { name: file.name, sheet: sheet.name });
    const display = { lang: ctx.lang, words: { true: ctx.t('display.true'), false: ctx.t('display.false') } };
    const all = sheet.rows();
    const numeric = numericColumns(sheet, all, { dates: true });
    const orientation = opts.orientation === 'auto' ? (sheet.width >= 7 ? 'landscape' : 'portrait') : opts.orientation;
    // The footer's words around the two numbers Word fills in (PAGE, NUMPAGES).
    const [before, rest = ''] = ctx.t('pdf.page', { page: '\u0000', pages: '\u0001' }).split('\u0000');
    const [between, after = ''] = rest.split('\u0001');
    const title = opts.title.trim() || sheet.name;
    const written = writeDocx(
      {
        name: sheet.name,
        // Without a title row the columns are named `Columna N` (tools.md §2.3: Word needs names).
        titles: shownTitles(sheet, display, (n) => ctx.name('column', { n })),
        rows: all.length,
        row: (i) => shownRow(all[i], sheet.width, display),
        right: (r, c) => (r < 0 ? numeric[c] : countsAsNumeric(all[r][c], sheet)),
        width: sheet.width,
      },
      { title, pageSize: opts['page-size'], orientation, fontSize: opts['font-size'], language: LANGUAGE_TAGS[ctx.lang], pageLabel: [before, between, after] },
    );
    const { xmlRemoved: removed, ...result } = written;
    if (removed.count > 0) ctx.message('warning', 'markup_chars_removed', { count: removed.count, cell: removed.first!, sheet: sheet.name, format: 'DOCX' });
    ctx.message('info', 'docx_written', { rows: all.length, columns: sheet.width, size: PAPER_NAMES[opts['page-size']], orientation: ctx.t(`pdf.${orientation}`) });
    return { files: [ctx.file(`${baseNameOf(file.name)}.docx`, result)] };
  },
});

// A workbook (.xlsx, .xls) converted whole to OpenDocument as it was (tools.md §2.7): sheets, visibility,
// widths, merged ranges, number formats as data styles. Formulas are written as their cached values (none is
// translated to OpenFormula yet), counted in a warning. A sheet wider than 1,024 columns gets an info: LibreOffice
// before 7.4 opens only that many.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { convertWorkbook } from '../core/workbooks.ts';

const OLD_LIBREOFFICE_COLUMNS = 1024;

export default defineTool({
  id: 'excel-to-ods',
  category: 'convert',
  input: { kind: 'file', formats: ['xlsx', 'xls'] },
  options: v.strictObject({}),
  async run({ file }, _opts, ctx) {
    const out = await convertWorkbook(file, ctx, 'ods', (sheet, width, c) => {
      if (width > OLD_LIBREOFFICE_COLUMNS) c.message('info', 'ods_wide_sheet', { sheet, columns: width, max: OLD_LIBREOFFICE_COLUMNS });
    });
    return { files: [out] };
  },
});

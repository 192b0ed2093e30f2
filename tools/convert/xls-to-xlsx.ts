// A legacy workbook (.xls: BIFF8, earlier BIFF, or the HTML/SpreadsheetML exports named .xls) converted whole
// to .xlsx as it was (tools.md §2.7): every sheet in order with its visibility, column widths, merged ranges,
// number formats, and formulas (in xlsx syntax) with their cached values; 1904 dates keep their calendar value.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { convertWorkbook } from '../core/workbooks.ts';

export default defineTool({
  id: 'xls-to-xlsx',
  category: 'convert',
  input: { kind: 'file', formats: ['xls'] },
  options: v.strictObject({}),
  async run({ file }, _opts, ctx) {
    return { files: [await convertWorkbook(file, ctx, 'xlsx')] };
  },
});

// An OpenDocument spreadsheet converted whole to .xlsx as it was (tools.md §2.7): sheets, visibility, widths,
// merged ranges (spans), number formats (data styles back to Excel codes). Formulas are not translated from
// OpenFormula: their cached values are written, and the reader's warning counts them. Repeated empty rows and
// columns are never expanded (ods/read.ts).
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { convertWorkbook } from '../core/workbooks.ts';

export default defineTool({
  id: 'ods-to-excel',
  category: 'convert',
  input: { kind: 'file', formats: ['ods'] },
  options: v.strictObject({}),
  async run({ file }, _opts, ctx) {
    return { files: [await convertWorkbook(file, ctx, 'xlsx')] };
  },
});

// Turns a CSV into an .xlsx of one sheet. The encoding is detected (BOM, UTF-8, else Windows-1252), and so is
// the delimiter with `auto` (comma, semicolon, tab, pipe; a semicolon file with decimal commas is semicolon).
// With `detect-types`, integers, decimals (a comma is the decimal mark when the delimiter is not a comma), ISO
// and dd/mm/yyyy dates and true/false/verdadero/falso are typed; `00123`, more than 15 digits and `+34 …` stay
// text. The sheet is named `sheet-name`, or after the file, made valid for Excel (a change gets a message).
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { baseNameOf } from '../core/files.ts';
import { hasHeader, optionalText } from '../core/schema.ts';
import { PreviewRows } from '../core/output.ts';
import { DELIMITERS, sheetNames, streamCsv, writeXlsxRows } from '../formats/index.ts';

const NAMES: Record<string, keyof typeof DELIMITERS> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' };

export default defineTool({
  id: 'csv-to-excel',
  category: 'convert',
  input: { kind: 'file', formats: ['csv'] },
  options: v.strictObject({
    'has-header': hasHeader,
    delimiter: v.optional(v.picklist(['auto', 'comma', 'semicolon', 'tab', 'pipe']), 'auto'),
    'detect-types': v.optional(v.boolean(), true),
    'sheet-name': optionalText,
  }),
  run({ file }, opts, ctx) {
    const wanted = opts['sheet-name'] || baseNameOf(file.name);
    const [sheet] = sheetNames([wanted], ctx.name('sheet'));
    // The rows go from the CSV into the sheet as they are read: neither the whole text nor the whole table is held.
    const preview = new PreviewRows();
    const { result: bytes, read } = streamCsv(
      file,
      {
        hasHeader: opts['has-header'],
        detectTypes: opts['detect-types'],
        delimiter: opts.delimiter === 'auto' ? undefined : DELIMITERS[opts.delimiter],
        report: ctx.message,
        maxCells: ctx.limits.maxCells,
      },
      (pipe) =>
        writeXlsxRows(sheet, ctx, (xlsx) => {
          preview.rows.length = 0;
          pipe({ titles: (cells) => xlsx.titles(cells), rows: (batch) => (preview.take(batch), xlsx.rows(batch)) });
        }),
    );
    if (sheet !== wanted) ctx.message('info', 'sheet_renamed', { name: file.name, from: wanted, to: sheet });
    ctx.message('info', 'xlsx_from_csv', {
      name: file.name,
      encoding: read.encoding.toUpperCase().replace('WINDOWS', 'Windows'),
      delimiter: ctx.t(`names.delimiter-${NAMES[read.delimiter] ?? 'comma'}`),
      rows: read.rowCount,
      columns: read.width,
      sheet,
    });
    return { files: [ctx.file(`${baseNameOf(file.name)}.xlsx`, bytes)], preview: preview.table(sheet, read.header, read.width, read.rowCount) };
  },
});

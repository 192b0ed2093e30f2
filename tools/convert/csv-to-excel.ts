// Turns a CSV into an .xlsx of one sheet. The encoding is detected (BOM, UTF-8, else the 8-bit code page, csv/charset.ts), and so is
// the delimiter with `auto` (comma, semicolon, tab, pipe; a semicolon file with decimal commas is semicolon).
// With `detect-types`, integers, decimals (a comma is the decimal mark when the delimiter is not a comma), ISO
// and dd/mm/yyyy dates and true/false/verdadero/falso are typed; `00123`, more than 15 digits and `+34 …` stay
// text. The sheet is named `sheet-name`, or after the file, made valid for Excel (a change gets a message).
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { baseNameOf } from '../core/files.ts';
import { hasHeader, optionalText } from '../core/schema.ts';
import { DELIMITERS, openWorkbook, sheetNames, xlsxWriter } from '../formats/index.ts';

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
    const book = openWorkbook(file, ctx, {
      hasHeader: opts['has-header'],
      detectTypes: opts['detect-types'],
      delimiter: opts.delimiter === 'auto' ? undefined : DELIMITERS[opts.delimiter],
    });
    // The rows go from the CSV into the sheet as they are parsed: neither the whole text nor the whole table is held.
    const { written, read } = book.stream(
      (rows) => {
        const out = xlsxWriter(rows, ctx, { name: sheet });
        for (const batch of rows) out.write(batch);
        return { written: out.end(), read: { rows: rows.rowCount, columns: rows.width, delimiter: rows.delimiter ?? ',' } };
      },
      { onePass: true },
    );
    if (sheet !== wanted) ctx.message('info', 'sheet_renamed', { name: file.name, from: wanted, to: sheet });
    ctx.message('info', 'xlsx_from_csv', {
      name: file.name,
      encoding: (book.encoding ?? 'utf-8').toUpperCase().replace('WINDOWS', 'Windows'),
      delimiter: ctx.t(`names.delimiter-${NAMES[read.delimiter] ?? 'comma'}`),
      rows: read.rows,
      columns: read.columns,
      sheet,
    });
    return { files: [ctx.file(`${baseNameOf(file.name)}.xlsx`, written)] };
  },
});

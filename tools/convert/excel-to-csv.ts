// Writes the first sheet of a workbook (or every sheet, in tab order) as CSV: RFC 4180 quoting, CRLF, UTF-8 with
// a BOM unless `bom=false`; numbers plain with a point, dates ISO, booleans true/false, text exactly as it is.
// Names: `<base>.csv`; with `all-sheets` and several sheets, `<sheet name>.csv` each (sanitized, unique), as
// split-sheets names its files. An empty sheet gives an empty CSV with a warning; a workbook with nothing to
// convert is `invalid_file`.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf } from '../core/files.ts';
import { hasHeader } from '../core/schema.ts';
import { csvWriter, listText, openWorkbook, resultBudget } from '../formats/index.ts';

const NAMED = { comma: ',', semicolon: ';', tab: '\t', pipe: '|', space: ' ' } as const;

// One character that cannot be confused with quoting or a line end.
const literal = v.pipe(v.string(), { ...v.regex(/^[^"\r\n\ud800-\udfff]$/), expects: 'comma, semicolon, tab, pipe, space or one character other than a double quote, CR or LF' });

export default defineTool({
  id: 'excel-to-csv',
  category: 'convert',
  input: { kind: 'file', formats: ['xlsx', 'xls'] },
  options: v.strictObject({
    'has-header': hasHeader,
    delimiter: v.optional(v.union([v.picklist(Object.keys(NAMED) as (keyof typeof NAMED)[]), literal]), 'comma'),
    'include-header': v.optional(v.boolean(), true),
    bom: v.optional(v.boolean(), true),
    'all-sheets': v.optional(v.boolean(), false),
  }),
  run({ file }, opts, ctx) {
    const all = opts['all-sheets'];
    const delimiter = Object.hasOwn(NAMED, opts.delimiter) ? NAMED[opts.delimiter as keyof typeof NAMED] : opts.delimiter;
    const book = openWorkbook(file, ctx, { hasHeader: opts['has-header'], sheets: all ? 'all' : 'first' });
    // Each sheet is written as its rows are read: only its CSV is kept. The title row is written from its typed
    // cells, so that a year or a date title reads as the data does.
    const tables = (all ? book.sheets : [book.first]).map((sheet) =>
      sheet.stream((rows) => {
        const out = csvWriter(rows, { delimiter, bom: opts.bom, titles: opts['include-header'], typedTitles: true, budget: resultBudget(ctx) });
        for (const batch of rows) out.write(batch);
        return { name: rows.name, width: rows.width, rowCount: rows.rowCount, written: out.end() };
      }),
    );
    const isEmpty = (t: (typeof tables)[number]) => t.width === 0;
    if (tables.every(isEmpty) && (all || book.sheets.length === 1)) {
      throw new ToolError('invalid_file', { option: 'file', messageKey: 'error-details.empty', params: { name: file.name.slice(0, 200) } });
    }
    if (!all && book.sheets.length > 1) {
      ctx.message('warning', 'sheets_not_converted', { name: file.name, sheet: tables[0].name, sheets: listText(book.sheets.filter((s) => s !== book.first).map((s) => s.name)) });
    }
    const files = tables.map((t) => {
      const name = tables.length === 1 ? baseNameOf(file.name) : t.name;
      const out = ctx.file(`${name}.csv`, t.written);
      if (isEmpty(t)) ctx.message('warning', 'sheet_empty', { name: file.name, sheet: t.name });
      else ctx.message('info', 'csv_written', { file: out.name, sheet: t.name, rows: t.rowCount, columns: t.width });
      return out;
    });
    return { files };
  },
});

// Writes the first sheet (or the CSV) as an HTML table: titles in <thead> as <th scope="col"> when has-header,
// every value escaped, line breaks in a cell as <br>, numbers marked data-type="number". Values are plain
// (numbers with `.`, dates yyyy-mm-dd[ hh:mm:ss], true/false); CSV fields are written as they came.
// include-styles adds the class `sheet-table` to the table and a <style> whose every rule is scoped to that
// class: in <head> with full-document, else right before the table, so a pasted fragment never restyles the
// rest of a page. Characters an XML or HTML document cannot hold (controls) are removed with a warning.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { baseNameOf } from '../core/files.ts';
import { hasHeader } from '../core/schema.ts';
import { openWorkbook, writeHtml } from '../formats/index.ts';

const CLASS_LIST = /^(?:[A-Za-z_-][A-Za-z0-9_-]*(?: +[A-Za-z_-][A-Za-z0-9_-]*)*)?$/;

export default defineTool({
  id: 'excel-to-html',
  category: 'convert',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    'has-header': hasHeader,
    'full-document': v.optional(v.boolean(), false),
    'table-class': v.optional(
      v.pipe(v.string(), v.maxLength(100), { ...v.regex(CLASS_LIST), expects: 'CSS class names [A-Za-z_-][A-Za-z0-9_-]*' }),
      '',
    ),
    'include-styles': v.optional(v.boolean(), true),
  }),
  run({ file }, opts, ctx) {
    const table = openWorkbook(file, ctx, { hasHeader: opts['has-header'], detectTypes: false, sheets: 'first' }).table();
    if (table.width === 0) ctx.message('warning', 'empty_table', { name: file.name });
    const page = { page: opts['full-document'], title: table.name || baseNameOf(file.name), lang: ctx.lang };
    const written = writeHtml(table, { ...page, classes: opts['table-class'], styled: opts['include-styles'] });
    ctx.message('info', 'html_written', { sheet: table.name, rows: table.rowCount, columns: table.width });
    return { files: [ctx.file(`${baseNameOf(file.name)}.html`, written)] };
  },
});

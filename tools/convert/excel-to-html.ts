// Writes the first sheet (or the CSV) as an HTML table: titles in <thead> as <th scope="col"> when has-header,
// every value escaped, line breaks in a cell as <br>, numbers marked data-type="number". Values are plain
// (numbers with `.`, dates yyyy-mm-dd[ hh:mm:ss], true/false); CSV fields are written as they came.
// include-styles adds the class `sheet-table` to the table and a <style> whose every rule is scoped to that
// class: in <head> with full-document, else right before the table, so a pasted fragment never restyles the
// rest of a page. Characters an XML or HTML document cannot hold (controls) are removed with a warning.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { baseNameOf } from '../core/files.ts';
import { columnLetter, widthOf, type Cell } from '../formats/model.ts';
import { hasHeader } from '../core/schema.ts';
import { csvText, readFirstTable } from '../formats/index.ts';
import { escapeHtml, XmlCharFilter } from '../formats/markup.ts';

const CLASS_LIST = /^(?:[A-Za-z_-][A-Za-z0-9_-]*(?: +[A-Za-z_-][A-Za-z0-9_-]*)*)?$/;
const STYLED = 'sheet-table';
const STYLE = [
  '<style>',
  `table.${STYLED} { border-collapse: collapse; font-family: system-ui, sans-serif; font-size: 14px; }`,
  `table.${STYLED} th, table.${STYLED} td { border: 1px solid #c6cbd1; padding: 4px 8px; text-align: left; vertical-align: top; }`,
  `table.${STYLED} thead th { background: #e4eaf1; font-weight: 600; }`,
  `table.${STYLED} tbody tr:nth-child(even) { background: #f5f7f9; }`,
  `table.${STYLED} td[data-type="number"] { text-align: right; font-variant-numeric: tabular-nums; }`,
  '</style>',
].join('\n');

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
    const table = readFirstTable(file, { hasHeader: opts['has-header'], detectTypes: false, report: ctx.message, maxCells: ctx.limits.maxCells });
    const width = widthOf(table);
    if (width === 0) ctx.message('warning', 'empty_table', { name: file.name });
    const chars = new XmlCharFilter();
    const html = (c: Cell, where: () => string) => chars.clean(displayText(c), where).split(/\r\n|\r|\n/).map(escapeHtml).join('<br>');

    const classes = [opts['table-class'], opts['include-styles'] ? STYLED : ''].filter(Boolean).join(' ');
    const out: string[] = [classes ? `<table class="${classes}">` : '<table>'];
    if (table.header && width > 0) {
      const ths = Array.from({ length: width }, (_, i) => `<th scope="col">${html(table.header![i] ?? '', () => `${columnLetter(i)}1`)}</th>`);
      out.push('  <thead>', `    <tr>${ths.join('')}</tr>`, '  </thead>');
    }
    out.push('  <tbody>');
    const first = table.header ? 2 : 1;
    table.rows.forEach((row, r) => {
      const tds = Array.from({ length: width }, (_, i) => {
        const text = html(row[i] ?? null, () => `${columnLetter(i)}${r + first}`);
        return typeof row[i] === 'number' ? `<td data-type="number">${text}</td>` : `<td>${text}</td>`;
      });
      out.push(`    <tr>${tds.join('')}</tr>`);
    });
    out.push('  </tbody>', '</table>');
    const title = chars.clean(table.name || baseNameOf(file.name), () => 'title');
    if (chars.count > 0) ctx.message('warning', 'markup_chars_removed', { count: chars.count, cell: chars.first!, sheet: table.name, format: 'HTML' });
    ctx.message('info', 'html_written', { sheet: table.name, rows: table.rows.length, columns: width });

    const styles = opts['include-styles'] ? [STYLE] : [];
    const body = opts['full-document'] ? page(ctx.lang, title, styles, out) : [...styles, ...out];
    const bytes = new TextEncoder().encode(body.join('\n') + '\n');
    return { files: [ctx.file(`${baseNameOf(file.name)}.html`, bytes)], preview: table };
  },
});

/** A cell as the page shows it: the plain machine form, with a space instead of `T` between date and time. */
function displayText(c: Cell): string {
  const text = csvText(c);
  return c instanceof Date ? text.replace('T', ' ') : text;
}

function page(lang: string, title: string, styles: string[], table: string[]): string[] {
  return [
    '<!DOCTYPE html>',
    `<html lang="${lang}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    ...styles,
    '</head>',
    '<body>',
    ...table,
    '</body>',
    '</html>',
  ];
}

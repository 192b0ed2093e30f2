// A table as HTML (excel-to-html): titles in <thead> as <th scope="col">, every value escaped, line breaks in a
// cell as <br>, numbers marked data-type="number". Values are plain (numbers with `.`, dates yyyy-mm-dd[
// hh:mm:ss], true/false); text as it is. `styled` adds the class `sheet-table` and a <style> whose every rule is
// scoped to it: in <head> for a whole page, else right before the table, so a pasted fragment never restyles
// the rest of a page. Characters an HTML document cannot hold (controls) are removed and counted.
import { writtenOf } from '../batch.ts';
import { csvText } from '../csv/write.ts';
import { escapeHtml, XmlCharFilter } from '../markup.ts';
import { columnLetter, type Cell, type Table, type Written } from '../model.ts';

export const STYLED = 'sheet-table';
const STYLE = [
  '<style>',
  `table.${STYLED} { border-collapse: collapse; font-family: system-ui, sans-serif; font-size: 14px; }`,
  `table.${STYLED} th, table.${STYLED} td { border: 1px solid #c6cbd1; padding: 4px 8px; text-align: left; vertical-align: top; }`,
  `table.${STYLED} thead th { background: #e4eaf1; font-weight: 600; }`,
  `table.${STYLED} tbody tr:nth-child(even) { background: #f5f7f9; }`,
  `table.${STYLED} td[data-type="number"] { text-align: right; font-variant-numeric: tabular-nums; }`,
  '</style>',
].join('\n');

export interface HtmlOptions {
  /** A whole UTF-8 page in language `lang`, titled `title`; else the table alone. */
  page: boolean;
  title: string;
  lang: string;
  /** Class names of the table (besides STYLED when styled). */
  classes: string;
  styled: boolean;
}

/** The HTML of a table read whole, and what it had to remove (the characters, the first cell that lost some). */
export function writeHtml(table: Table, o: HtmlOptions): Written {
  const rows = table.rows();
  const width = table.width;
  const chars = new XmlCharFilter(table.name);
  const html = (c: Cell, where: () => string) => chars.clean(displayText(c), where).split(/\r\n|\r|\n/).map(escapeHtml).join('<br>');
  const classes = [o.classes, o.styled ? STYLED : ''].filter(Boolean).join(' ');
  const out: string[] = [classes ? `<table class="${classes}">` : '<table>'];
  if (table.header && width > 0) {
    const ths = Array.from({ length: width }, (_, i) => `<th scope="col">${html(table.header![i] ?? '', () => `${columnLetter(i)}1`)}</th>`);
    out.push('  <thead>', `    <tr>${ths.join('')}</tr>`, '  </thead>');
  }
  out.push('  <tbody>');
  const first = table.header ? 2 : 1;
  rows.forEach((row, r) => {
    const tds = Array.from({ length: width }, (_, i) => {
      const text = html(row[i] ?? null, () => `${columnLetter(i)}${r + first}`);
      return typeof row[i] === 'number' ? `<td data-type="number">${text}</td>` : `<td>${text}</td>`;
    });
    out.push(`    <tr>${tds.join('')}</tr>`);
  });
  out.push('  </tbody>', '</table>');
  const title = chars.clean(o.title, () => 'title');
  const styles = o.styled ? [STYLE] : [];
  const body = o.page ? page(o.lang, title, styles, out) : [...styles, ...out];
  return { ...writtenOf(new TextEncoder().encode(body.join('\n') + '\n'), table, rows), removed: chars.removed() };
}

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

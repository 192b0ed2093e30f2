// Writes the first sheet (or the CSV) as XML: a root element holding one element per row, each holding one
// element per column, named after the titles (tools.md §3). Values are in machine form (§2.6); characters
// XML 1.0 cannot hold are removed with a warning. With has-header=false the names are `columna_N`.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { baseNameOf } from '../core/files.ts';
import { columnLetter, widthOf, type TableData } from '../formats/model.ts';
import { csvText, readFirstTable, uniqueNames } from '../formats/index.ts';
import { clipChars, ELEMENT_NAME_OR_EMPTY, elementNameOf, escapeXmlText, MAX_NAME_CHARS, XmlCharFilter } from '../formats/markup.ts';

// Empty means the default; a given name is checked, never changed.
const elementOption = (fallback: string) =>
  v.optional(
    v.pipe(v.string(), v.maxLength(MAX_NAME_CHARS), { ...v.regex(ELEMENT_NAME_OR_EMPTY), expects: 'XML 1.0 Name, no ":", not "xml…"' }),
    fallback,
  );

export default defineTool({
  id: 'excel-to-xml',
  category: 'convert',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    'root-element': elementOption('datos'),
    'row-element': elementOption(''),
    pretty: v.optional(v.boolean(), true),
  }),
  localizedDefaults: { 'row-element': 'names.row' },
  run({ file }, opts, ctx) {
    const table = readFirstTable(file, { hasHeader: true, detectTypes: true, report: ctx.message, maxCells: ctx.limits.maxCells });
    const root = opts['root-element'] || 'datos';
    const row = opts['row-element'] || ctx.name('row');
    const names = elementNames(table, (n) => ctx.name('xml-column', { n }));
    if (names.changed) ctx.message('info', 'xml_names_changed', { names: names.changed });
    if (names.list.length === 0) ctx.message('warning', 'empty_table', { name: file.name });

    const chars = new XmlCharFilter();
    const [nl, ind1, ind2] = opts.pretty ? ['\n', '  ', '    '] : ['', '', ''];
    const parts: string[] = ['<?xml version="1.0" encoding="UTF-8"?>', nl];
    if (table.rows.length === 0) parts.push(`<${root}/>`, nl);
    else {
      parts.push(`<${root}>`, nl);
      table.rows.forEach((cells, r) => {
        parts.push(ind1, `<${row}>`, nl);
        names.list.forEach((name, c) => {
          const text = chars.clean(csvText(cells[c] ?? null), () => `${columnLetter(c)}${r + 2}`);
          parts.push(ind2, text === '' ? `<${name}/>` : `<${name}>${escapeXmlText(text)}</${name}>`, nl);
        });
        parts.push(ind1, `</${row}>`, nl);
      });
      parts.push(`</${root}>`, nl);
    }
    if (chars.count > 0) ctx.message('warning', 'markup_chars_removed', { count: chars.count, cell: chars.first!, sheet: table.name, format: 'XML' });
    ctx.message('info', 'xml_written', { sheet: table.name, rows: table.rows.length, columns: names.list.length, root, row });

    const preview: TableData = { name: table.name, header: names.list, rows: table.rows };
    return { files: [ctx.file(`${baseNameOf(file.name)}.xml`, new TextEncoder().encode(parts.join('')))], preview };
  },
});

/** One element name per column, unique (`_2`, `_3`…), and the titles that had to change, listed for the message. */
function elementNames(table: TableData, generated: (n: number) => string): { list: string[]; changed: string } {
  const titles = Array.from({ length: widthOf(table) }, (_, i) => table.header?.[i] ?? '');
  const made = titles.map((t, i) => elementNameOf(t) || generated(i + 1));
  const suffix = (name: string, n: number) => `${clipChars(name, MAX_NAME_CHARS - String(n).length - 1)}_${n}`;
  const list = uniqueNames(made, suffix).names;
  const changed = titles.flatMap((t, i) => (t === list[i] ? [] : [`"${clipChars(t, 40)}" → ${list[i]}`]));
  const shown = changed.slice(0, 8).join(', ');
  return { list, changed: changed.length > 8 ? `${shown} (+${changed.length - 8})` : shown };
}

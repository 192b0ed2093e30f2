// Writes the first sheet (or the CSV) as XML: a root element holding one element per row, each holding one
// element per column, named after the titles (tools.md §3). Values are in machine form (§2.6); characters
// XML 1.0 cannot hold are removed with a warning. With has-header=false the names are `columna_N`.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { baseNameOf } from '../core/files.ts';
import { ELEMENT_NAME_OR_EMPTY, elementNames, MAX_NAME_CHARS, openWorkbook, writeXml } from '../formats/index.ts';

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
    const table = openWorkbook(file, ctx, { hasHeader: true, sheets: 'first' }).table();
    const root = opts['root-element'] || 'datos';
    const row = opts['row-element'] || ctx.name('row');
    const names = elementNames(table, (n) => ctx.name('xml-column', { n }));
    if (names.changed) ctx.message('info', 'xml_names_changed', { names: names.changed });
    if (names.list.length === 0) ctx.message('warning', 'empty_table', { name: file.name });
    const written = writeXml(table, { root, row, names: names.list, pretty: opts.pretty });
    ctx.message('info', 'xml_written', { sheet: table.name, rows: table.rowCount, columns: names.list.length, root, row });
    return { files: [ctx.file(`${baseNameOf(file.name)}.xml`, written)] };
  },
});

// Writes the first sheet (or the CSV) as YAML 1.2 (tools/formats/yaml/write.ts): a list of mappings keyed by the
// titles, or with `arrays` a list of lists of the data rows. Values in machine form, strings quoted wherever a
// YAML 1.1 or 1.2 reader could take them for something else. Keys: a missing title is `Columna N`, a repeated
// one gets `_2`, `_3`…; empty cells are `null`, or left out of mappings with `skip-empty-values`.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf } from '../core/files.ts';
import { hasHeader } from '../core/schema.ts';
import { listText, namedTitles, openWorkbook, uniqueNames, yamlWriter, type YamlLayout } from '../formats/index.ts';

export default defineTool({
  id: 'excel-to-yaml',
  category: 'convert',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    'has-header': hasHeader,
    shape: v.optional(v.picklist(['objects', 'arrays']), 'objects'),
    'skip-empty-values': v.optional(v.boolean(), false),
  }),
  run({ file }, opts, ctx) {
    const book = openWorkbook(file, ctx, { hasHeader: opts['has-header'], sheets: 'first' });
    // Rows are written as they are read; the stream may start again on a whole read, so its effects are returned.
    const r = book.stream((table) => {
      const layout: YamlLayout = { keys: null, skipEmpty: opts['skip-empty-values'], width: table.width };
      let renamed: string[] = [];
      if (opts.shape === 'objects') {
        const unique = uniqueNames(namedTitles(table, (n) => ctx.name('column', { n })), (name, n) => `${name}_${n}`);
        layout.keys = unique.names;
        renamed = unique.renamed;
      }
      const writer = yamlWriter(table, layout);
      for (const batch of table) writer.write(batch);
      return { written: writer.end(), sheet: table.name, rows: table.rowCount, columns: table.width, renamed };
    });
    if (r.columns === 0) {
      if (book.sheets.length <= 1) throw new ToolError('invalid_file', { option: 'file', messageKey: 'error-details.empty', params: { name: file.name.slice(0, 200) } });
      ctx.message('warning', 'sheet_empty', { name: file.name, sheet: r.sheet });
    }
    if (r.renamed.length > 0) ctx.message('info', 'keys_renamed', { names: listText([...new Set(r.renamed)]) });
    if (opts.shape === 'arrays' && opts['skip-empty-values']) ctx.message('info', 'skip_empty_arrays');
    const out = ctx.file(`${baseNameOf(file.name)}.yaml`, r.written);
    ctx.message('info', 'yaml_written', { file: out.name, sheet: r.sheet, rows: r.rows, columns: r.columns });
    return { files: [out] };
  },
});

// Splits the first sheet (or the CSV) into files of `rows-per-file` data rows, named part-001, part-002…
// (more digits when there are more than 999 parts); the last part holds the leftover rows, and a table with
// no data rows gives one part with the titles only. CSV to CSV keeps every value's text exactly (no typing).
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { extensionOf } from '../core/files.ts';
import { hasHeader, outputFormat } from '../core/schema.ts';
import { readFirstTable, writeCsv, writeXlsx, type SheetTable } from '../sheet/index.ts';

export default defineTool({
  id: 'split-rows',
  category: 'merge-split',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    'has-header': hasHeader,
    'rows-per-file': v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000)), 1000),
    'repeat-header': v.optional(v.boolean(), true),
    format: outputFormat,
  }),
  run({ file }, opts, ctx) {
    const detectTypes = !(extensionOf(file.name) === 'csv' && opts.format === 'csv');
    const table = readFirstTable(file, { hasHeader: opts['has-header'], detectTypes, report: ctx.message, maxCells: ctx.limits.maxCells });
    const size = opts['rows-per-file'];
    const count = Math.max(1, Math.ceil(table.rows.length / size));
    const digits = Math.max(3, String(count).length);
    const parts: SheetTable[] = [];
    for (let i = 0; i < count; i++) {
      const n = String(i + 1).padStart(digits, '0');
      const titled = i === 0 || opts['repeat-header'];
      const rows = table.rows.slice(i * size, (i + 1) * size);
      parts.push({ name: ctx.name('part', { n }), header: titled ? table.header : null, titleCells: table.titleCells, delimiter: table.delimiter, rows });
    }
    const files = parts.map((p) => ctx.file(`${p.name}.${opts.format}`, opts.format === 'csv' ? writeCsv(p) : writeXlsx([p], ctx)));
    return { files, preview: parts[0] };
  },
});

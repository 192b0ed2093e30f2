// Splits the first sheet (or the CSV) into files of `rows-per-file` data rows, named part-001, part-002…
// (more digits when there are more than 999 parts); the last part holds the leftover rows, and a table with
// no data rows gives one part with the titles only. CSV to CSV keeps every value's text exactly (no typing).
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { extensionOf } from '../core/files.ts';
import { hasHeader, outputFormat } from '../core/schema.ts';
import { readFirstTable, writeCsv, writeXlsx, type SheetTable } from '../sheet/index.ts';
import { partPreview, readCsvRecords, writeCsvParts } from '../sheet/csv-records.ts';

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
    const size = opts['rows-per-file'];
    const partsOf = (rows: number) => {
      const count = Math.max(1, Math.ceil(rows / size));
      const digits = Math.max(3, String(count).length);
      return Array.from({ length: count }, (_, i) => ({ name: ctx.name('part', { n: String(i + 1).padStart(digits, '0') }), titled: i === 0 || opts['repeat-header'] }));
    };
    if (extensionOf(file.name) === 'csv' && opts.format === 'csv') {
      // Records are copied as they are: no typing, no table (tools/sheet/csv-records.ts).
      const src = readCsvRecords(file, { hasHeader: opts['has-header'], report: ctx.message, maxCells: ctx.limits.maxCells });
      const parts = partsOf(src.rowCount);
      const partOf = new Int32Array(src.rowCount);
      for (let j = 0; j < partOf.length; j++) partOf[j] = Math.floor(j / size);
      const bytes = writeCsvParts(src, partOf, parts.length, { header: (i) => (parts[i].titled ? src.header : null) });
      const files = parts.map((p, i) => ctx.file(`${p.name}.csv`, bytes[i]));
      return { files, preview: partPreview(src, partOf, 0, parts[0].name, src.header) };
    }
    const table = readFirstTable(file, { hasHeader: opts['has-header'], detectTypes: true, report: ctx.message, maxCells: ctx.limits.maxCells });
    const parts: SheetTable[] = partsOf(table.rows.length).map((p, i) => {
      const rows = table.rows.slice(i * size, (i + 1) * size);
      return { name: p.name, header: p.titled ? table.header : null, titleCells: table.titleCells, delimiter: table.delimiter, rows };
    });
    const files = parts.map((p) => ctx.file(`${p.name}.${opts.format}`, opts.format === 'csv' ? writeCsv(p) : writeXlsx([p], ctx)));
    return { files, preview: parts[0] };
  },
});

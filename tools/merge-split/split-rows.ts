// Splits the first sheet (or the CSV) into files of `rows-per-file` data rows, named part-001, part-002…
// (more digits when there are more than 999 parts); the last part holds the leftover rows, and a table with
// no data rows gives one part with the titles only. CSV to CSV keeps every value's text exactly (no typing).
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { extensionOf } from '../core/files.ts';
import { hasHeader, outputFormat } from '../core/schema.ts';
import { readFirstTable, writeCsv, writeXlsx, type SheetTable } from '../sheet/index.ts';
import { readCsvRecords, recordsPreview, writeCsvRecords } from '../sheet/csv-records.ts';

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
      const parts = partsOf(src.rowCount).map((p, i) => ({ ...p, pick: [src.first + i * size, Math.min(src.first + (i + 1) * size, src.size)] as [number, number] }));
      const files = parts.map((p) => ctx.file(`${p.name}.csv`, writeCsvRecords(src, p.pick, { header: p.titled ? src.header : null })));
      return { files, preview: recordsPreview(src, parts[0].pick, parts[0].name, src.header) };
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

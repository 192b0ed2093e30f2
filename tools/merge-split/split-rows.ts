// Splits the first sheet (or the CSV) into files of `rows-per-file` data rows, named part-001, part-002…
// (more digits when there are more than 999 parts); the last part holds the leftover rows, and a table with
// no data rows gives one part with the titles only. CSV to CSV keeps every value's text exactly (no typing).
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { extensionOf } from '../core/files.ts';
import { hasHeader, outputFormat } from '../core/schema.ts';
import type { PreviewTable } from '../core/output.ts';
import { writeCsv, writeXlsx, type SheetTable } from '../formats/index.ts';
import { partPreview, readCsvRecords, writeCsvParts } from '../formats/csv/records.ts';
import { streamParts } from '../formats/row-stream.ts';

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
    const partName = (i: number, count: number) => ctx.name('part', { n: String(i + 1).padStart(Math.max(3, String(count).length), '0') });
    const partsOf = (rows: number) => {
      const count = Math.max(1, Math.ceil(rows / size));
      return Array.from({ length: count }, (_, i) => ({ name: partName(i, count), titled: i === 0 || opts['repeat-header'] }));
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
    // A workbook (or a CSV to xlsx): each part is written as soon as it is full (tools/sheet/row-stream.ts). An
    // xlsx part holds its name, whose digits follow the count of parts: 999 parts are guessed until it is known.
    const xlsx = opts.format === 'xlsx';
    const read = { hasHeader: opts['has-header'], detectTypes: true, report: ctx.message, maxCells: ctx.limits.maxCells };
    const { table, parts, head } = streamParts(file, read, size, xlsx ? 999 : Infinity, (i, count, rows, t) => {
      const p: SheetTable = { name: xlsx ? partName(i, count) : '', header: i === 0 || opts['repeat-header'] ? t.header : null, titleCells: t.titleCells, rows };
      return xlsx ? writeXlsx([p], ctx) : writeCsv(p);
    });
    const files = parts.map((bytes, i) => ctx.file(`${partName(i, parts.length)}.${opts.format}`, bytes));
    const preview: PreviewTable = { name: partName(0, parts.length), header: table.header, rows: head, totalRows: Math.min(size, table.rowCount) };
    return { files, preview };
  },
});

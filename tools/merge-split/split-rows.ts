// Splits the first sheet (or the CSV) into files of `rows-per-file` data rows, named part-001, part-002…
// (more digits when there are more than 999 parts); the last part holds the leftover rows, and a table with
// no data rows gives one part with the titles only. CSV to CSV keeps every value's text exactly (no typing).
// Each part is written as soon as it is full and its rows let go.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import type { OutputFile } from '../core/output.ts';
import { hasHeader, outputFormat } from '../core/schema.ts';
import { openWorkbook, tableWriter, type RowStream, type TableWriter, type Written } from '../formats/index.ts';

/** More parts than guessed: the sheet is read again, now that the count (and so the names' digits) is known. */
class Recount {
  constructor(readonly parts: number) {}
}

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
    const format = opts.format;
    const partName = (i: number, count: number) => ctx.name('part', { n: String(i + 1).padStart(Math.max(3, String(count).length), '0') });
    // CSV to CSV copies each value as it is written; to xlsx, CSV values are typed.
    const book = openWorkbook(file, ctx, { hasHeader: opts['has-header'], detectTypes: format === 'xlsx', sheets: 'first' });

    /**
     * The parts of the stream, named for `count` parts. An xlsx part holds its name (its sheet's), whose digits
     * follow the count: when the rows are not counted before they are read, 999 parts are guessed, and a sheet
     * needing more is read again with the count (Recount; its messages are given once, by that read).
     */
    const split = (rows: RowStream, known: number | null): Written[] => {
      const count = known ?? (rows.total !== null ? Math.max(1, Math.ceil(rows.total / size)) : format === 'xlsx' ? null : Infinity);
      files = [];
      const open = (i: number) => {
        const head = { name: partName(i, Math.min(count ?? 999, 999_999)), header: i === 0 || opts['repeat-header'] ? rows.header : null, titleCells: rows.titleCells, width: rows.width, delimiter: rows.delimiter };
        return tableWriter(format, head, ctx);
      };
      const close = () => {
        if (part !== null) {
          parts.push(part.end());
          // With the count known, a part's name is final: it is a result now (a download deflates it while the
          // next is cut).
          if (count !== null && Number.isFinite(count) && made === parts.length) files.push(ctx.file(`${partName(made - 1, count)}.${format}`, parts[made - 1]));
        }
        part = null;
        filled = 0;
      };
      const parts: Written[] = [];
      let part: TableWriter | null = null;
      let filled = 0;
      let made = 0;
      for (const batch of rows) {
        for (let at = 0; at < batch.length; ) {
          // A part starts: past the guess, parts are only counted.
          if (filled === 0 && made++ < (count ?? 999)) part = open(made - 1);
          const take = Math.min(size - filled, batch.length - at);
          part?.write(at === 0 && take === batch.length ? batch : batch.slice(at, at + take));
          filled += take;
          at += take;
          if (filled === size) close();
        }
      }
      if (filled > 0) close();
      if (made === 0) {
        part = open(made++);
        close();
      }
      if (count === null && made > 999) throw new Recount(made);
      return parts;
    };

    let parts: Written[];
    let files: OutputFile[] = [];
    try {
      parts = book.stream((rows) => split(rows, null));
    } catch (err) {
      if (!(err instanceof Recount)) throw err;
      parts = book.stream((rows) => split(rows, err.parts));
    }
    // A CSV part holds no name: the first one's, for the preview, follows the count known now.
    if (parts[0].preview) parts[0].preview.name = partName(0, parts.length);
    if (files.length !== parts.length) files = parts.map((p, i) => ctx.file(`${partName(i, parts.length)}.${format}`, p));
    return { files };
  },
});

// CONCATENAR/CONCAT by column (tools.md §4 merge-columns): the values of 2 to 50 columns, in display form
// (§2.6; a CSV field as written), joined row by row with a separator into a new text column, placed after
// the rightmost source column, or in the place of the leftmost when the sources go. A row whose sources are
// all empty gets an empty cell. The workbook's other sheets are kept (writeEdited).
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { columnList, resolveColumns } from '../core/columns.ts';
import { editedFormat, editedName, editFormat, hasHeader } from '../core/schema.ts';
import { displayText, laidOut, listText, openWorkbook, titlesBeside, typingFor, writeEdited, type Cell, type RowBatch } from '../formats/index.ts';

const SEPARATORS = { space: ' ', comma: ',', 'comma-space': ', ', semicolon: ';', dash: ' - ', newline: '\n', none: '' } as const;
type Keyword = keyof typeof SEPARATORS;

export default defineTool({
  id: 'merge-columns',
  category: 'merge-split',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    'has-header': hasHeader,
    columns: columnList.wrapped,
    separator: v.optional(v.union([v.picklist(Object.keys(SEPARATORS) as Keyword[]), v.pipe(v.string(), v.minLength(1), v.maxLength(10))]), 'space'),
    'skip-empty': v.optional(v.boolean(), true),
    'new-column-name': v.optional(v.pipe(v.string(), v.maxLength(255)), ''),
    'keep-columns': v.optional(v.boolean(), true),
    format: editFormat,
  }),
  run({ file }, opts, ctx) {
    const format = editedFormat(opts.format, file);
    const book = openWorkbook(file, ctx, { hasHeader: opts['has-header'], detectTypes: false, sheets: 'first' });
    const table = book.first.table();
    const sources = resolveColumns(table, opts.columns, 'columns', ctx, { min: 2, max: 50 });
    const keyword = Object.hasOwn(SEPARATORS, opts.separator);
    const separator = keyword ? SEPARATORS[opts.separator as Keyword] : opts.separator;
    const skipEmpty = opts['skip-empty'];
    const keep = opts['keep-columns'];
    const words = { true: ctx.t('display.true'), false: ctx.t('display.false') };
    const text = (c: Cell) => (typeof c === 'string' ? c : displayText(c, { lang: ctx.lang, words }));
    const type = typingFor(table, format);

    // Where the new column goes, and which columns stay.
    const at = keep ? Math.max(...sources) + 1 : Math.min(...sources);
    const dropped = new Set(keep ? [] : sources);
    const layout: (number | 'new')[] = [];
    for (let c = 0; c < table.width; c++) {
      if (c === at) layout.push('new');
      if (!dropped.has(c)) layout.push(c);
    }
    if (at >= table.width) layout.push('new');

    let header: string[] | null = null;
    let titleCells: Cell[] | undefined;
    if (table.header) {
      const given = opts['new-column-name'];
      const joiner = opts.separator === 'newline' || opts.separator === 'none' ? ' ' : separator;
      const proposed = given !== '' ? given : sources.map((c) => table.header![c] ?? '').join(joiner);
      const kept = layout.filter((c): c is number => c !== 'new').map((c) => table.header![c] ?? '');
      const [name] = titlesBeside(kept, [proposed]);
      if (name !== proposed) ctx.message('info', 'titles_renamed', { names: listText([`${proposed} → ${name}`]) });
      header = layout.map((c) => (c === 'new' ? name : (table.header![c] ?? '')));
      const cells = table.titleCells;
      if (cells) titleCells = layout.map((c) => (c === 'new' ? name : (cells[c] ?? null)));
    }

    // Output column i is source column order[i], or the new one (-1).
    const order = layout.map((c) => (c === 'new' ? -1 : c));
    let joined = 0;
    function* rows(): Generator<RowBatch> {
      for (const batch of table as Iterable<RowBatch>) {
        // The source columns alone: a CSV's records decode only these fields.
        const columns = sources.map((c) => batch.column(c));
        const values: Cell[] = new Array(batch.length);
        const parts: string[] = [];
        for (let j = 0; j < batch.length; j++) {
          parts.length = 0;
          let any = false;
          for (const column of columns) {
            const s = text(column[j] ?? null);
            if (s !== '') any = true;
            if (s !== '' || !skipEmpty) parts.push(s);
          }
          values[j] = any ? parts.join(separator) : null;
          if (any) joined++;
        }
        yield laidOut(batch, order, [values], type);
      }
    }

    const { written, preview } = writeEdited(book, book.first, format, ctx, () => ({
      head: { header, ...(titleCells ? { titleCells } : {}), width: layout.length, delimiter: table.delimiter },
      rows: rows(),
    }));
    ctx.message('info', 'columns_merged', { rows: table.total, joined, columns: sources.length, sheet: table.name });
    return { files: [ctx.file(editedName(file, ctx.name('merged-columns'), format, ctx), written)], preview };
  },
});

// Text to columns (tools.md §4 split-column): the text of one column split at a delimiter into new columns,
// or into new rows (one per part, the other cells repeated). Parts are always text (`00123` stays `00123`); a
// non-text cell is split in display form (§2.6), a CSV field as written. A regular expression runs on RE2's
// linear-time engine (re2js: no backreferences, no lookaround; §2.11). The workbook's other sheets are kept.
import * as v from 'valibot';
import { RE2JS } from 're2js';
import { defineTool } from '../core/define.ts';
import { columnList, columnRef, listItems, resolveColumn } from '../core/columns.ts';
import { ToolError } from '../core/errors.ts';
import { editedFormat, editedName, editFormat, hasHeader } from '../core/schema.ts';
import { displayText, laidOut, listText, openWorkbook, titlesBeside, typingFor, writeEdited, type AnyCell, type Cell, type RowBatch } from '../formats/index.ts';

const NAMED = { comma: ',', semicolon: ';', tab: '\t', pipe: '|' } as const;
const MAX_PARTS = 100;
const MAX_LITERAL = 10;

/** Splits a text into its parts (at most `max`, the last keeping the rest; 0 for no bound). */
type Splitter = (text: string, max: number) => string[];

/** `space`: runs of spaces are one delimiter, and outer spaces are no part. */
function splitSpaces(text: string, max: number): string[] {
  const s = text.replace(/^ +| +$/g, '');
  if (s === '') return [''];
  const parts: string[] = [];
  let at = 0;
  for (;;) {
    if (max > 0 && parts.length === max - 1) break;
    const i = s.indexOf(' ', at);
    if (i < 0) break;
    parts.push(s.slice(at, i));
    at = i;
    while (s.charCodeAt(at) === 32) at++;
  }
  parts.push(s.slice(at));
  return parts;
}

/** Any other delimiter: every occurrence splits, so empty parts keep their place. */
function splitAt(find: (text: string, from: number) => [number, number] | null): Splitter {
  return (text, max) => {
    const parts: string[] = [];
    let at = 0;
    let from = 0;
    while (max === 0 || parts.length < max - 1) {
      const hit = find(text, from);
      if (hit === null) break;
      const [start, end] = hit;
      // A match of empty text never splits (tools.md §4).
      if (end === start) {
        from = start + 1;
        if (from > text.length) break;
        continue;
      }
      parts.push(text.slice(at, start));
      at = from = end;
    }
    parts.push(text.slice(at));
    return parts;
  };
}

function literal(d: string): Splitter {
  return splitAt((text, from) => {
    const i = text.indexOf(d, from);
    return i < 0 ? null : [i, i + d.length];
  });
}

const LINE_BREAK = splitAt((text, from) => {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) return [i, i + 1];
    if (c === 13) return [i, text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1];
  }
  return null;
});

function pattern(source: string): Splitter {
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (err) {
    throw new ToolError('invalid_option', { option: 'delimiter', messageKey: 'error-details.regex', params: { option: 'delimiter', reason: String((err as Error).message).slice(0, 200) } });
  }
  // One matcher per text: a split asks it for each next match.
  let m: ReturnType<RE2JS['matcher']> | null = null;
  let of: string | null = null;
  return splitAt((text, from) => {
    if (of !== text || m === null) [m, of] = [re.matcher(text), text];
    return m.find(from) ? [m.start(), m.end()] : null;
  });
}

export default defineTool({
  id: 'split-column',
  category: 'merge-split',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    'has-header': hasHeader,
    column: columnRef,
    delimiter: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(1000)), 'space'),
    regex: v.optional(v.boolean(), false),
    into: v.optional(v.picklist(['columns', 'rows']), 'columns'),
    'max-parts': v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_PARTS)), 0),
    'new-column-names': columnList,
    'trim-parts': v.optional(v.boolean(), true),
    'keep-column': v.optional(v.boolean(), true),
    format: editFormat,
  }),
  run({ file }, opts, ctx) {
    const d = opts.delimiter;
    const split: Splitter =
      d === 'space' ? splitSpaces : d === 'newline' ? LINE_BREAK : Object.hasOwn(NAMED, d) ? literal(NAMED[d as keyof typeof NAMED]) : opts.regex ? pattern(d) : literalText(d);
    const names = listItems(opts['new-column-names']).map(String);
    const badName = names.find((n) => n.length === 0 || n.length > 255);
    if (badName !== undefined) throw new ToolError('invalid_option', { option: 'new-column-names', messageKey: 'error-details.name-length', params: { option: 'new-column-names', max: 255 } });

    const format = editedFormat(opts.format, file);
    const book = openWorkbook(file, ctx, { hasHeader: opts['has-header'], detectTypes: false, sheets: 'first' });
    const table = book.first.table();
    const col = resolveColumn(table, opts.column, 'column', ctx);
    const max = opts['max-parts'];
    const trim = opts['trim-parts'];
    const words = { true: ctx.t('display.true'), false: ctx.t('display.false') };
    const typing = typingFor(table, format);
    const type = typing ?? ((c: Cell) => c);
    const partsOf = (c: Cell): string[] | null => {
      if (c === null) return null;
      const text = typeof c === 'string' ? c : displayText(c, { lang: ctx.lang, words });
      if (text === '') return null;
      const parts = split(text, max);
      return trim ? parts.map((p) => p.trim()) : parts;
    };
    const cellOf = (p: string | undefined): Cell => (p === undefined || p === '' ? null : p);
    const firstRow = opts['has-header'] ? 2 : 1;
    let splitCells = 0;

    let head: { header: string[] | null; width: number };
    let out: () => Generator<AnyCell[][] | RowBatch<AnyCell>>;
    if (opts.into === 'rows') {
      head = { header: table.header, width: table.width };
      let written = 0;
      out = function* () {
        for (const batch of table as Iterable<RowBatch>) {
          const chunk: AnyCell[][] = [];
          for (const row of batch.rows()) {
            const base = row.map((c) => type(c));
            while (base.length < table.width) base.push(null);
            const parts = partsOf(row[col] ?? null);
            if (parts === null) chunk.push(base);
            else {
              if (parts.length > 1) splitCells++;
              for (const p of parts) chunk.push(base.map((c, i) => (i === col ? cellOf(p) : c)));
            }
          }
          written += chunk.length;
          yield chunk;
        }
        ctx.message('info', 'column_split_rows', { rows: table.rowCount, written, cells: splitCells, sheet: table.name });
      };
    } else {
      // The parts of every row first, read from the column alone: the number of new columns is the most parts found.
      const all: (string[] | null)[] = [];
      for (const batch of table as Iterable<RowBatch>) for (const c of batch.column(col)) all.push(partsOf(c));
      let most = 0;
      let mostAt = 0;
      all.forEach((p, i) => {
        if (p && p.length > most) [most, mostAt] = [p.length, i];
        if (p && p.length > 1) splitCells++;
      });
      if (most > MAX_PARTS) {
        throw new ToolError('invalid_option', { option: 'max-parts', messageKey: 'error-details.too-many-parts', params: { option: 'max-parts', found: most, row: mostAt + firstRow, max: MAX_PARTS } });
      }
      // The most parts found (bounded by max-parts, which already bounded each split), one at least, and as
      // many as names were given.
      const count = Math.max(most, 1, names.length);
      const keep = opts['keep-column'];
      const before = keep ? col + 1 : col;
      const after = col + 1;
      let header: string[] | null = null;
      if (table.header) {
        const title = table.header[col]?.trim() ? table.header[col] : ctx.name('column', { n: col + 1 });
        const kept = [...table.header.slice(0, before), ...table.header.slice(after)];
        const made = titlesBeside(kept, Array.from({ length: count }, (_, i) => names[i] ?? `${title} ${i + 1}`));
        const renamed = made.flatMap((t, i) => (t !== (names[i] ?? `${title} ${i + 1}`) ? [`${names[i] ?? `${title} ${i + 1}`} → ${t}`] : []));
        if (renamed.length > 0) ctx.message('info', 'titles_renamed', { names: listText(renamed) });
        header = [...table.header.slice(0, before), ...made, ...table.header.slice(after)];
        while (header.length < table.width - (keep ? 0 : 1) + count) header.push('');
      }
      head = { header, width: table.width - (keep ? 0 : 1) + count };
      // Output column i is source column layout[i], or the part -1 - layout[i].
      const layout = [...Array.from({ length: before }, (_, c) => c), ...Array.from({ length: count }, (_, p) => -1 - p), ...Array.from({ length: table.width - after }, (_, c) => after + c)];
      out = function* () {
        let i = 0;
        for (const batch of table as Iterable<RowBatch>) {
          const added: Cell[][] = Array.from({ length: count }, () => new Array<Cell>(batch.length));
          for (let j = 0; j < batch.length; j++) {
            const parts = all[i++] ?? [];
            for (let p = 0; p < count; p++) added[p][j] = cellOf(parts[p]);
          }
          yield laidOut(batch, layout, added, typing);
        }
        ctx.message('info', 'column_split_columns', { rows: table.rowCount, columns: count, cells: splitCells, sheet: table.name });
      };
    }

    const { written, preview } = writeEdited(book, book.first, format, ctx, () => ({ head: { ...head, delimiter: table.delimiter }, rows: out() }));
    return { files: [ctx.file(editedName(file, ctx.name('split-column'), format, ctx), written)], preview };
  },
});

/** A literal delimiter of 1 to 10 characters (a longer one only as a pattern, with regex=true). */
function literalText(d: string): Splitter {
  if (d.length > MAX_LITERAL) throw new ToolError('invalid_option', { option: 'delimiter', messageKey: 'error-details.delimiter-length', params: { option: 'delimiter', max: MAX_LITERAL } });
  return literal(d);
}

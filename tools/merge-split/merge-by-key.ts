// BUSCARV/VLOOKUP as a join (tools.md §4 merge-by-key): each row of `file` gets the chosen columns of the
// `lookup-file` row whose key matches. Keys are compared in machine form (§2.6) with outer spaces trimmed
// (the number 123 matches the text `123`, `00123` does not), optionally ignoring case; an empty key never
// matches. A hash join: the lookup table is held as a map from key to rows, the main table streamed past it,
// so the time is linear in the rows of both. The main table keeps its rows and their order; the workbook's
// other sheets are kept in their places (writeEdited).
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { columnList, optionalColumnRef, columnRef, resolveColumn, resolveColumns } from '../core/columns.ts';
import { editedFormat, editedName, editFormat, hasHeader } from '../core/schema.ts';
import { csvText, laidOut, listText, openWorkbook, titlesBeside, writeEdited, type AnyCell, type Cell, type Row, type RowBatch, type Table } from '../formats/index.ts';

const MAX_COLUMNS = 1000;

/** The key of a cell: its machine form without outer spaces; null for an empty key, which matches nothing. */
function keyOf(c: Cell, ignoreCase: boolean): string | null {
  if (c === null) return null;
  const text = (typeof c === 'string' ? c : csvText(c)).trim();
  if (text === '') return null;
  return ignoreCase ? text.toLowerCase() : text;
}

/** The lookup rows of each key, in their order, and the keys that repeat. */
function indexRows(lookup: Table, col: number, ignoreCase: boolean): { rows: Row[]; byKey: Map<string, number[]>; repeated: string[] } {
  const rows = lookup.rows();
  const byKey = new Map<string, number[]>();
  const repeated: string[] = [];
  for (let i = 0; i < rows.length; i++) {
    const key = keyOf(rows[i][col] ?? null, ignoreCase);
    if (key === null) continue;
    const list = byKey.get(key);
    if (list === undefined) byKey.set(key, [i]);
    else {
      if (list.length === 1) repeated.push(key);
      list.push(i);
    }
  }
  return { rows, byKey, repeated };
}

export default defineTool({
  id: 'merge-by-key',
  category: 'merge-split',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'], more: [{ field: 'lookup-file', formats: ['xlsx', 'xls', 'csv'] }] },
  options: v.strictObject({
    'has-header': hasHeader,
    key: columnRef,
    'lookup-key': optionalColumnRef,
    columns: columnList,
    'join-type': v.optional(v.picklist(['left', 'inner', 'full']), 'left'),
    'multiple-matches': v.optional(v.picklist(['first', 'all']), 'first'),
    'ignore-case': v.optional(v.boolean(), false),
    'not-found-value': v.optional(v.pipe(v.string(), v.maxLength(1000)), ''),
    format: editFormat,
  }),
  run({ file, more }, opts, ctx) {
    const format = editedFormat(opts.format, file);
    const header = opts['has-header'];
    const ignoreCase = opts['ignore-case'];
    const all = opts['multiple-matches'] === 'all';
    const joinType = opts['join-type'];
    // CSV to CSV keeps every field's text; a typed result types CSV fields (tools.md §2.3), in both files.
    const read = { hasHeader: header, detectTypes: format === 'xlsx', sheets: 'first' as const };
    const book = openWorkbook(file, ctx, read);
    const lookupFile = more['lookup-file'];
    const lookup = openWorkbook(lookupFile, ctx, read).table();
    const main = book.first.table();

    const keyCol = resolveColumn(main, opts.key, 'key', ctx);
    const lookupKey =
      opts['lookup-key'] !== ''
        ? resolveColumn(lookup, opts['lookup-key'], 'lookup-key', ctx)
        : // The column titled as `key`'s column (§2.4 rules), or at the same position when there are no titles.
          main.header && main.header[keyCol]?.trim()
          ? resolveColumn(lookup, main.header[keyCol], 'lookup-key', ctx)
          : resolveColumn(lookup, keyCol + 1, 'lookup-key', ctx);
    const brought =
      opts.columns === '' || (Array.isArray(opts.columns) && opts.columns.length === 0)
        ? Array.from({ length: lookup.width }, (_, i) => i).filter((i) => i !== lookupKey)
        : resolveColumns(lookup, opts.columns, 'columns', ctx, { min: 1, max: MAX_COLUMNS });
    // Every column of a very wide lookup table is more than a call may bring: said, never cut.
    if (brought.length > MAX_COLUMNS) throw new ToolError('invalid_option', { option: 'columns', messageKey: 'error-details.list-count', params: { option: 'columns', min: 1, max: MAX_COLUMNS, found: brought.length } });

    // Titles: the main table's, then the brought ones, ` (2)` where a title is taken (§2.3).
    let titles: string[] | null = null;
    let titleCells: Cell[] | undefined;
    if (main.header) {
      const mainTitles = Array.from({ length: main.width }, (_, i) => main.header![i] ?? '');
      const broughtTitles = brought.map((i) => lookup.header?.[i] ?? '');
      const named = titlesBeside(mainTitles, broughtTitles);
      titles = [...mainTitles, ...named];
      const renamed = named.flatMap((t, i) => (t !== broughtTitles[i] ? [`${broughtTitles[i]} → ${t}`] : []));
      if (renamed.length > 0) ctx.message('info', 'titles_renamed', { names: listText(renamed) });
      // The typed title row stays where titles did not change (a year as a number).
      const mainCells = main.titleCells ?? mainTitles;
      const lookupCells = lookup.titleCells ?? lookup.header ?? [];
      titleCells = titles.map((t, i) => (i < main.width ? (t === mainTitles[i] ? (mainCells[i] ?? t) : t) : t === broughtTitles[i - main.width] ? (lookupCells[brought[i - main.width]] ?? t) : t));
    }

    const { rows: lookupRows, byKey, repeated } = indexRows(lookup, lookupKey, ignoreCase);
    if (!all && repeated.length > 0) ctx.message('warning', 'keys_repeated', { name: lookupFile.name, count: repeated.length, key: repeated[0].slice(0, 100) });

    const width = main.width + brought.length;
    const notFound: Cell = opts['not-found-value'] === '' ? null : opts['not-found-value'];
    const missing = brought.map(() => notFound);
    const usedKeys = joinType === 'full' ? new Set<string>() : null;
    const counts = { matched: 0, unmatched: 0, firstUnmatched: 0, written: 0, appended: 0 };
    const firstRow = header ? 2 : 1;

    // The result's columns: the main row's, then the brought ones (added columns -1 - j).
    const layout = [...Array.from({ length: main.width }, (_, c) => c), ...brought.map((_, j) => -1 - j)];

    function* joined(): Generator<RowBatch | readonly (readonly AnyCell[])[]> {
      let at = 0;
      for (const batch of main as Iterable<RowBatch>) {
        // The key column alone: the main rows are made only by the writer that needs them (a CSV's records are
        // copied as their bytes, csv/write.ts laidOut).
        const keys = batch.column(keyCol);
        const picked: number[] = [];
        const added: Cell[][] = brought.map(() => []);
        for (let i = 0; i < keys.length; i++) {
          const key = keyOf(keys[i] ?? null, ignoreCase);
          const hits = key === null ? undefined : byKey.get(key);
          if (hits === undefined) {
            if (counts.unmatched++ === 0) counts.firstUnmatched = at + firstRow;
            if (joinType !== 'inner') {
              picked.push(i);
              for (let j = 0; j < brought.length; j++) added[j].push(missing[j]);
            }
          } else {
            counts.matched++;
            usedKeys?.add(key!);
            const n = all ? hits.length : 1;
            for (let h = 0; h < n; h++) {
              const hit = lookupRows[hits[h]];
              picked.push(i);
              for (let j = 0; j < brought.length; j++) added[j].push(hit[brought[j]] ?? null);
            }
          }
          at++;
        }
        counts.written += picked.length;
        const rows = picked.length === batch.length && picked.every((p, i) => p === i) ? batch : batch.pick(picked);
        yield laidOut(rows, layout, added, null);
      }
      if (usedKeys) {
        // Lookup rows whose key matched no row: appended, their key in the main key column.
        const out: AnyCell[][] = [];
        for (let i = 0; i < lookupRows.length; i++) {
          const r = lookupRows[i];
          const key = keyOf(r[lookupKey] ?? null, ignoreCase);
          if (key !== null && usedKeys.has(key)) continue;
          const row: AnyCell[] = new Array(main.width).fill(null);
          row[keyCol] = r[lookupKey] ?? null;
          out.push([...row, ...brought.map((c) => r[c] ?? null)]);
        }
        counts.written += out.length;
        counts.appended = out.length;
        yield out;
      }
    }

    const { written, preview } = writeEdited(book, book.first, format, ctx, () => ({
      head: { header: titles, ...(titleCells ? { titleCells } : {}), width, delimiter: main.delimiter },
      rows: joined(),
    }));
    const rows = counts.matched + counts.unmatched;
    ctx.message('info', 'merge_by_key_done', { rows, matched: counts.matched, unmatched: counts.unmatched, written: counts.written, columns: brought.length });
    if (rows > 0 && counts.matched === 0) ctx.message('warning', 'no_key_matched', { key: main.header?.[keyCol] || String(keyCol + 1), name: lookupFile.name });
    else if (counts.unmatched > 0) ctx.message('warning', 'keys_unmatched', { count: counts.unmatched, row: counts.firstUnmatched, sheet: main.name });
    if (counts.appended) ctx.message('info', 'lookup_rows_appended', { count: counts.appended, name: lookupFile.name });
    return { files: [ctx.file(editedName(file, ctx.name('merged'), format, ctx), written)], preview };
  },
});

// BUSCARV/VLOOKUP as a join (tools.md §4 merge-by-key): each row of `file` gets the chosen columns of the
// `lookup-file` row whose key matches. Keys are compared in machine form (§2.6) with outer spaces trimmed
// (the number 123 matches the text `123`, `00123` does not), optionally ignoring case; an empty key never
// matches. The main table keeps its rows and their order; the workbook's other sheets are kept in their places
// (writeEdited).
//
// A hash join, linear in the rows of both files, whose hash side is the lookup table: the result follows the
// main table's order, so a main row can be written as soon as it is read only when every lookup row is known.
// The lookup table is pulled a batch at a time into a map from key to the cells to bring (its other columns
// are never held). Then:
// - main file larger (by bytes, known before reading): the main sheet streams past the map, each batch written
//   as it is joined, so that the larger side is never held;
// - main file smaller (left and inner joins): it is read whole first, and only the lookup rows its keys match
//   are kept (with `first`, only each key's first): the lookup side then costs its keys (the repeated-key
//   warning counts every key of the lookup file) and the rows the result takes. `full` appends every lookup
//   row no main key matched, in its order, after the main rows: those are kept whichever side is larger.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { columnList, optionalColumnRef, columnRef, resolveColumn, resolveColumns } from '../core/columns.ts';
import { editedFormat, editedName, editFormat, hasHeader } from '../core/schema.ts';
import { BATCH_ROWS, csvText, laidOut, listText, openWorkbook, resultBudget, titlesBeside, writeEdited, type AnyCell, type Cell, type RowBatch, type RowStream } from '../formats/index.ts';

const MAX_COLUMNS = 1000;
/** Brought columns past which a lookup batch is read as rows (one scan of each record) rather than column by column. */
const COLUMNS_AS_ROWS = 4;

/** The key of a cell: its machine form without outer spaces; null for an empty key, which matches nothing. */
function keyOf(c: Cell, ignoreCase: boolean): string | null {
  if (c === null) return null;
  const text = (typeof c === 'string' ? c : csvText(c)).trim();
  if (text === '') return null;
  return ignoreCase ? text.toLowerCase() : text;
}

/** The lookup table as the join holds it: what it needs of the lookup file, nothing more. */
interface LookupIndex {
  header: string[] | null;
  titleCells?: Cell[];
  /** Columns brought, as lookup column numbers, and their cells by row (one array per brought column). */
  brought: number[];
  cells: Cell[][];
  /** Each key's first row, or (with `all`) every row of it in order. */
  byKey: Map<string, number | number[]>;
  /** Keys that repeat, and the first of them (the one repeated earliest). */
  repeated: number;
  firstRepeated: string | null;
  /** With `full`: each row's key (null when empty) and key cell, for the rows appended. */
  keys: (string | null)[] | null;
  keyCells: Cell[] | null;
}

/**
 * An error raised within the main table's streamed read that is not the read's own (the lookup file's read, the
 * writer's limits): carried out of it, so that the read neither names its file in it nor reads again for it.
 */
class Carried {
  constructor(readonly error: unknown) {}
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
    const lookupBook = openWorkbook(lookupFile, ctx, read);

    /** The lookup table pulled into its index, its key column resolved once the main table's key is known. */
    const indexLookup = (main: { header: string[] | null }, keyCol: number, only: Set<string> | null): LookupIndex =>
      lookupBook.stream((lookup) => {
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

        const index: LookupIndex = {
          header: lookup.header,
          ...(lookup.titleCells ? { titleCells: lookup.titleCells } : {}),
          brought,
          cells: brought.map(() => []),
          byKey: new Map(),
          repeated: 0,
          firstRepeated: null,
          keys: joinType === 'full' ? [] : null,
          keyCells: joinType === 'full' ? [] : null,
        };
        const { byKey, cells } = index;
        // With `first`, a key's later rows are never brought: only whether it repeats is kept. Keys outside
        // `only` (keys the main table does not hold) are only remembered for that count.
        const repeated = all ? null : new Set<string>();
        const elsewhere = repeated !== null && only !== null ? new Set<string>() : null;
        const keepAll = index.keys !== null;
        let kept = 0;
        for (const batch of lookup) {
          const keyCells = batch.column(lookupKey);
          const keep: number[] = [];
          for (let i = 0; i < keyCells.length; i++) {
            const key = keyOf(keyCells[i] ?? null, ignoreCase);
            if (keepAll) {
              index.keys!.push(key);
              index.keyCells!.push(keyCells[i] ?? null);
              keep.push(i);
            }
            if (key === null) continue;
            let again: boolean;
            if (only !== null && !only.has(key)) {
              again = elsewhere !== null && elsewhere.has(key);
              if (!again) elsewhere?.add(key);
            } else {
              const known = byKey.get(key);
              // A kept row's cells are at `kept` (the row's own number when every row is kept).
              const ref = keepAll ? kept + keep.length - 1 : kept + keep.length;
              again = known !== undefined;
              if (known === undefined) byKey.set(key, ref);
              else if (repeated === null) {
                if (typeof known === 'number') byKey.set(key, [known, ref]);
                else known.push(ref);
              }
              if (!keepAll && (known === undefined || repeated === null)) keep.push(i);
            }
            if (again && repeated !== null && !repeated.has(key)) {
              repeated.add(key);
              index.firstRepeated ??= key;
            }
          }
          if (keep.length === 0 || brought.length === 0) {
            kept += keep.length;
            continue;
          }
          const rows = keep.length === batch.length ? batch : batch.pick(keep);
          if (brought.length > COLUMNS_AS_ROWS) {
            const made = rows.rows();
            for (let j = 0; j < brought.length; j++) {
              const c = brought[j];
              const to = cells[j];
              for (const r of made) to.push(r[c] ?? null);
            }
          } else {
            for (let j = 0; j < brought.length; j++) for (const c of rows.column(brought[j])) cells[j].push(c ?? null);
          }
          kept += keep.length;
        }
        index.repeated = repeated?.size ?? 0;
        return index;
      });

    // The lookup index made for a key column, kept should the main table's read start again (book.ts Restart).
    let made: { title: string; index: LookupIndex } | null = null;

    /** The keys of the main table (read whole), which alone the lookup rows kept may have. */
    const keysOf = (main: Iterable<RowBatch>, keyCol: number): Set<string> => {
      const keys = new Set<string>();
      for (const batch of main)
        for (const c of batch.column(keyCol)) {
          const key = keyOf(c ?? null, ignoreCase);
          if (key !== null) keys.add(key);
        }
      return keys;
    };

    // Errors of the main table's own read (a Restart, a reader's fault to fall back from): its read handles them.
    const ofRead = new WeakSet<object>();
    const reading = <T>(f: () => T): T => {
      try {
        return f();
      } catch (err) {
        if (err !== null && typeof err === 'object') ofRead.add(err);
        throw err;
      }
    };
    function* pulled(main: Iterable<RowBatch>): Generator<RowBatch> {
      const it = reading(() => main[Symbol.iterator]());
      try {
        for (;;) {
          const next = reading(() => it.next());
          if (next.done) return;
          yield next.value;
        }
      } finally {
        it.return?.();
      }
    }

    // A join run again (its main read started again) writes anew: what the abandoned writer counted against
    // the run's result budget is never delivered.
    const budget = resultBudget(ctx);
    const spent = budget?.used ?? 0;

    const join = (table: RowStream, smaller: boolean) => {
      if (budget) budget.used = spent;
      const main = reading(() => ({ name: table.name, header: table.header, titleCells: table.titleCells, width: table.width, delimiter: table.delimiter }));
      const keyCol = resolveColumn(main, opts.key, 'key', ctx);
      const title = main.header?.[keyCol]?.trim() ? `t${main.header[keyCol]}` : `p${keyCol}`;
      if (made === null || made.title !== title) made = { title, index: indexLookup(main, keyCol, smaller ? keysOf(table, keyCol) : null) };
      const lookup = made.index;
      const { brought, cells, byKey } = lookup;

      // Titles: the main table's, then the brought ones, ` (2)` where a title is taken (§2.3).
      let titles: string[] | null = null;
      let titleCells: Cell[] | undefined;
      let renamed: string[] = [];
      if (main.header) {
        const mainTitles = Array.from({ length: main.width }, (_, i) => main.header![i] ?? '');
        const broughtTitles = brought.map((i) => lookup.header?.[i] ?? '');
        const named = titlesBeside(mainTitles, broughtTitles);
        titles = [...mainTitles, ...named];
        renamed = named.flatMap((t, i) => (t !== broughtTitles[i] ? [`${broughtTitles[i]} → ${t}`] : []));
        // The typed title row stays where titles did not change (a year as a number).
        const mainCells = main.titleCells ?? mainTitles;
        const lookupCells = lookup.titleCells ?? lookup.header ?? [];
        titleCells = titles.map((t, i) => (i < main.width ? (t === mainTitles[i] ? (mainCells[i] ?? t) : t) : t === broughtTitles[i - main.width] ? (lookupCells[brought[i - main.width]] ?? t) : t));
      }

      const width = main.width + brought.length;
      const notFound: Cell = opts['not-found-value'] === '' ? null : opts['not-found-value'];
      const usedKeys = joinType === 'full' ? new Set<string>() : null;
      const counts = { matched: 0, unmatched: 0, firstUnmatched: 0, written: 0, appended: 0 };
      const firstRow = header ? 2 : 1;

      // The result's columns: the main row's, then the brought ones (added columns -1 - j).
      const layout = [...Array.from({ length: main.width }, (_, c) => c), ...brought.map((_, j) => -1 - j)];

      function* joined(): Generator<RowBatch | readonly (readonly AnyCell[])[]> {
        let at = 0;
        for (const batch of pulled(table)) {
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
                for (let j = 0; j < brought.length; j++) added[j].push(notFound);
              }
            } else {
              counts.matched++;
              usedKeys?.add(key!);
              if (typeof hits === 'number') {
                picked.push(i);
                for (let j = 0; j < brought.length; j++) added[j].push(cells[j][hits]);
              } else {
                for (const h of hits) {
                  picked.push(i);
                  for (let j = 0; j < brought.length; j++) added[j].push(cells[j][h]);
                }
              }
            }
            at++;
          }
          counts.written += picked.length;
          const rows = picked.length === batch.length && picked.every((p, i) => p === i) ? batch : batch.pick(picked);
          yield laidOut(rows, layout, added, null);
        }
        if (usedKeys) {
          // Lookup rows whose key matched no row (an empty key matches none): appended in their order, their key
          // in the main key column, a batch at a time.
          const keys = lookup.keys!;
          let out: AnyCell[][] = [];
          for (let i = 0; i < keys.length; i++) {
            const key = keys[i];
            if (key !== null && usedKeys.has(key)) continue;
            const row: AnyCell[] = new Array(width).fill(null);
            row[keyCol] = lookup.keyCells![i];
            for (let j = 0; j < brought.length; j++) row[main.width + j] = cells[j][i];
            out.push(row);
            counts.appended++;
            if (out.length === BATCH_ROWS) {
              yield out;
              out = [];
            }
          }
          counts.written += counts.appended;
          if (out.length > 0) yield out;
        }
      }

      const result = writeEdited(book, book.first, format, ctx, () => ({
        head: { header: titles, ...(titleCells ? { titleCells } : {}), width, delimiter: main.delimiter },
        rows: joined(),
      }));
      return { ...result, counts, renamed, lookup, keyTitle: main.header?.[keyCol] || String(keyCol + 1), sheet: main.name };
    };

    // The main sheet streamed past the index. A sheet read again from its start (book.ts Restart) runs `join`
    // again, with a new writer; a main sheet after hidden ones is read whole, so that no sheet copied before it
    // is copied twice. A main file smaller than the lookup file (bytes: known before reading) is read whole
    // and its keys read first, so that only the lookup rows they match are kept (not with `full`, which keeps
    // every lookup row to append those that match nothing).
    const smaller = joinType !== 'full' && file.bytes.length < lookupFile.bytes.length;
    let r: ReturnType<typeof join>;
    try {
      r =
        !smaller && book.first.index === 0
          ? book.first.stream((main) => {
              try {
                return join(main, false);
              } catch (err) {
                throw err !== null && typeof err === 'object' && ofRead.has(err) ? err : new Carried(err);
              }
            })
          : join(book.first.table(), smaller);
    } catch (err) {
      throw err instanceof Carried ? err.error : err;
    }
    const { written, preview, counts, renamed, lookup } = r;
    if (renamed.length > 0) ctx.message('info', 'titles_renamed', { names: listText(renamed) });
    if (!all && lookup.repeated > 0) ctx.message('warning', 'keys_repeated', { name: lookupFile.name, count: lookup.repeated, key: lookup.firstRepeated!.slice(0, 100) });
    const rows = counts.matched + counts.unmatched;
    ctx.message('info', 'merge_by_key_done', { rows, matched: counts.matched, unmatched: counts.unmatched, written: counts.written, columns: lookup.brought.length });
    if (rows > 0 && counts.matched === 0) ctx.message('warning', 'no_key_matched', { key: r.keyTitle, name: lookupFile.name });
    else if (counts.unmatched > 0) ctx.message('warning', 'keys_unmatched', { count: counts.unmatched, row: counts.firstUnmatched, sheet: r.sheet });
    if (counts.appended) ctx.message('info', 'lookup_rows_appended', { count: counts.appended, name: lookupFile.name });
    return { files: [ctx.file(editedName(file, ctx.name('merged'), format, ctx), written)], preview };
  },
});

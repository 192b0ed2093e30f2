// Stacks tables one under another, aligning their columns: shared by merge-stack (files) and flatten-sheets
// (sheets).
//
// - By name: columns are matched by title, ignoring case and outer spaces (titleKey). The result has the union
//   of the columns in first-seen order, each titled as it was first seen. A repeated title is matched by
//   occurrence (the second "Total" of one table with the second of another). Each table whose columns differ
//   from the first table's gets a warning naming the missing and the added columns: no cell is dropped.
// - By position (or without titles): column i goes under column i. Titles come from the first table (later
//   tables fill titles past its width); a warning names the titles that differ.
// - Empty tables are skipped with an info message.
// - An optional last column holds each row's label (file or sheet name).
import { ArrayBatch, drainBatches } from '../batch.ts';
import { columnLetter, titleKey, type Cell, type Row, type RowBatch, type RowStream } from '../model.ts';
import { listText, silent, type Report } from '../report.ts';
import { titleCell } from './titles.ts';

/** A table to stack: its titles, width and count known before its rows are pulled (a Table). */
export interface StackSource {
  /** File or sheet name: used in messages and in the label column. */
  label: string;
  table: RowStream & { readonly total: number };
}

export interface StackOptions {
  /** Name of the resulting table. */
  name: string;
  hasHeader: boolean;
  matchByName: boolean;
  /** Title of a last column holding each row's label; no such column when null. */
  labelColumn: string | null;
  report?: Report;
}


interface Layout {
  header: string[];
  /** The titles as typed cells, each from the table it was first seen in. */
  cells: Cell[];
  /** Per source: target column of each source column. */
  maps: number[][];
}

/** Keys of a header with repeated titles told apart by occurrence. */
function occurrenceKeys(header: string[]): string[] {
  const seen = new Map<string, number>();
  return header.map((title) => {
    const k = titleKey(title);
    const n = (seen.get(k) ?? 0) + 1;
    seen.set(k, n);
    return `${k}\u0000${n}`;
  });
}

function byName(sources: StackSource[], report: Report): Layout {
  const header: string[] = [];
  const cells: Cell[] = [];
  const index = new Map<string, number>();
  const firstTitles = titlesOf(sources[0]);
  const firstKeys = occurrenceKeys(firstTitles);
  const firstSet = new Set(firstKeys);
  const maps = sources.map((s, i) => {
    const titles = titlesOf(s);
    const keys = occurrenceKeys(titles);
    const map = keys.map((k, j) => {
      let at = index.get(k);
      if (at === undefined) {
        at = header.length;
        index.set(k, at);
        header.push(titles[j]);
        cells.push(j < (s.table.header?.length ?? 0) ? titleCell(s.table, j) : titles[j]);
      }
      return at;
    });
    if (i > 0) {
      const mine = new Set(keys);
      const missing = firstKeys.flatMap((k, j) => (mine.has(k) ? [] : [firstTitles[j]]));
      const added = keys.flatMap((k, j) => (firstSet.has(k) ? [] : [titles[j]]));
      if (missing.length) report('warning', 'columns_missing', { name: s.label, first: sources[0].label, columns: listText(missing.map(show)) });
      if (added.length) report('warning', 'columns_added', { name: s.label, first: sources[0].label, columns: listText(added.map(show)) });
    }
    return map;
  });
  return { header, cells, maps };
}

/** The header as wide as the widest row: a column without a title has the title ''. */
function titlesOf(s: StackSource): string[] {
  const h = s.table.header ?? [];
  const w = s.table.width;
  return h.length >= w ? h : [...h, ...new Array<string>(w - h.length).fill('')];
}

const show = (title: string) => (title === '' ? '—' : title);

function byPosition(sources: StackSource[], hasHeader: boolean, report: Report): Layout {
  const width = Math.max(0, ...sources.map((s) => s.table.width));
  const header: string[] = new Array(width).fill('');
  const cells: Cell[] = new Array(width).fill('');
  const filled: boolean[] = new Array(width).fill(false);
  for (const s of sources) {
    (s.table.header ?? []).forEach((title, j) => {
      if (!filled[j]) [header[j], cells[j], filled[j]] = [title, titleCell(s.table, j), true];
    });
  }
  if (hasHeader) {
    const first = sources[0].table.header ?? [];
    for (const s of sources.slice(1)) {
      const mine = s.table.header ?? [];
      const diffs: string[] = [];
      for (let j = 0; j < Math.max(first.length, mine.length); j++) {
        const a = first[j];
        const b = mine[j];
        if (a === undefined || b === undefined || titleKey(a) !== titleKey(b)) diffs.push(`${columnLetter(j)}: ${show(a ?? '')} ≠ ${show(b ?? '')}`);
      }
      if (diffs.length) report('warning', 'titles_differ', { name: s.label, first: sources[0].label, differences: diffs.slice(0, 5).join('; ') + (diffs.length > 5 ? ` (+${diffs.length - 5})` : '') });
    }
  }
  return { header, cells, maps: sources.map((s) => Array.from({ length: s.table.width }, (_, j) => j)) };
}

const isEmpty = (s: StackSource) => s.table.total === 0 && (s.table.header === null || s.table.header.every((h) => h === ''));

/**
 * The sources' rows, in order, with aligned columns, made as they are pulled: stacking never holds a second copy
 * of every row, and a source held in memory lets go of its rows as they are stacked (it is not to be used
 * afterwards).
 */
export function stack(sources: StackSource[], o: StackOptions): RowStream {
  const report = o.report ?? silent;
  const used = sources.filter((s) => {
    if (!isEmpty(s)) return true;
    report('info', 'empty_source', { name: s.label });
    return false;
  });
  if (used.length === 0) {
    const header = o.hasHeader ? (o.labelColumn !== null ? [o.labelColumn] : []) : null;
    return new Stacked(o.name, header, undefined, header?.length ?? 0, 0, []);
  }
  const layout = o.hasHeader && o.matchByName ? byName(used, report) : byPosition(used, o.hasHeader, report);
  const width = layout.header.length;
  const label = o.labelColumn !== null;
  const total = used.reduce((n, s) => n + s.table.total, 0);
  const all = width + (label ? 1 : 0);
  function* batches(): Generator<RowBatch> {
    for (let i = 0; i < used.length; i++) {
      const s = used[i];
      const map = layout.maps[i];
      for (const batch of drainBatches(s.table)) {
        const rows = batch.rows();
        const out: Row[] = new Array(rows.length);
        for (let k = 0; k < rows.length; k++) {
          const from = rows[k];
          const row: Cell[] = new Array(all).fill(null);
          for (let j = 0; j < from.length; j++) if (from[j] !== null) row[map[j]] = from[j];
          if (label) row[width] = s.label;
          out[k] = row;
        }
        yield new ArrayBatch(out);
      }
    }
  }
  if (!o.hasHeader) return new Stacked(o.name, null, undefined, all, total, batches);
  const header = label ? [...layout.header, o.labelColumn!] : layout.header;
  const titleCells = label ? [...layout.cells, o.labelColumn!] : layout.cells;
  return new Stacked(o.name, header, titleCells, all, total, batches);
}

class Stacked implements RowStream {
  rowCount = 0;
  constructor(
    readonly name: string,
    readonly header: string[] | null,
    readonly titleCells: Cell[] | undefined,
    readonly width: number,
    readonly total: number,
    private readonly batches: (() => Iterable<RowBatch>) | [],
  ) {}

  *[Symbol.iterator](): Iterator<RowBatch> {
    if (Array.isArray(this.batches)) return;
    for (const batch of this.batches()) {
      this.rowCount += batch.length;
      yield batch;
    }
  }
}

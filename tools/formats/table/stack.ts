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
import { columnLetter, titleKey, widthOf, type Cell, type Row } from '../model.ts';
import { listText, silent, type Report } from '../report.ts';
import { BATCH_ROWS, titleCell, type PipedTable, type SheetTable } from './titles.ts';

/** A table to stack: its titles and width, and its data rows handed on in batches. */
export interface StackSource {
  /** File or sheet name: used in messages and in the label column. */
  label: string;
  header: string[] | null;
  /** The titles as typed cells, when the source kept them. */
  titleCells?: Cell[];
  /** Columns: the widest of the titles and every row. */
  width: number;
  rowCount: number;
  /** Hands every data row to `sink`, in order; a row handed on is not used by the source again. */
  pipe(sink: (rows: readonly Row[]) => void): void;
}


/** A table in memory as a source to stack. Its rows are let go as they are handed on: it is not to be used after. */
export function tableSource(table: SheetTable, label: string): StackSource {
  return {
    label,
    header: table.header,
    titleCells: table.titleCells,
    width: widthOf(table),
    rowCount: table.rows.length,
    pipe(sink) {
      const rows = table.rows;
      table.rows = [];
      for (let at = 0; at < rows.length; at += BATCH_ROWS) {
        sink(rows.slice(at, at + BATCH_ROWS));
        // Dropped once stacked: the collector can take them while the rest is stacked.
        rows.fill(undefined as unknown as Row, at, at + BATCH_ROWS);
      }
    },
  };
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
        cells.push(j < (s.header?.length ?? 0) ? titleCell(s, j) : titles[j]);
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
function titlesOf(t: StackSource): string[] {
  const h = t.header ?? [];
  const w = t.width;
  return h.length >= w ? h : [...h, ...new Array<string>(w - h.length).fill('')];
}

const show = (title: string) => (title === '' ? '—' : title);

function byPosition(sources: StackSource[], hasHeader: boolean, report: Report): Layout {
  const width = Math.max(0, ...sources.map((s) => s.width));
  const header: string[] = new Array(width).fill('');
  const cells: Cell[] = new Array(width).fill('');
  const filled: boolean[] = new Array(width).fill(false);
  for (const s of sources) {
    (s.header ?? []).forEach((title, j) => {
      if (!filled[j]) [header[j], cells[j], filled[j]] = [title, titleCell(s, j), true];
    });
  }
  if (hasHeader) {
    const first = sources[0].header ?? [];
    for (const s of sources.slice(1)) {
      const mine = s.header ?? [];
      const diffs: string[] = [];
      for (let j = 0; j < Math.max(first.length, mine.length); j++) {
        const a = first[j];
        const b = mine[j];
        if (a === undefined || b === undefined || titleKey(a) !== titleKey(b)) diffs.push(`${columnLetter(j)}: ${show(a ?? '')} ≠ ${show(b ?? '')}`);
      }
      if (diffs.length) report('warning', 'titles_differ', { name: s.label, first: sources[0].label, differences: diffs.slice(0, 5).join('; ') + (diffs.length > 5 ? ` (+${diffs.length - 5})` : '') });
    }
  }
  return { header, cells, maps: sources.map((s) => Array.from({ length: s.width }, (_, j) => j)) };
}

const isEmpty = (s: StackSource) => s.rowCount === 0 && (s.header === null || s.header.every((h) => h === ''));

/**
 * The sources' rows, in order, with aligned columns, made as they are piped: stacking never holds a second copy
 * of every row (a source is not to be used afterwards).
 */
export function stack(sources: StackSource[], o: StackOptions): PipedTable {
  const report = o.report ?? silent;
  const used = sources.filter((s) => {
    if (!isEmpty(s)) return true;
    report('info', 'empty_source', { name: s.label });
    return false;
  });
  if (used.length === 0) {
    const header = o.hasHeader ? (o.labelColumn !== null ? [o.labelColumn] : []) : null;
    return { name: o.name, header, width: header?.length ?? 0, rowCount: 0, pipe: () => {} };
  }
  const layout = o.hasHeader && o.matchByName ? byName(used, report) : byPosition(used, o.hasHeader, report);
  const width = layout.header.length;
  const label = o.labelColumn !== null;
  const pipe = (sink: (rows: Row[]) => void) => {
    used.forEach((s, i) => {
      const map = layout.maps[i];
      s.pipe((batch) => {
        const out: Row[] = new Array(batch.length);
        for (let k = 0; k < batch.length; k++) {
          const from = batch[k];
          const row: Cell[] = new Array(width + (label ? 1 : 0)).fill(null);
          for (let j = 0; j < from.length; j++) if (from[j] !== null) row[map[j]] = from[j];
          if (label) row[width] = s.label;
          out[k] = row;
        }
        sink(out);
      });
    });
  };
  const rowCount = used.reduce((n, s) => n + s.rowCount, 0);
  const all = width + (label ? 1 : 0);
  if (!o.hasHeader) return { name: o.name, header: null, width: all, rowCount, pipe };
  const header = label ? [...layout.header, o.labelColumn!] : layout.header;
  const titleCells = label ? [...layout.cells, o.labelColumn!] : layout.cells;
  return { name: o.name, header, titleCells, width: all, rowCount, pipe };
}

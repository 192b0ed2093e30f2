// Column widths of a PDF table from measured content: each column gets at least a comfortable width (about
// 6 characters, or its title's longest word up to about 10, less when its content is narrower); the rest of
// the page goes to the columns whose content is wider, in proportion to how much wider. Columns whose
// comfortable widths do not fit across one page are packed into bands, printed one after the other.
import type { Cell, Row } from '../model.ts';
import { displayText, type DisplayWords, type Lang } from '../display.ts';

const SAMPLE_ROWS = 2000;

/** What each column's content asks for, in points: its widest line, the 90th percentile of its lines, and its title's longest word. */
export interface Measure {
  max: number;
  p90: number;
  titleWord: number;
}

/**
 * Measures titles (bold) and cells over at most SAMPLE_ROWS rows spread across the table. The percentile keeps a
 * few very long cells from taking the page from every other column.
 */
export function measureColumns(
  table: { header: Cell[] | null; rows: Row[]; width: number },
  o: { fontSize: number; lang: Lang; words: DisplayWords },
  /** Width of one line of text in points, in the title's (bold) or the cells' font. */
  width: (text: string, header: boolean) => number,
): Measure[] {
  const lineWidth = (text: string, header: boolean) => {
    let widest = 0;
    for (const line of text.split('\n')) widest = Math.max(widest, width(line, header));
    return widest;
  };
  const step = Math.max(1, Math.ceil(table.rows.length / SAMPLE_ROWS));
  const least = 1.5 * o.fontSize;
  return Array.from({ length: table.width }, (_, c) => {
    const widths: number[] = [];
    for (let r = 0; r < table.rows.length; r += step) widths.push(lineWidth(displayText(table.rows[r][c] ?? null, o), false));
    widths.sort((a, b) => a - b);
    const titleText = table.header ? displayText(table.header[c] ?? null, o) : '';
    const title = lineWidth(titleText, true);
    const titleWord = titleText.split(/\s+/).reduce((widest, w) => Math.max(widest, width(w, true)), 0);
    const p90 = widths.length ? widths[Math.floor(0.9 * (widths.length - 1))] : 0;
    return { max: Math.max(widths.at(-1) ?? 0, title, least), p90: Math.max(p90, title, least), titleWord };
  });
}

/**
 * The least width a column gets when the page is short of room: its content up to about 6 characters, or its
 * title's longest word up to about 10, so that titles do not break inside words.
 */
const floorOf = (m: Measure, fontSize: number) => Math.min(m.max, Math.max(6 * fontSize, Math.min(m.titleWord, 10 * fontSize)));

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * Content widths that fill `available`. When every column fits on one line, widths grow in proportion to their
 * content. Otherwise each column gets its floor, then up to its 90th percentile, then up to its widest line,
 * the room at each step shared in proportion to what each still asks for.
 */
export function fitWidths(measures: Measure[], available: number, fontSize: number): number[] {
  const max = measures.map((m) => m.max);
  if (sum(max) <= available) return max.map((w) => (w * available) / sum(max));
  let widths = measures.map((m) => floorOf(m, fontSize));
  for (const target of [measures.map((m, i) => Math.max(m.p90, widths[i])), max]) {
    const room = available - sum(widths);
    const asked = sum(target.map((t, i) => t - widths[i]));
    if (room <= 0 || asked <= 0) continue;
    const share = Math.min(1, room / asked);
    widths = widths.map((w, i) => w + (target[i] - w) * share);
  }
  return widths;
}

/** Splits the columns, in order, into bands whose comfortable widths (plus `extra` each) fit `available`. */
export function packBands(measures: Measure[], available: number, extra: number, fontSize: number): number[][] {
  const bands: number[][] = [];
  let used = Infinity;
  measures.forEach((m, c) => {
    const need = floorOf(m, fontSize) + extra;
    if (used + need > available) {
      bands.push([]);
      used = 0;
    }
    bands[bands.length - 1].push(c);
    used += need;
  });
  return bands;
}

// Which rows go on which page, from each row's height in lines: rows stay whole, moved to the next page when
// they do not fit, unless a row is taller than a whole page, which is then continued over as many pages as it
// takes (some lines on each, nothing cut). Each band of columns starts on a new page, under its caption;
// the title row repeats at the top of every page unless it would take a large part of the page, in which
// case it is printed once, as the band's first row.
import { RULE, rowHeight } from './grid.ts';

/** Lines `from` to `to` (end excluded) of one row; row -1 is the title row. */
export interface Slice {
  row: number;
  from: number;
  to: number;
}

export interface PagePlan {
  band: number;
  /** Whether the band's caption heads this page (its first). */
  caption: boolean;
  /** Whether the title row is repeated at the top of this page. */
  titles: boolean;
  slices: Slice[];
}

export interface PageRoom {
  /** Height the table may use on a page, in points. */
  height: number;
  lineHeight: number;
  /** Height of each band's caption with the space under it; 0 for a table printed in one band. */
  caption: (band: number) => number;
}

/** The title row repeats only while it takes at most this part of a page. */
const REPEAT_TITLES_UP_TO = 1 / 4;

/**
 * Plans the pages of each band. `lines(band)` gives that band's title row's lines (null without title row)
 * and each data row's lines.
 */
export function planPages(bands: number, lines: (band: number) => { titles: number | null; rows: ArrayLike<number> }, room: PageRoom): PagePlan[] {
  const pages: PagePlan[] = [];
  for (let band = 0; band < bands; band++) {
    const { titles, rows } = lines(band);
    const titlesHeight = titles === null ? 0 : rowHeight(titles, room.lineHeight);
    const repeat = titles !== null && titlesHeight <= room.height * REPEAT_TITLES_UP_TO;
    let page!: PagePlan;
    let y = 0;
    const newPage = (first: boolean) => {
      page = { band, caption: first && room.caption(band) > 0, titles: repeat, slices: [] };
      pages.push(page);
      y = (page.caption ? room.caption(band) : 0) + RULE + (repeat ? titlesHeight : 0);
    };
    /** Lines that fit between `top` and the bottom of the page, padding and rule included. */
    const linesBelow = (top: number) => Math.floor((room.height - top - rowHeight(0, room.lineHeight)) / room.lineHeight);
    /** Lines a page after the first holds under its repeated title row, where a row that does not fit moves to. */
    const pageLines = linesBelow(RULE + (repeat ? titlesHeight : 0));
    const place = (row: number, total: number) => {
      let from = 0;
      for (;;) {
        const left = total - from;
        // At least one line on a page that has nothing yet, so that the plan always moves on.
        const fit = page.slices.length > 0 ? linesBelow(y) : Math.max(1, linesBelow(y));
        if (fit >= left) {
          page.slices.push({ row, from, to: total });
          y += rowHeight(left, room.lineHeight);
          return;
        }
        if (page.slices.length > 0 && left <= pageLines) {
          newPage(false);
          continue;
        }
        if (fit >= 1) {
          page.slices.push({ row, from, to: from + fit });
          from += fit;
        }
        newPage(false);
      }
    };
    newPage(true);
    if (titles !== null && !repeat) place(-1, titles);
    for (let r = 0; r < rows.length; r++) place(r, rows[r]);
  }
  return pages;
}

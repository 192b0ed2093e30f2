// Draws one page as PDF content operators: its title, its number and its part of the table.
// pdfmake's own table layout costs tens of microseconds per cell (style lookups, a text measure and a text
// object per word, a path per cell border): too slow for tens of thousands of rows. Here each page is one
// string of operators: one path for the whole grid, one text object with a `Tj` per line of each cell. The
// glyphs are those of the font's character map, one per character, without kerning or substitutions: exactly
// the advance widths the layout measured with (fonts.ts). They go into the font pdfmake embeds as its own
// `encode` puts them (subset, widths, text extraction map), without the shaping engine `encode` runs even for
// one character, whose tables took 1.6 MB per document.
import type { FontMetrics, PdfKitDocument, PdfKitFont } from './fonts.ts';
import { CELL_PAD_X, CELL_PAD_Y, COLUMN_EXTRA, RULE, rowHeight } from './grid.ts';

const GRID_GRAY = '0.62'; // #9e9e9e
const TITLES_GRAY = '0.933'; // #eeeeee

/** A font as both the layout (metrics) and the document (embedded font) see it. */
export interface DrawFont {
  metrics: FontMetrics;
  pdf: PdfKitFont;
}

/** One row as drawn on a page: each cell's lines (only those on this page) and whether it is right-aligned. */
export interface DrawRow {
  cells: string[][];
  right: boolean[];
  /** Title row: bold, on a gray ground. */
  titles: boolean;
  /** Lines of the row on this page (at least those of its tallest cell). */
  lines: number;
}

const n = (v: number) => String(Math.round(v * 100) / 100 || 0);

/** A line of text set on the page on its own (the page's title, its number): `x` is its right end when `right`. */
export interface PageText {
  text: string;
  bold: boolean;
  size: number;
  x: number;
  top: number;
  right?: boolean;
}

/** Writes tables into the pages of one document; keeps, per font, the glyph of each character it encoded. */
export class TableDrawer {
  private readonly glyphs = new Map<PdfKitFont, { latin1: Int32Array; more: Map<number, number> }>();
  /** Where a text's bytes are put together before they become one string. */
  private scratch = Buffer.allocUnsafe(1024);

  constructor(
    private readonly doc: PdfKitDocument,
    private readonly fonts: { normal: DrawFont; bold: DrawFont },
    private readonly fontSize: number,
    private readonly lineHeight: number,
  ) {}

  /**
   * Draws on the document's current page: `texts` (its title and number), an optional caption at (`left`,
   * `top`), then the rows under it in columns of content widths `widths`.
   */
  drawPage(left: number, top: number, caption: string[] | null, captionHeight: number, widths: number[], rows: DrawRow[], texts: PageText[] = []): void {
    const { fontSize, lineHeight } = this;
    const ops: string[] = ['q'];
    // One text object; lines move relative to the previous one (in hundredths of a point, so the rounding
    // never adds up), upright in pdfkit's y-down page space.
    const text: string[] = ['BT', '1 0 0 -1 0 0 Tm'];
    let font: DrawFont | null = null;
    let size = 0;
    let [atX, atY] = [0, 0];
    const line = (f: DrawFont, s: string, x: number, y: number, at = fontSize) => {
      if (s === '') return;
      if (font !== f || size !== at) {
        text.push(`/${f.pdf.id} ${n(at)} Tf`);
        [font, size] = [f, at];
      }
      const [toX, toY] = [Math.round(x * 100), Math.round((y + f.metrics.ascent * at) * 100)];
      text.push(`${(toX - atX) / 100} ${(atY - toY) / 100} Td (${this.encode(f.pdf, s)}) Tj`);
      [atX, atY] = [toX, toY];
    };
    for (const t of texts) {
      const f = t.bold ? this.fonts.bold : this.fonts.normal;
      line(f, t.text, t.right ? t.x - f.metrics.width(t.text) * t.size : t.x, t.top, t.size);
    }
    if (caption) caption.forEach((s, i) => line(this.fonts.bold, s, left, top + i * lineHeight));
    const y0 = top + (caption ? captionHeight : 0);

    const xs = [left + RULE / 2];
    for (const w of widths) xs.push(xs[xs.length - 1] + w + COLUMN_EXTRA);
    const ys = [y0 + RULE / 2];
    for (const row of rows) ys.push(ys[ys.length - 1] + rowHeight(row.lines, lineHeight));

    const fills: string[] = [];
    rows.forEach((row, r) => {
      const f = row.titles ? this.fonts.bold : this.fonts.normal;
      if (row.titles) fills.push(`${n(xs[0])} ${n(ys[r])} ${n(xs[xs.length - 1] - xs[0])} ${n(ys[r + 1] - ys[r])} re`);
      const textTop = ys[r] + RULE / 2 + CELL_PAD_Y;
      row.cells.forEach((lines, c) => {
        lines.forEach((s, i) => {
          const x = row.right[c] ? xs[c + 1] - RULE / 2 - CELL_PAD_X - f.metrics.width(s) * fontSize : xs[c] + RULE / 2 + CELL_PAD_X;
          line(f, s, x, textTop + i * lineHeight);
        });
      });
    });
    if (fills.length) ops.push(`${TITLES_GRAY} g`, ...fills, 'f');
    if (rows.length) {
      ops.push(`${GRID_GRAY} G ${n(RULE)} w 0 J`);
      const [x0, x1, y1, y2] = [xs[0] - RULE / 2, xs[xs.length - 1] + RULE / 2, ys[0] - RULE / 2, ys[ys.length - 1] + RULE / 2];
      for (const y of ys) ops.push(`${n(x0)} ${n(y)} m ${n(x1)} ${n(y)} l`);
      for (const x of xs) ops.push(`${n(x)} ${n(y1)} m ${n(x)} ${n(y2)} l`);
      ops.push('S');
    }
    ops.push('0 g', ...text, 'ET', 'Q');

    const fonts = this.doc.page.fonts;
    for (const f of [this.fonts.normal, this.fonts.bold]) fonts[f.pdf.id] ??= f.pdf.ref();
    this.doc.addContent(ops.join('\n'));
  }

  /**
   * The text as the bytes of a PDF literal string: two per glyph (the font is Identity-H), escaped where the
   * syntax needs it. Adds the glyphs to the embedded subset. The bytes are gathered in a buffer and made one
   * string at the end: a string grown glyph by glyph was a quarter of what a document allocated.
   */
  private encode(font: PdfKitFont, s: string): string {
    let known = this.glyphs.get(font);
    if (!known) this.glyphs.set(font, (known = { latin1: new Int32Array(256).fill(-1), more: new Map() }));
    const { latin1, more } = known;
    // At most four bytes a glyph: each of its two bytes escaped.
    if (this.scratch.length < 4 * s.length) this.scratch = Buffer.allocUnsafe(Math.max(4 * s.length, 2 * this.scratch.length));
    const out = this.scratch;
    let k = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      let id: number;
      if (c < 256) {
        id = latin1[c];
        if (id < 0) id = latin1[c] = glyphId(font, c);
      } else {
        let g = more.get(c);
        if (g === undefined) more.set(c, (g = glyphId(font, c)));
        id = g;
      }
      k = putByte(out, k, id >> 8);
      k = putByte(out, k, id & 0xff);
    }
    return out.toString('latin1', 0, k);
  }
}

/**
 * The glyph of UTF-16 unit `c` (never a surrogate: the layout drew those as U+FFFD), added to the embedded
 * subset with its width and the character it stands for, as pdfkit's `encode` adds them.
 */
function glyphId(font: PdfKitFont, c: number): number {
  const glyph = font.font.glyphForCodePoint(c);
  const id = font.subset.includeGlyph(glyph.id);
  font.widths[id] ??= glyph.advanceWidth * font.scale;
  font.unicode[id] ??= glyph.codePoints;
  return id;
}

/** Byte `b` of a literal string at `k`, escaped where the syntax needs it; returns the position after it. */
function putByte(out: Buffer, k: number, b: number): number {
  if (b === 0x28 || b === 0x29 || b === 0x5c) out[k++] = 0x5c;
  else if (b === 0x0a || b === 0x0d) {
    out[k++] = 0x5c;
    b = b === 0x0a ? 0x6e : 0x72;
  }
  out[k++] = b;
  return k;
}

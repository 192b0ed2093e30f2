// Lays a table out as a PDF with pdfmake: the title in every page header, "page n of m" in every footer, the
// title row repeated at the top of every page, long text wrapped (words longer than their column broken
// anywhere) and never cut. Columns are sized by columns.ts; a table too wide for the page is printed in bands
// of columns, each a table of its own that starts on a new page under a caption naming its columns (as
// spreadsheets print a wide sheet: down, then over). Characters the font has no glyph for are drawn as U+FFFD
// and counted, because the font would draw them as empty boxes that copy and extract as nothing.
import { ToolError } from '../../core/errors.ts';
import type { Cell, Row } from '../../core/table.ts';
import { displayText, type DisplayWords } from './cell-text.ts';
import { fitWidths, measureColumns, packBands, type Measure } from './columns.ts';
import { FONT_FAMILY, pdfSetup, type FontMetrics } from './fonts.ts';
import type { Lang } from '../../../locales/index.ts';

export const PAGE_SIZES = { a4: [595.28, 841.89], letter: [612, 792], a3: [841.89, 1190.55] } as const;
export type PageSize = keyof typeof PAGE_SIZES;
export type Orientation = 'portrait' | 'landscape';

export interface PdfOptions {
  title: string;
  pageSize: PageSize;
  orientation: Orientation;
  fontSize: number;
  lang: Lang;
  words: DisplayWords;
  /** Footer text of a page. */
  pageLabel(page: number, pages: number): string;
  /** Caption of a band of columns when the table is printed in several. */
  bandLabel(first: number, last: number, total: number): string;
  signal: AbortSignal;
}

export interface PdfTable {
  /** Title row as typed cells; null when the table has none. */
  header: Cell[] | null;
  rows: Row[];
  width: number;
}

export interface PdfResult {
  bytes: Uint8Array;
  pages: number;
  bands: number;
  /** Characters the font cannot draw, shown as U+FFFD. */
  missing: { count: number; first: { row: number; column: number } | 'title' | null };
}

const MARGIN_X = 28;
const CELL_PAD_X = 3;
const RULE = 0.5;
/** Width a column adds besides its content: padding on both sides and one rule. */
const COLUMN_EXTRA = 2 * CELL_PAD_X + RULE;
const REPLACEMENT = '\uFFFD';
const HEADER_TOP = 18;
/** Height of a line of text in ems: Roboto's ascent, descent and gap, times the 1.05 line spacing used. */
const LINE_HEIGHT = 1.172 * 1.05;

export interface ColumnPlan {
  /** Column indexes of each band, left to right; empty when the table has no column. */
  bands: number[][];
  measures: Measure[];
}

/** Measures the columns and groups them into the bands that fit the page (the row bound counts bands too). */
export function planColumns(table: PdfTable, o: Pick<PdfOptions, 'pageSize' | 'orientation' | 'fontSize' | 'lang' | 'words'>): ColumnPlan {
  const { normal, bold } = pdfSetup();
  const measures = measureColumns(table, o, (text, header) => (header ? bold : normal).width(text) * o.fontSize);
  return { bands: packBands(measures, pageBox(o).width - RULE, COLUMN_EXTRA, o.fontSize), measures };
}

/** Renders the table as planned by planColumns. */
export async function renderPdf(table: PdfTable, { bands, measures }: ColumnPlan, o: PdfOptions): Promise<PdfResult> {
  const { pdfmake, normal, bold } = pdfSetup();
  const missing: PdfResult['missing'] = { count: 0, first: null };
  const clean = (text: string, where: { row: number; column: number } | 'title') => {
    let out = '';
    for (const ch of text.replace(/\r\n?/g, '\n').replace(/\t/g, ' ')) {
      if (ch === '\n' || normal.covers(ch.codePointAt(0)!)) out += ch;
      else {
        out += REPLACEMENT;
        missing.count++;
        missing.first ??= where;
      }
    }
    return out;
  };
  const title = clean(o.title, 'title');
  const page = pageBox(o, bold.width(title) * (o.fontSize + 2));
  const lineHeight = o.fontSize * LINE_HEIGHT;
  const hasHeader = table.header !== null;

  const content: object[] = [];
  bands.forEach((columns, b) => {
    const widths = fitWidths(columns.map((c) => measures[c]), page.width - RULE - columns.length * COLUMN_EXTRA, o.fontSize);
    let tallest = 0;
    const row = (cells: Cell[], r: number, header: boolean) => {
      let lines = 1;
      const font = header ? bold : normal;
      const nodes = columns.map((c, i) => {
        const value = cells[c] ?? null;
        const text = clean(displayText(value, o.lang, o.words), { row: r, column: c });
        lines = Math.max(lines, linesOf(text, widths[i], font, o.fontSize));
        return { text: wrappable(text, widths[i], font, o.fontSize), bold: header || undefined, alignment: typeof value === 'number' ? 'right' : undefined };
      });
      tallest = Math.max(tallest, lines * lineHeight);
      return nodes;
    };
    const body: object[][] = [];
    if (hasHeader) body.push(row(table.header!, 0, true));
    table.rows.forEach((cells, r) => body.push(row(cells, r + (hasHeader ? 1 : 0), false)));
    if (bands.length > 1) {
      content.push({ text: o.bandLabel(columns[0] + 1, columns[columns.length - 1] + 1, table.width), bold: true, margin: [0, 0, 0, 4], pageBreak: b > 0 ? 'before' : undefined });
    }
    // Keeping a row on one page reads better, but pdfmake drops the content of an unbreakable row taller than
    // a page: rows stay whole only when the tallest is, by a wide margin, shorter than one.
    const dontBreakRows = tallest < page.height / 3;
    if (body.length > 0) content.push({ table: { headerRows: hasHeader ? 1 : 0, dontBreakRows, widths, body }, layout: TABLE_LAYOUT });
  });

  let pages = 0;
  const doc = {
    info: { title, creator: 'spreadsheet-tools', producer: 'pdfmake' },
    language: o.lang,
    displayTitle: true,
    pageSize: { width: page.paper[0], height: page.paper[1] },
    pageOrientation: o.orientation,
    pageMargins: page.margins,
    defaultStyle: { font: FONT_FAMILY, fontSize: o.fontSize, lineHeight: 1.05 },
    header: () => ({ text: title, bold: true, fontSize: o.fontSize + 2, margin: [MARGIN_X, HEADER_TOP, MARGIN_X, 0] }),
    footer: (current: number, count: number) => {
      pages = count;
      return { text: o.pageLabel(current, count), fontSize: Math.max(6, o.fontSize - 1), alignment: 'right', margin: [MARGIN_X, 10, MARGIN_X, 0] };
    },
    content,
  };
  const stopIfAborted = () => {
    if (o.signal.aborted) throw new ToolError('too_complex', { params: { reason: 'time' } });
  };
  stopIfAborted();
  // Layout and rendering run in one synchronous call; the progress callback (once per drawn item) is the one
  // place a stopped run can stop (a worker past its time is terminated anyway).
  pdfmake.setProgressCallback(stopIfAborted);
  const bytes = await pdfmake.createPdf(doc).getBuffer();
  return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), pages, bands: bands.length, missing };
}

const GRID = '#9e9e9e';
const TABLE_LAYOUT = {
  hLineWidth: () => RULE,
  vLineWidth: () => RULE,
  hLineColor: () => GRID,
  vLineColor: () => GRID,
  paddingLeft: () => CELL_PAD_X,
  paddingRight: () => CELL_PAD_X,
  paddingTop: () => 1.5,
  paddingBottom: () => 1.5,
  fillColor: (row: number, node: { table: { headerRows: number } }) => (row < node.table.headerRows ? '#eeeeee' : null),
};

/**
 * The paper in points and the area the table may use: the top margin holds the title (as many lines as it
 * wraps to), the bottom one the page number.
 */
function pageBox(o: Pick<PdfOptions, 'pageSize' | 'orientation' | 'fontSize'>, titleWidth = 0) {
  const [w, h] = PAGE_SIZES[o.pageSize];
  const paper = o.orientation === 'landscape' ? [Math.max(w, h), Math.min(w, h)] : [Math.min(w, h), Math.max(w, h)];
  const width = paper[0] - 2 * MARGIN_X;
  const titleLines = Math.max(1, Math.ceil(titleWidth / (width - 2)));
  const top = HEADER_TOP + titleLines * (o.fontSize + 2) * LINE_HEIGHT + 10;
  const bottom = 34;
  return { paper, width, height: paper[1] - top - bottom, margins: [MARGIN_X, top, MARGIN_X, bottom] };
}

/** Lines a text takes in a column, estimated from its width (wrapping wastes part of each line). */
function linesOf(text: string, width: number, font: FontMetrics, fontSize: number): number {
  let lines = 0;
  for (const line of text.split('\n')) lines += Math.max(1, Math.ceil((font.width(line) * fontSize * 1.2) / width));
  return lines;
}

/** A cell's text as pdfmake inlines: words wider than the column may break between any two characters. */
function wrappable(text: string, width: number, font: FontMetrics, fontSize: number): string | Array<string | object> {
  if (font.width(text) * fontSize <= width) return text;
  const parts = text.split(/(\s+)/);
  if (!parts.some((p) => font.width(p) * fontSize > width)) return text;
  return parts.filter((p) => p !== '').map((p) => (font.width(p) * fontSize > width ? { text: p, wordBreak: 'break-all' } : p));
}

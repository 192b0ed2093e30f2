// Lays a table out as a PDF: the title in every page header, "page n of m" in every footer, the title row
// repeated at the top of every page, long text wrapped (wrap.ts) and never cut, rows kept whole on a page
// unless taller than one (pages.ts). Columns are sized by columns.ts; a table too wide for the page is
// printed in bands of columns, each starting on a new page under a caption naming its columns (as
// spreadsheets print a wide sheet: down, then over). Characters the font has no glyph for are drawn as U+FFFD
// and counted, because the font would draw them as empty boxes that copy and extract as nothing.
//
// pdfmake makes the document: its metadata, its embedded fonts, its first page. The table is laid out here
// (wrap.ts, pages.ts: widths are known, so every row's height is) and each page, title and number included, is
// drawn at pdfkit's level (draw.ts) and written out before the next: pdfmake's own table layout takes about
// 0.6 ms per row, and its layout of every page's title and number is held whole until the pages are written.
import { FormatError } from '../errors.ts';
import { columnLetter, type Cell, type Removed, type Row } from '../model.ts';
import { displayText, type DisplayWords, type Lang } from '../display.ts';
import { fitWidths, measureColumns, packBands, type Measure } from './columns.ts';
import { TableDrawer, type DrawRow, type PageText } from './draw.ts';
import { FONT_FAMILY, pdfSetup, type FontMetrics, type PdfKitDocument } from './fonts.ts';
import { COLUMN_EXTRA, LINE_SPACING, RULE } from './grid.ts';
import { planPages, type PagePlan } from './pages.ts';
import { lineCount, wrapLines } from './wrap.ts';

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
  /**
   * Lines the table's rows may take, all bands together (a row counts its lines, at least one): past it the
   * run is refused before anything is drawn. Pages, which the time goes to, follow lines, not rows.
   */
  maxLines: number;
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
  /** U+0000 left out of the cells (removed.ts), for Written.removed. */
  removed: Removed | null;
}

const MARGIN_X = 28;
const REPLACEMENT = '\uFFFD';
const HEADER_TOP = 18;
/** Bottom margin, which holds the page number 10 points below its top. */
const BOTTOM = 34;
const LABEL_GAP = 10;
/** Space between a band's caption and its table. */
const CAPTION_GAP = 4;

export interface ColumnPlan {
  /** Column indexes of each band, left to right; empty when the table has no column. */
  bands: number[][];
  measures: Measure[];
  /** Cells cut to PDF_CELL_CHARS characters, and the first of them (row 0 is the title row). */
  cut: { count: number; first: { row: number; column: number } | null };
}

/**
 * Characters a cell prints at most: the rest is cut, with a warning (a text cell of 1 MB took the whole time
 * limit to lay out, and printed as 120 pages of one cell). About three pages of a narrow column.
 */
export const PDF_CELL_CHARS = 10_000;

/** Lines a run lays out, per row PDF_MAX_ROWS allows: a few tall rows pass, a table of long texts does not. */
export const PDF_LINES_PER_ROW = 2;

/**
 * Measures the columns and groups them into the bands that fit the page (the row bound counts bands too),
 * after cutting every text longer than PDF_CELL_CHARS (in `table` itself: what is printed is what is previewed).
 */
export function planColumns(table: PdfTable, o: Pick<PdfOptions, 'pageSize' | 'orientation' | 'fontSize' | 'lang' | 'words'>): ColumnPlan {
  const { normal, bold } = pdfSetup();
  const cut = cutLongCells(table);
  const measures = measureColumns(table, o, (text, header) => (header ? bold : normal).width(text) * o.fontSize);
  return { bands: packBands(measures, pageBox(o, normal).width - RULE, COLUMN_EXTRA, o.fontSize), measures, cut };
}

function cutLongCells(table: PdfTable): ColumnPlan['cut'] {
  const cut: ColumnPlan['cut'] = { count: 0, first: null };
  const rows = table.header ? [table.header, ...table.rows] : table.rows;
  for (let r = 0; r < rows.length; r++) {
    const cells = rows[r];
    for (let c = 0; c < cells.length; c++) {
      const v = cells[c];
      if (typeof v !== 'string' || v.length <= PDF_CELL_CHARS) continue;
      // A surrogate pair is never split.
      const end = isHighSurrogate(v.charCodeAt(PDF_CELL_CHARS - 1)) ? PDF_CELL_CHARS - 1 : PDF_CELL_CHARS;
      cells[c] = v.slice(0, end) + '…';
      cut.count++;
      cut.first ??= { row: table.header ? r : r + 1, column: c };
    }
  }
  return cut;
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

/** Renders the table as planned by planColumns. */
export async function renderPdf(table: PdfTable, { bands, measures }: ColumnPlan, o: PdfOptions): Promise<PdfResult> {
  const { pdfmake, normal, bold } = pdfSetup();
  const missing: PdfResult['missing'] = { count: 0, first: null };
  const nuls = { count: 0, first: '' };
  const stopIfAborted = () => {
    if (o.signal.aborted) throw new FormatError('too-complex', 'stopped: past the time limit', { params: { reason: 'time' } });
  };
  const title = cleanText(o.title, normal, () => {
    missing.count++;
    missing.first ??= 'title';
  }, null);
  const titleLines = wrapLines(title, pageBox(o, normal).width, bold, titleSize(o));
  const page = pageBox(o, normal, titleLines.length);
  const lineHeight = o.fontSize * normal.lineHeight * LINE_SPACING;
  const hasHeader = table.header !== null;
  const widthsOf = bands.map((columns) => fitWidths(columns.map((c) => measures[c]), page.width - RULE - columns.length * COLUMN_EXTRA, o.fontSize));
  const captions = bands.map((columns) => (bands.length > 1 ? wrapLines(o.bandLabel(columns[0] + 1, columns[columns.length - 1] + 1, table.width), page.width, bold, o.fontSize) : null));
  const captionHeight = (b: number) => (captions[b] ? captions[b]!.length * lineHeight + CAPTION_GAP : 0);

  /** A cell's text as drawn; `onMissing` hears of each character the font lacks, `onNul` of each U+0000 left out. */
  const cellText = (cells: Cell[] | null, column: number, onMissing: (() => void) | null, onNul: (() => void) | null = null) =>
    cleanText(displayText(cells?.[column] ?? null, o), normal, onMissing, onNul);

  // First pass: every row's height in lines, and the characters the font lacks, counted once per cell (in the
  // order the cells are printed).
  let laidOut = 0;
  const pages = planPages(
    bands.length,
    (b) => {
      stopIfAborted();
      const columns = bands[b];
      let [atRow, atColumn] = [0, 0];
      const onMissing = () => {
        missing.count++;
        missing.first ??= { row: atRow, column: atColumn };
      };
      const onNul = () => {
        if (nuls.count++ === 0) nuls.first = `${columnLetter(atColumn)}${atRow + 1}`;
      };
      const tallest = (cells: Cell[] | null, row: number, font: FontMetrics) => {
        let lines = 1;
        atRow = row;
        for (let i = 0; i < columns.length; i++) {
          atColumn = columns[i];
          lines = Math.max(lines, lineCount(cellText(cells, columns[i], onMissing, onNul), widthsOf[b][i], font, o.fontSize));
        }
        return lines;
      };
      const titles = hasHeader ? tallest(table.header, 0, bold) : null;
      const rows = new Uint32Array(table.rows.length);
      for (let r = 0; r < table.rows.length; r++) {
        if (r % 4096 === 4095) stopIfAborted();
        rows[r] = tallest(table.rows[r], r + (hasHeader ? 1 : 0), normal);
        // Refused as soon as it is known, not after measuring the rest.
        if ((laidOut += rows[r]) > o.maxLines) throw new FormatError('pdf-lines', 'PDF lines', { params: { reason: 'pdf_lines', max: o.maxLines } });
      }
      return { titles, rows };
    },
    { height: page.height, lineHeight, caption: captionHeight },
  );

  // Second pass, page by page: each page's rows, wrapped again (cheaper than keeping every cell's lines) and
  // drawn with the page's title and number; pdfkit writes a page out when the next one is added. pdfmake makes
  // the document (its metadata, its fonts, the first page) and nothing more: its layout of every page's title
  // and number held 3.4 MB for 295 pages, and the pages drawn after it all, their contents until the end.
  stopIfAborted();
  const pdf = await pdfmake
    .createPdf({
      info: { title, creator: 'spreadsheet-tools', producer: 'pdfmake' },
      language: o.lang,
      displayTitle: true,
      pageSize: { width: page.paper[0], height: page.paper[1] },
      pageOrientation: o.orientation,
      pageMargins: page.margins,
      content: [],
    })
    .getStream();
  const drawer = new TableDrawer(
    pdf,
    { normal: { metrics: normal, pdf: pdf.provideFont(FONT_FAMILY, false, false) }, bold: { metrics: bold, pdf: pdf.provideFont(FONT_FAMILY, true, false) } },
    o.fontSize,
    lineHeight,
  );
  const pageCount = Math.max(1, pages.length);
  const titleHeight = titleSize(o) * normal.lineHeight * LINE_SPACING;
  const marks = (n: number): PageText[] => [
    ...titleLines.map((text, i) => ({ text, bold: true, size: titleSize(o), x: MARGIN_X, top: HEADER_TOP + i * titleHeight })),
    { text: cleanText(o.pageLabel(n, pageCount), normal, null, null), bold: false, size: labelSize(o), x: page.paper[0] - MARGIN_X, top: page.paper[1] - BOTTOM + LABEL_GAP, right: true },
  ];
  // A row continued over several pages is wrapped once, not once per page (a long cell made it quadratic).
  let wrapped: { band: number; row: number; lines: string[][] } | null = null;
  const written: Uint8Array[] = [];
  for (let i = 0; i < pageCount; i++) {
    if (i % 16 === 0) stopIfAborted();
    if (i > 0) pdf.addPage({ size: page.paper });
    takeWritten(pdf, written);
    const p: PagePlan | undefined = pages[i];
    // A table without rows or titles: one page, with its title and number only.
    if (!p) {
      drawer.drawPage(MARGIN_X, page.margins[1], null, 0, [], [], marks(i + 1));
      continue;
    }
    const columns = bands[p.band];
    const drawn = (cells: Cell[] | null, titles: boolean, from = 0, to?: number, row = -2): DrawRow => {
      const again = wrapped !== null && wrapped.band === p.band && wrapped.row === row;
      const lines = again ? wrapped!.lines : columns.map((c, i) => wrapLines(cellText(cells, c, null), widthsOf[p.band][i], titles ? bold : normal, o.fontSize));
      if (to !== undefined && !again) wrapped = { band: p.band, row, lines };
      const shown = to === undefined ? lines : lines.map((l) => (from === 0 && l.length <= to ? l : l.slice(from, to)));
      const right = columns.map((c) => !titles && typeof cells?.[c] === 'number');
      return { cells: shown, right, titles, lines: to === undefined ? Math.max(1, ...lines.map((l) => l.length)) : to - from };
    };
    const rows: DrawRow[] = [];
    if (p.titles) rows.push(drawn(table.header, true));
    for (const s of p.slices) rows.push(s.row < 0 ? drawn(table.header, true, s.from, s.to, s.row) : drawn(table.rows[s.row], false, s.from, s.to, s.row));
    drawer.drawPage(MARGIN_X, page.margins[1], p.caption ? captions[p.band] : null, captionHeight(p.band), widthsOf[p.band], rows, marks(i + 1));
  }
  const bytes = await outputOf(pdf, written);
  const removed: Removed | null = nuls.count === 0 ? null : { kind: 'nul', count: nuls.count, cell: nuls.first, table: o.title };
  return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), pages: pageCount, bands: bands.length, missing, removed };
}

/**
 * Moves what the document has written so far to `written`, copied: pdfkit's chunks of a page are views on the
 * buffer zlib deflated its content into (16 KB or more each), and kept as they are they held on to every page's.
 */
function takeWritten(pdf: PdfKitDocument, written: Uint8Array[]): void {
  for (let chunk: Buffer | null; (chunk = pdf.read() as Buffer | null) !== null; ) written.push(new Uint8Array(chunk));
}

/** Ends the document and gathers its bytes after those `written` holds already (as pdfmake's getBuffer does). */
function outputOf(pdf: PdfKitDocument, written: Uint8Array[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = written;
    pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
    pdf.end();
  });
}

/**
 * A text as the font can draw it: line breaks as `\n`, tabs as spaces, U+0000 left out (`onNul` is told of
 * each: no result keeps one, removed.ts), and U+FFFD for each character the font has no glyph for (`onMissing`
 * is told of each).
 */
function cleanText(text: string, font: FontMetrics, onMissing: (() => void) | null, onNul: (() => void) | null): string {
  let plain = true;
  for (let i = 0; i < text.length && plain; i++) {
    const c = text.charCodeAt(i);
    plain = c === 10 || (c !== 13 && c !== 9 && c !== 0 && font.covers(c));
  }
  if (plain) return text;
  let out = '';
  for (const ch of text.replace(/\r\n?/g, '\n').replace(/\t/g, ' ')) {
    if (ch === '\u0000') onNul?.();
    else if (ch === '\n' || font.covers(ch.codePointAt(0)!)) out += ch;
    else {
      out += REPLACEMENT;
      onMissing?.();
    }
  }
  return out;
}

/**
 * The paper in points and the area the table may use: the top margin holds the title (as many lines as it
 * wraps to), the bottom one the page number.
 */
function pageBox(o: Pick<PdfOptions, 'pageSize' | 'orientation' | 'fontSize'>, font: FontMetrics, titleLines = 1) {
  const [w, h] = PAGE_SIZES[o.pageSize];
  const paper = o.orientation === 'landscape' ? [Math.max(w, h), Math.min(w, h)] : [Math.min(w, h), Math.max(w, h)];
  const width = paper[0] - 2 * MARGIN_X;
  const top = HEADER_TOP + Math.max(1, titleLines) * titleSize(o) * font.lineHeight * LINE_SPACING + 10;
  return { paper, width, height: paper[1] - top - BOTTOM, margins: [MARGIN_X, top, MARGIN_X, BOTTOM] };
}

const titleSize = (o: Pick<PdfOptions, 'fontSize'>) => o.fontSize + 2;
const labelSize = (o: Pick<PdfOptions, 'fontSize'>) => Math.max(6, o.fontSize - 1);

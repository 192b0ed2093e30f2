// Lays a table out as a PDF: the title in every page header, "page n of m" in every footer, the title row
// repeated at the top of every page, long text wrapped (wrap.ts) and never cut, rows kept whole on a page
// unless taller than one (pages.ts). Columns are sized by columns.ts; a table too wide for the page is
// printed in bands of columns, each starting on a new page under a caption naming its columns (as
// spreadsheets print a wide sheet: down, then over). Characters the font has no glyph for are drawn as U+FFFD
// and counted, because the font would draw them as empty boxes that copy and extract as nothing.
//
// pdfmake builds the document: its pages, header, footer, metadata and embedded fonts. The table itself is
// laid out here (wrap.ts, pages.ts: widths are known, so every row's height is) and drawn into pdfmake's pages
// at pdfkit's level (draw.ts), because pdfmake's own table layout takes about 0.6 ms per row.
import { FormatError } from '../errors.ts';
import { columnLetter, type Cell, type Removed, type Row } from '../model.ts';
import { displayText, type DisplayWords, type Lang } from '../display.ts';
import { fitWidths, measureColumns, packBands, type Measure } from './columns.ts';
import { TableDrawer, type DrawRow } from './draw.ts';
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
  const page = pageBox(o, normal, bold.width(title) * (o.fontSize + 2));
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

  // Second pass, page by page as pdfmake renders its pages (pdfkit writes a page out when the next one is
  // added): each page's rows, wrapped again (cheaper than keeping every cell's lines) and drawn under the
  // page's header and footer. Drawn after the whole layout, every page's content was held, uncompressed, until
  // the end: about ten times the finished file.
  let drawer: TableDrawer | null = null;
  // A row continued over several pages is wrapped once, not once per page (a long cell made it quadratic).
  let wrapped: { band: number; row: number; lines: string[][] } | null = null;
  const drawPage = (p: PagePlan) => {
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
    drawer!.drawPage(MARGIN_X, page.margins[1], p.caption ? captions[p.band] : null, captionHeight(p.band), widthsOf[p.band], rows);
  };

  let pageCount = 0;
  const doc = {
    info: { title, creator: 'spreadsheet-tools', producer: 'pdfmake' },
    language: o.lang,
    displayTitle: true,
    pageSize: { width: page.paper[0], height: page.paper[1] },
    pageOrientation: o.orientation,
    pageMargins: page.margins,
    defaultStyle: { font: FONT_FAMILY, fontSize: o.fontSize, lineHeight: LINE_SPACING },
    header: () => ({ text: title, bold: true, fontSize: o.fontSize + 2, margin: [MARGIN_X, HEADER_TOP, MARGIN_X, 0] }),
    footer: (current: number, count: number) => {
      pageCount = count;
      return { text: o.pageLabel(current, count), fontSize: Math.max(6, o.fontSize - 1), alignment: 'right', margin: [MARGIN_X, 10, MARGIN_X, 0] };
    },
    // One empty page per planned page: the table is drawn into them as they are rendered.
    content: Array.from({ length: Math.max(1, pages.length) }, (_, i) => ({ text: '', pageBreak: i > 0 ? 'before' : undefined })),
  };
  stopIfAborted();
  // pdfmake tells of each item it renders (the page's own: title, page number), with its renderer as `this`;
  // after a page's last item, that page, still pdfkit's current one, gets its table.
  let rendered = 0;
  let itemsLeft = -1;
  const written: Uint8Array[] = [];
  pdfmake.setProgressCallback(function (this: PdfMakeRenderer) {
    stopIfAborted();
    const laid = this.pdfDocument._pdfMakePages;
    if (itemsLeft < 0) itemsLeft = itemsOf(laid, 0);
    if (--itemsLeft > 0) return;
    drawer ??= new TableDrawer(
      this.pdfDocument,
      { normal: { metrics: normal, pdf: this.pdfDocument.provideFont(FONT_FAMILY, false, false) }, bold: { metrics: bold, pdf: this.pdfDocument.provideFont(FONT_FAMILY, true, false) } },
      o.fontSize,
      lineHeight,
    );
    takeWritten(this.pdfDocument, written);
    if (rendered < pages.length) drawPage(pages[rendered]);
    if (++rendered < laid.length) itemsLeft = itemsOf(laid, rendered);
  });
  // The callback is taken when the document is created: let go of it (and of the table it holds) at once.
  const created = pdfmake.createPdf(doc);
  pdfmake.setProgressCallback(undefined);
  const pdf = await created.getStream();
  if (pageCount !== Math.max(1, pages.length) || rendered !== pageCount) throw new Error(`pdfmake laid out ${pageCount} pages and rendered ${rendered} for ${pages.length} planned`);
  const bytes = await outputOf(pdf, written);
  const removed: Removed | null = nuls.count === 0 ? null : { kind: 'nul', count: nuls.count, cell: nuls.first, table: o.title };
  return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), pages: pageCount, bands: bands.length, missing, removed };
}

/** What pdfmake's renderer is to its progress callback (`this`): its document, with the pages it laid out. */
interface PdfMakeRenderer {
  pdfDocument: PdfKitDocument & { _pdfMakePages: Array<{ items: unknown[] }> };
}

/** Items pdfmake renders on laid-out page `i`: never none (the page number is one), or no table goes on it. */
function itemsOf(laid: PdfMakeRenderer['pdfDocument']['_pdfMakePages'], i: number): number {
  const n = laid[i].items.length;
  if (n === 0) throw new Error(`pdfmake laid out page ${i + 1} with nothing on it`);
  return n;
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
function pageBox(o: Pick<PdfOptions, 'pageSize' | 'orientation' | 'fontSize'>, font: FontMetrics, titleWidth = 0) {
  const [w, h] = PAGE_SIZES[o.pageSize];
  const paper = o.orientation === 'landscape' ? [Math.max(w, h), Math.min(w, h)] : [Math.min(w, h), Math.max(w, h)];
  const width = paper[0] - 2 * MARGIN_X;
  const titleLines = Math.max(1, Math.ceil(titleWidth / (width - 2)));
  const top = HEADER_TOP + titleLines * (o.fontSize + 2) * font.lineHeight * LINE_SPACING + 10;
  const bottom = 34;
  return { paper, width, height: paper[1] - top - bottom, margins: [MARGIN_X, top, MARGIN_X, bottom] };
}

// The tables of an HTML document, one sheet per <table> in document order (a nested table is a table of its own,
// counted at its start tag, and its text is not repeated in the outer cell): what web applications export as
// ".xls", and what html-to-excel reads. The document is parsed by parse5 (the WHATWG algorithm browsers use) as
// inert data: no script runs, nothing is fetched, only text is taken (tools.md §2.11).
//
// Rows come in rendered order (<thead>, the body, <tfoot>). A cell's text is its text content with runs of
// whitespace collapsed and trimmed; <br> and the edges of p, div and li are line breaks; script, style, template
// and comments are skipped. colspan (1–1000) and rowspan (0–65534, 0 to the end of its section) place the value
// in the first cell of the span and record it as a merged range (Table.layout). Values are typed by
// csv-to-excel's rules when asked (detectTypes), except header cells (<th>, rows of <thead>), which stay text.
// The sheet is named after the <caption>, else `Tabla N` / `Table N`. Tables without any value are skipped, with an
// info message.
import { isUtf8 } from 'node:buffer';
import { defaultTreeAdapter, Parser } from 'parse5';
import type { DefaultTreeAdapterMap, TreeAdapter } from 'parse5';
import { ArrayTable } from '../batch.ts';
import type { BookReader, SheetRead } from '../book.ts';
import { FormatError } from '../errors.ts';
import { cellText, type Cell, type CellRange, type FormatContext, type Row, type SourceFile, type Table, type TextEncodingName } from '../model.ts';
import { detectType } from '../csv/detect-type.ts';
import { decodeText, decodeWindows1252, guessUtf16 } from '../csv/read.ts';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

const MAX_COLSPAN = 1000;
const MAX_ROWSPAN = 65_534;
const SKIPPED = new Set(['script', 'style', 'template', 'noscript']);
const BREAKS = new Set(['p', 'div', 'li']);

/**
 * A row's cells, typed when the parser closes the row (header cells stay text), and only when some cell has
 * them, their spans: most rows of a long table have none (an object per cell, then the texts kept beside the
 * typed rows, were most of reading a page's memory).
 */
interface HtmlRow {
  cells: Cell[];
  /** colspan and rowspan of each cell, two numbers a cell; null: every cell spans 1 × 1. */
  spans: number[] | null;
}

interface HtmlTable {
  caption: string;
  rows: HtmlRow[];
  /** Rows of <thead>, then of the body, then of <tfoot>: the number of each, for rowspan=0. */
  sections: number[];
}

export class HtmlReader implements BookReader {
  readonly format = 'html' as const;
  readonly sheets: { name: string; visibility: 'visible' }[];
  readonly encoding?: TextEncodingName;
  /** A table handed over by table() is let go (null): read again, the page is parsed again. */
  private tables: (HtmlTable | null)[];

  constructor(
    private readonly file: SourceFile,
    ctx: FormatContext,
    private detect: boolean,
  ) {
    const { tables: all, encoding } = parsePage(file.bytes, detect);
    if (encoding) this.encoding = encoding;
    this.tables = withValues(all);
    if (this.tables.length === 0) throw new FormatError('empty', 'no HTML table with cells');
    if (this.tables.length < all.length) ctx.message('info', 'html_tables_skipped', { name: file.name, count: all.length - this.tables.length });
    this.sheets = this.tables.map((t, i) => ({ name: t!.caption || ctx.name('table', { n: i + 1 }), visibility: 'visible' }));
  }

  table(i: number, read: SheetRead): Table {
    if (this.tables[i] === null || read.detectTypes !== this.detect) {
      this.detect = read.detectTypes;
      this.tables = withValues(parsePage(this.file.bytes, this.detect).tables);
    }
    const source = this.tables[i]!;
    this.tables[i] = null;
    const { rows, merges } = layOut(source);
    for (const r of rows) for (const c of r) if (c !== null) read.cells.used++;
    if (read.cells.used > read.cells.max) throw new FormatError('cells', 'cell limit', { params: { reason: 'cells', max: read.cells.max } });
    const name = this.sheets[i].name;
    const layout = { origin: { row: 0, col: 0 }, merges, widths: [] };
    if (!read.hasHeader) return new ArrayTable({ name, header: null, layout }, rows);
    const [first = [], ...rest] = rows;
    return new ArrayTable({ name, header: first.map(cellText), titleCells: first, layout }, rest);
  }
}

/** The page's tables, with the cells typed (`detect`) as each row closes. */
function parsePage(bytes: Uint8Array, detect: boolean): { tables: HtmlTable[]; encoding?: TextEncodingName } {
  const { pieces, encoding } = decodeHtml(bytes);
  // The text goes to the parser piece by piece (as parse5's own stream does): the page is never one string.
  const parser = new Parser({ treeAdapter: leanAdapter(detect) });
  for (const piece of pieces) parser.tokenizer.write(piece, false);
  parser.tokenizer.write('', true);
  return { tables: tablesOf(parser.document, detect), ...(encoding ? { encoding } : {}) };
}

/** A table whose cells are all empty (a layout table around an image, an empty navigation box) has no data. */
const withValues = (tables: HtmlTable[]) => tables.filter((t) => t.rows.some((r) => r.cells.some((c) => c !== null)));

/**
 * Text of the bytes: a BOM decides, then the charset a `<meta charset>` or `http-equiv` declares in the first
 * 1,024 bytes (as the WHATWG prescan looks; any label the platform decodes), then §2.2.
 */
function decodeHtml(bytes: Uint8Array): { pieces: Iterable<string>; encoding?: TextEncodingName } {
  const { text, encoding } = decodeWhole(bytes);
  return { pieces: text === null ? utf8Pieces(bytes) : [text], ...(encoding ? { encoding } : {}) };
}

/**
 * Bytes of the text the parser takes at a time: a piece stays a young, short-lived string (larger strings are
 * allocated beside the old generation and stay until a full collection, as many as the page has pieces).
 */
const PIECE_BYTES = 1 << 15;

/** Valid UTF-8 without a BOM, decoded a piece at a time (a piece never ends inside a character). */
function* utf8Pieces(bytes: Uint8Array): Generator<string> {
  const decoder = new TextDecoder('utf-8');
  for (let i = 0; i < bytes.length; i += PIECE_BYTES) yield decoder.decode(bytes.subarray(i, i + PIECE_BYTES), { stream: true });
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** The page's text, or null for valid UTF-8 without a BOM (most pages), which utf8Pieces decodes as it goes. */
function decodeWhole(bytes: Uint8Array): { text: string | null; encoding?: TextEncodingName } {
  const bom = (bytes[0] === 0xef && bytes[1] === 0xbb) || (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (!bom && guessUtf16(bytes) === null) {
    if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(0) >= 0) throw new FormatError('binary', 'NUL bytes in HTML');
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
    const charset = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1]?.toLowerCase();
    // Declared UTF-8 over bytes that are not is a page saved in windows-1252 and mislabelled: §2.2 reads it so.
    if (charset === 'utf-8' || charset === 'utf8') return utf8OrDecoded(bytes);
    if (charset && LATIN.has(charset)) return { text: decodeWindows1252(bytes), encoding: 'windows-1252' };
    // A declared UTF-16 over 8-bit bytes is read as UTF-8 (WHATWG); an unknown label leaves it to §2.2.
    if (charset && !charset.startsWith('utf-16')) {
      try {
        return { text: new TextDecoder(charset).decode(bytes) };
      } catch {
        // not a label the platform knows
      }
    }
    return utf8OrDecoded(bytes);
  }
  return decodeText(bytes);
}

/** §2.2 on bytes without a BOM that are not UTF-16: valid UTF-8 is left to utf8Pieces, the rest decoded whole. */
function utf8OrDecoded(bytes: Uint8Array): { text: string | null; encoding?: TextEncodingName } {
  return isUtf8(bytes) ? { text: null, encoding: 'utf-8' } : decodeText(bytes);
}

/** Labels of windows-1252, which browsers use for all of them (WHATWG Encoding). */
const LATIN = new Set(['windows-1252', 'cp1252', 'x-cp1252', 'iso-8859-1', 'iso8859-1', 'iso_8859-1', 'latin1', 'l1', 'us-ascii', 'ascii', 'iso-ir-100', 'ibm819', 'cp819', 'csisolatin1', 'ansi_x3.4-1968']);

const childrenOf = (n: Node): Node[] => ('childNodes' in n ? (n.childNodes as Node[]) : []);
const isElement = (n: Node): n is Element => 'tagName' in n;
/** A row read when it closed, standing in the tree for its element. */
const isRow = (n: Node | HtmlRow): n is HtmlRow => 'cells' in n;
const attr = (e: Element, name: string) => e.attrs.find((a) => a.name === name)?.value;

/** The cells of each row, read when the parser closed it. */
const ROWS = new WeakMap<Element, HtmlRow>();
const TABLE_PARTS = new Set(['table', 'thead', 'tbody', 'tfoot', 'tr']);

/**
 * parse5's tree, less what the tables do not need, as it is built: a row is read when the parser closes it (its
 * cells are final then: a cell's formatting elements end with it) and only the tables nested in its cells are
 * kept under it, for tablesOf to find them in order; whitespace between table parts is not kept. A whole page's
 * tree of cells took about 800 bytes a cell at its peak (26.5 MB, 100,000 rows: +878 MB).
 */
const leanAdapter = (detect: boolean): TreeAdapter<DefaultTreeAdapterMap> => ({
  ...defaultTreeAdapter,
  insertText(parent, text) {
    if (isElement(parent) && TABLE_PARTS.has(parent.tagName) && /^[ \t\n\f\r]*$/.test(text)) return;
    defaultTreeAdapter.insertText(parent, text);
  },
  onItemPop(item) {
    if (item.tagName !== 'tr') return;
    const parent = item.parentNode;
    const row = rowOf(item, parent !== null && isElement(parent) && parent.tagName === 'thead', detect);
    const nested: Node[] = [];
    for (const td of item.childNodes) {
      // A cell of one text node holds no table: most cells.
      if (isElement(td) && !(td.childNodes.length === 1 && td.childNodes[0].nodeName === '#text')) tablesIn(td, nested);
    }
    // A row with no table in its cells stands in its parent in place of its element (which would otherwise
    // stay, a hundred-odd bytes a row, until the page is read); the parser never looks back at a closed row.
    const siblings = parent === null ? null : (parent as Element).childNodes;
    if (nested.length === 0 && siblings !== null && siblings[siblings.length - 1] === item) {
      siblings[siblings.length - 1] = row as unknown as DefaultTreeAdapterMap['childNode'];
      item.parentNode = null;
      return;
    }
    ROWS.set(item, row);
    item.childNodes = nested as DefaultTreeAdapterMap['childNode'][];
  },
});

/** The outermost tables inside an element, in document order. */
function tablesIn(e: Element, into: Node[]): void {
  const stack: Node[] = [...childrenOf(e)].reverse();
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (!isElement(n)) continue;
    if (n.tagName === 'table') {
      into.push(n);
      continue;
    }
    const kids = childrenOf(n);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
}

/** Tables inside tables past this depth make the file invalid_file (tools.md §2.11). */
export const HTML_MAX_TABLE_DEPTH = 256;

/** Every <table>, in the order of its start tag. */
function tablesOf(doc: Node, detect: boolean): HtmlTable[] {
  const out: HtmlTable[] = [];
  // An explicit stack: documents nest deeper than a call stack should (the parser itself bounds nothing).
  const stack: [Node, number][] = [[doc, 0]];
  while (stack.length > 0) {
    const [n, outer] = stack.pop()!;
    if (isElement(n) && SKIPPED.has(n.tagName)) continue;
    let depth = outer;
    if (isElement(n) && n.tagName === 'table') {
      if (++depth > HTML_MAX_TABLE_DEPTH) throw new FormatError('too-deep', 'tables nested too deep', { params: { max: HTML_MAX_TABLE_DEPTH } });
      out.push(readTable(n, detect));
    }
    const kids = childrenOf(n);
    for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], depth]);
  }
  return out;
}

function readTable(table: Element, detect: boolean): HtmlTable {
  const head: HtmlRow[] = [];
  const body: HtmlRow[] = [];
  const foot: HtmlRow[] = [];
  let caption = '';
  for (const child of childrenOf(table)) {
    if (isRow(child)) body.push(child);
    if (!isElement(child)) continue;
    if (child.tagName === 'caption') caption ||= textOf(child);
    else if (child.tagName === 'tr') body.push(ROWS.get(child) ?? rowOf(child, false, detect));
    else if (child.tagName === 'thead' || child.tagName === 'tbody' || child.tagName === 'tfoot') {
      const into = child.tagName === 'thead' ? head : child.tagName === 'tfoot' ? foot : body;
      for (const tr of childrenOf(child)) if (isRow(tr)) into.push(tr);
      else if (isElement(tr) && tr.tagName === 'tr') into.push(ROWS.get(tr) ?? rowOf(tr, child.tagName === 'thead', detect));
    }
  }
  return { caption: caption.replace(/\n/g, ' '), rows: [...head, ...body, ...foot], sections: [head.length, body.length, foot.length] };
}

/** csv-to-excel's typing, with no decimal comma: the same for every cell of every page. */
const TYPING = { decimalComma: false };

function rowOf(tr: Element, inHead: boolean, detect: boolean): HtmlRow {
  const row: HtmlRow = { cells: [], spans: null };
  for (const td of childrenOf(tr)) {
    if (!isElement(td) || (td.tagName !== 'td' && td.tagName !== 'th')) continue;
    const c = row.cells.length;
    const colspan = td.attrs.length === 0 ? 1 : spanOf(attr(td, 'colspan'), 1, MAX_COLSPAN);
    const rowspan = td.attrs.length === 0 ? 1 : spanOf(attr(td, 'rowspan'), 0, MAX_ROWSPAN);
    const text = textOf(td);
    row.cells.push(text === '' ? null : detect && !inHead && td.tagName !== 'th' ? detectType(text, TYPING) : text);
    if (colspan !== 1 || rowspan !== 1) (row.spans ??= new Array<number>(2 * c).fill(1)).push(colspan, rowspan);
    else row.spans?.push(1, 1);
  }
  return row;
}

/** A span attribute as browsers read it: an integer clamped to its range, 1 when absent or not a number. */
function spanOf(value: string | undefined, min: number, max: number): number {
  const n = value === undefined ? NaN : parseInt(value, 10);
  return Number.isNaN(n) ? 1 : Math.min(max, Math.max(min, n));
}

/**
 * The text content of an element, whitespace collapsed, line breaks where the page breaks lines: a <br> is a
 * line break of its own (two make an empty line), the edges of p, div, li and of a nested table end the line
 * when it holds text (so that `antes<table>…</table>después` stays two words).
 */
function textOf(e: Element): string {
  // Most cells hold one text node: no walk (a closure or an array per cell was a tenth of reading a page).
  const only = e.childNodes.length === 1 ? (e.childNodes[0] as Node) : null;
  if (only !== null && only.nodeName === '#text') return (only as { value: string }).value.replace(/[ \t\n\f\r]+/g, ' ').trim();
  if (e.childNodes.length === 0) return '';
  let out = '';
  // Whether the line being written holds more than whitespace.
  let filled = false;
  const stack: (Node | typeof EDGE)[] = [...childrenOf(e)].reverse();
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n === EDGE) {
      if (filled) out += '\n';
      filled = false;
      continue;
    }
    if (n.nodeName === '#text') {
      const text = (n as { value: string }).value.replace(/[ \t\n\f\r]+/g, ' ');
      out += text;
      if (text !== ' ') filled = true;
      continue;
    }
    if (!isElement(n) || SKIPPED.has(n.tagName)) continue;
    if (n.tagName === 'table') {
      if (filled) out += '\n';
      filled = false;
      continue;
    }
    if (n.tagName === 'br') {
      out += '\n';
      filled = false;
      continue;
    }
    const breaks = BREAKS.has(n.tagName);
    if (breaks) stack.push(EDGE);
    const kids = childrenOf(n);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    if (breaks) stack.push(EDGE);
  }
  return out
    .split('\n')
    // Outer no-break spaces go too (`&nbsp;Madrid` is Madrid); inner ones stay, as a page shows them.
    .map((line) => line.trim())
    .join('\n')
    .replace(/^\n+|\n+$/g, '');
}

/** The edge of a block element in textOf's stack. */
const EDGE = Symbol('edge');

/** The table's grid: each cell's value in the first cell of its span, the spans as merged ranges. */
function layOut(t: HtmlTable): { rows: Row[]; merges: CellRange[] } {
  const rows: Row[] = [];
  const merges: CellRange[] = [];
  const taken: Set<number>[] = [];
  let sectionEnd = 0;
  let section = 0;
  for (let r = 0; r < t.rows.length; r++) {
    while (r >= sectionEnd && section < t.sections.length) sectionEnd += t.sections[section++];
    // Columns taken by spans from above or the left; none in most tables.
    const busy = taken[r];
    const { cells, spans } = t.rows[r];
    // A row without spans, and none reaching it, is its cells as they are (the table is handed over).
    if (busy === undefined && spans === null) {
      rows[r] = cells;
      continue;
    }
    const row: Row = (rows[r] ??= []);
    let c = 0;
    for (let k = 0; k < cells.length; k++) {
      if (busy !== undefined) while (busy.has(c)) c++;
      row[c] = cells[k];
      const colspan = spans === null ? 1 : spans[2 * k];
      const rowspan = spans === null ? 1 : spans[2 * k + 1];
      const bottom = rowspan === 0 ? sectionEnd - 1 : Math.min(sectionEnd - 1, r + rowspan - 1);
      const right = c + colspan - 1;
      if (bottom > r || right > c) {
        merges.push({ top: r, left: c, bottom, right });
        for (let rr = r; rr <= bottom; rr++) for (let cc = c; cc <= right; cc++) (taken[rr] ??= new Set()).add(cc);
      }
      c = right + 1;
    }
  }
  const width = rows.reduce((w, r) => Math.max(w, r.length), merges.reduce((w, m) => Math.max(w, m.right + 1), 0));
  for (let r = 0; r < rows.length; r++) {
    const row = (rows[r] ??= []);
    for (let c = 0; c < width; c++) if (row[c] === undefined) row[c] = null;
  }
  return { rows, merges };
}

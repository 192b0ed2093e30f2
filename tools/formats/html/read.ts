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
// The sheet is named after the <caption>, else `Tabla N` / `Table N`. Tables without cells are skipped, with an
// info message.
import { parse } from 'parse5';
import type { DefaultTreeAdapterMap } from 'parse5';
import { ArrayTable } from '../batch.ts';
import type { BookReader, SheetRead } from '../book.ts';
import { FormatError } from '../errors.ts';
import { cellText, type Cell, type CellRange, type FormatContext, type Row, type SourceFile, type Table, type TextEncodingName } from '../model.ts';
import { detectType } from '../csv/detect-type.ts';
import { decodeText, decodeWindows1252 } from '../csv/read.ts';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

const MAX_COLSPAN = 1000;
const MAX_ROWSPAN = 65_534;
const SKIPPED = new Set(['script', 'style', 'template', 'noscript']);
const BREAKS = new Set(['p', 'div', 'li']);

interface HtmlCell {
  text: string;
  header: boolean;
  colspan: number;
  rowspan: number;
}

interface HtmlTable {
  caption: string;
  rows: HtmlCell[][];
  /** Rows of <thead>, then of the body, then of <tfoot>: the number of each, for rowspan=0. */
  sections: number[];
}

export class HtmlReader implements BookReader {
  readonly format = 'html' as const;
  readonly sheets: { name: string; visibility: 'visible' }[];
  readonly encoding: TextEncodingName;
  private readonly tables: HtmlTable[];

  constructor(file: SourceFile, ctx: FormatContext) {
    const { text, encoding } = decodeHtml(file.bytes);
    this.encoding = encoding;
    const all = tablesOf(parse(text));
    this.tables = all.filter((t) => t.rows.some((r) => r.length > 0));
    if (this.tables.length === 0) throw new FormatError('empty', 'no HTML table with cells');
    if (this.tables.length < all.length) ctx.message('info', 'html_tables_skipped', { name: file.name, count: all.length - this.tables.length });
    this.sheets = this.tables.map((t, i) => ({ name: t.caption || ctx.name('table', { n: i + 1 }), visibility: 'visible' }));
  }

  table(i: number, read: SheetRead): Table {
    const { rows, merges } = layOut(this.tables[i], read.detectTypes);
    for (const r of rows) for (const c of r) if (c !== null) read.cells.used++;
    if (read.cells.used > read.cells.max) throw new FormatError('cells', 'cell limit', { params: { reason: 'cells', max: read.cells.max } });
    const name = this.sheets[i].name;
    const layout = { origin: { row: 0, col: 0 }, merges, widths: [] };
    if (!read.hasHeader) return new ArrayTable({ name, header: null, layout }, rows);
    const [first = [], ...rest] = rows;
    return new ArrayTable({ name, header: first.map(cellText), titleCells: first, layout }, rest);
  }
}

/** Text of the bytes: a BOM decides, then a declared charset (utf-8, windows-1252 and its aliases), then §2.2. */
function decodeHtml(bytes: Uint8Array): { text: string; encoding: TextEncodingName } {
  const bom = (bytes[0] === 0xef && bytes[1] === 0xbb) || (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (!bom) {
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
    const charset = /<meta[^>]+charset\s*=\s*["']?\s*([\w-]+)/i.exec(head)?.[1]?.toLowerCase();
    if (charset === 'utf-8' || charset === 'utf8') return { text: new TextDecoder('utf-8').decode(bytes), encoding: 'utf-8' };
    if (charset && ['windows-1252', 'iso-8859-1', 'latin1', 'us-ascii', 'cp1252'].includes(charset)) return { text: decodeWindows1252(bytes), encoding: 'windows-1252' };
  }
  return decodeText(bytes);
}

const childrenOf = (n: Node): Node[] => ('childNodes' in n ? (n.childNodes as Node[]) : []);
const isElement = (n: Node): n is Element => 'tagName' in n;
const attr = (e: Element, name: string) => e.attrs.find((a) => a.name === name)?.value;

/** Every <table>, in the order of its start tag. */
function tablesOf(doc: Node): HtmlTable[] {
  const out: HtmlTable[] = [];
  // An explicit stack: documents nest deeper than a call stack should (the parser itself bounds nothing).
  const stack: Node[] = [doc];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (isElement(n) && SKIPPED.has(n.tagName)) continue;
    if (isElement(n) && n.tagName === 'table') out.push(readTable(n));
    const kids = childrenOf(n);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return out;
}

function readTable(table: Element): HtmlTable {
  const head: HtmlCell[][] = [];
  const body: HtmlCell[][] = [];
  const foot: HtmlCell[][] = [];
  let caption = '';
  for (const child of childrenOf(table)) {
    if (!isElement(child)) continue;
    if (child.tagName === 'caption') caption ||= textOf(child);
    else if (child.tagName === 'tr') body.push(rowOf(child, false));
    else if (child.tagName === 'thead' || child.tagName === 'tbody' || child.tagName === 'tfoot') {
      const into = child.tagName === 'thead' ? head : child.tagName === 'tfoot' ? foot : body;
      for (const tr of childrenOf(child)) if (isElement(tr) && tr.tagName === 'tr') into.push(rowOf(tr, child.tagName === 'thead'));
    }
  }
  return { caption: caption.replace(/\n/g, ' '), rows: [...head, ...body, ...foot], sections: [head.length, body.length, foot.length] };
}

function rowOf(tr: Element, inHead: boolean): HtmlCell[] {
  const cells: HtmlCell[] = [];
  for (const td of childrenOf(tr)) {
    if (!isElement(td) || (td.tagName !== 'td' && td.tagName !== 'th')) continue;
    const span = (name: string, min: number, max: number, fallback: number) => {
      const n = parseInt(attr(td, name) ?? '', 10);
      return Number.isNaN(n) ? fallback : Math.min(max, Math.max(min, n));
    };
    cells.push({ text: textOf(td), header: inHead || td.tagName === 'th', colspan: span('colspan', 1, MAX_COLSPAN, 1), rowspan: span('rowspan', 0, MAX_ROWSPAN, 1) });
  }
  return cells;
}

/** The text content of an element, whitespace collapsed, line breaks where the page breaks lines. */
function textOf(e: Element): string {
  const parts: string[] = [];
  const stack: (Node | '\n')[] = [...childrenOf(e)].reverse();
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n === '\n') {
      parts.push('\n');
      continue;
    }
    if (n.nodeName === '#text') parts.push((n as { value: string }).value.replace(/[ \t\n\f\r]+/g, ' '));
    if (!isElement(n) || SKIPPED.has(n.tagName) || n.tagName === 'table') continue;
    if (n.tagName === 'br') {
      parts.push('\n');
      continue;
    }
    const breaks = BREAKS.has(n.tagName);
    if (breaks) stack.push('\n');
    const kids = childrenOf(n);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    if (breaks) stack.push('\n');
  }
  return parts
    .join('')
    .split('\n')
    .map((line) => line.trim())
    .filter((line, i, lines) => line !== '' || (i > 0 && i < lines.length - 1 && lines[i - 1] !== ''))
    .join('\n')
    .trim();
}

/** The table's grid: each cell's value in the first cell of its span, the spans as merged ranges. */
function layOut(t: HtmlTable, detect: boolean): { rows: Row[]; merges: CellRange[] } {
  const rows: Row[] = [];
  const merges: CellRange[] = [];
  const taken: Set<number>[] = [];
  const typing = { decimalComma: false };
  let sectionEnd = 0;
  let section = 0;
  for (let r = 0; r < t.rows.length; r++) {
    while (r >= sectionEnd && section < t.sections.length) sectionEnd += t.sections[section++];
    const row: Row = (rows[r] ??= []);
    const busy = (taken[r] ??= new Set());
    let c = 0;
    for (const cell of t.rows[r]) {
      while (busy.has(c)) c++;
      const value: Cell = cell.text === '' ? null : detect && !cell.header ? detectType(cell.text, typing) : cell.text;
      row[c] = value;
      const bottom = cell.rowspan === 0 ? sectionEnd - 1 : Math.min(sectionEnd - 1, r + cell.rowspan - 1);
      const right = c + cell.colspan - 1;
      if (bottom > r || right > c) merges.push({ top: r, left: c, bottom, right });
      for (let rr = r; rr <= bottom; rr++) for (let cc = c; cc <= right; cc++) (taken[rr] ??= new Set()).add(cc);
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

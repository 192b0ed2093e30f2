// The GFM pipe tables of a Markdown document, one sheet per table in document order (tools.md
// markdown-to-excel). The document is parsed by marked (CommonMark + GFM tables; chosen by measurement: a
// 20,000-row table in 1–2 s, against 33–46 s for mdast-util-from-markdown with micromark's GFM table
// extension), so tables are found where GFM finds them: inside block quotes and list items, never inside code
// blocks. Raw HTML is text to drop, links and images are never followed (tools.md §2.11).
//
// A cell is reduced to its text (emphasis and code marks dropped, a link its text, an image its alt text, tags
// removed, `<br>` a line break, entities and backslash escapes decoded), or with `keep` kept as written but for
// escaped pipes and `<br>`. GFM drops the cells of a row past the header's count; they are kept here in extra
// columns, with a warning. The sheet is named after the nearest heading above the table, else `Tabla N`.
import { decodeHTML } from 'entities';
import { Lexer, type Token, type Tokens } from 'marked';
import { ArrayTable } from '../batch.ts';
import type { BookReader, SheetRead } from '../book.ts';
import { detectType } from '../csv/detect-type.ts';
import { decodeText } from '../csv/read.ts';
import { FormatError } from '../errors.ts';
import type { Cell, FormatContext, Row, SourceFile, Table, TextEncodingName } from '../model.ts';

/** Block quotes nested deeper than this are refused: marked descends into each level recursively. */
export const MARKDOWN_MAX_DEPTH = 256;

export interface MarkdownReadOptions {
  /** Cells as written (only escaped pipes and `<br>` undone). */
  keep: boolean;
}

interface MdTable {
  heading: string | null;
  header: string[];
  rows: string[][];
  /** Rows with cells past the header's count, and the first of them (0-based body row). */
  long: number;
  firstLong: number;
}

export class MarkdownReader implements BookReader {
  readonly format = 'markdown' as const;
  readonly sheets: { name: string; visibility: 'visible' }[];
  readonly encoding: TextEncodingName;
  private readonly tables: MdTable[];

  constructor(
    private readonly file: SourceFile,
    ctx: FormatContext,
    o: MarkdownReadOptions,
  ) {
    const { text, encoding } = decodeText(file.bytes);
    if (!encoding.startsWith('utf-16') && text.includes('\u0000')) throw new FormatError('binary', 'NUL bytes in a Markdown file');
    this.encoding = encoding;
    this.tables = tablesOf(parse(text), o.keep);
    if (this.tables.length === 0) throw new FormatError('no-table', 'no GFM table');
    this.sheets = this.tables.map((t, i) => ({ name: t.heading || ctx.name('table', { n: i + 1 }), visibility: 'visible' }));
  }

  table(i: number, read: SheetRead): Table {
    const t = this.tables[i];
    const name = this.sheets[i].name;
    const width = t.rows.reduce((w, r) => Math.max(w, r.length), t.header.length);
    const typing = { decimalComma: true };
    const rows: Row[] = t.rows.map((r) => {
      const row: Row = new Array<Cell>(width);
      for (let c = 0; c < width; c++) {
        const text = r[c] ?? '';
        if (text !== '') read.cells.used++;
        row[c] = text === '' ? null : read.detectTypes ? detectType(text, typing) : text;
      }
      return row;
    });
    read.cells.used += t.header.filter((h) => h !== '').length;
    if (read.cells.used > read.cells.max) throw new FormatError('cells', 'cell limit', { params: { reason: 'cells', max: read.cells.max } });
    if (t.long > 0) read.report('warning', 'markdown_extra_cells', { sheet: name, count: t.long, row: t.firstLong + 3, columns: width - t.header.length });
    const header = [...t.header, ...Array.from({ length: width - t.header.length }, (_, k) => read.ctx.name('column', { n: t.header.length + k + 1 }))];
    if (!read.hasHeader) return new ArrayTable({ name, header: null }, [header, ...rows]);
    return new ArrayTable({ name, header }, rows);
  }
}

function parse(text: string): Token[] {
  // The deepest block quote a line opens, before marked recurses into it.
  for (const m of text.matchAll(/^[ \t]*(?:>[ \t]*){257,}/gm)) throw new FormatError('too-deep', `block quotes nested past ${MARKDOWN_MAX_DEPTH}`, { params: { max: MARKDOWN_MAX_DEPTH, where: m.index } });
  try {
    return new Lexer({ gfm: true }).lex(text);
  } catch (err) {
    if (err instanceof RangeError) throw new FormatError('too-deep', 'nesting too deep for the parser', { params: { max: MARKDOWN_MAX_DEPTH } });
    throw err;
  }
}

/** Every table in document order, each with the text of the last heading before it. */
function tablesOf(tokens: Token[], keep: boolean): MdTable[] {
  const out: MdTable[] = [];
  let heading: string | null = null;
  const stack: Token[] = [...tokens].reverse();
  while (stack.length > 0) {
    const t = stack.pop()!;
    if (t.type === 'heading') heading = inlineText((t as Tokens.Heading).tokens).replace(/\s+/g, ' ').trim() || null;
    else if (t.type === 'table') out.push(readTable(t as Tokens.Table, heading, keep));
    else if (t.type === 'blockquote' || t.type === 'list_item') push(stack, (t as Tokens.Blockquote).tokens);
    else if (t.type === 'list') push(stack, (t as Tokens.List).items);
  }
  return out;
}

function push(stack: Token[], children: readonly Token[] | undefined): void {
  if (!children) return;
  for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
}

const BR = /<br\s*\/?>/gi;

function cellText(cell: { text: string; tokens: Token[] }, keep: boolean): string {
  return keep ? cell.text.replace(BR, '\n') : inlineText(cell.tokens).trim();
}

function readTable(t: Tokens.Table, heading: string | null, keep: boolean): MdTable {
  const header = t.header.map((c) => cellText(c, keep));
  const rows = t.rows.map((r) => r.map((c) => cellText(c, keep)));
  // marked drops a row's cells past the header's count, as GFM renderers do: they are taken from the raw row.
  const lines = t.raw.replace(/\n+$/, '').split('\n').slice(2);
  let long = 0;
  let firstLong = -1;
  if (lines.length === rows.length) {
    lines.forEach((line, r) => {
      const cells = splitCells(line);
      if (cells.length <= header.length) return;
      for (const extra of cells.slice(header.length)) {
        const text = extra.replace(/\\\|/g, '|');
        rows[r].push(keep ? text.replace(BR, '\n') : inlineText(Lexer.lexInline(text, { gfm: true })).trim());
      }
      long++;
      if (firstLong < 0) firstLong = r;
    });
  }
  return { heading, header, rows, long, firstLong };
}

/** A table row's cells as GFM cuts them: at pipes not escaped by an odd run of backslashes, outer pipes dropped. */
function splitCells(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let slashes = 0;
  for (const ch of line.trim()) {
    if (ch === '|' && slashes % 2 === 0) {
      cells.push(cell);
      cell = '';
    } else cell += ch;
    slashes = ch === '\\' ? slashes + 1 : 0;
  }
  cells.push(cell);
  if (cells[0].trim() === '') cells.shift();
  if (cells.length > 0 && cells[cells.length - 1].trim() === '') cells.pop();
  return cells.map((c) => c.trim());
}

/** The text inline tokens show, as tools.md says markup is reduced. */
function inlineText(tokens: readonly Token[] | undefined): string {
  if (!tokens) return '';
  let out = '';
  const stack: Token[] = [...tokens].reverse();
  while (stack.length > 0) {
    const t = stack.pop()!;
    switch (t.type) {
      case 'text': {
        const text = t as Tokens.Text;
        if (text.tokens && text.tokens.length > 0) push(stack, text.tokens);
        else out += decodeHTML(text.text);
        break;
      }
      case 'escape':
      case 'codespan':
        out += (t as Tokens.Escape).text;
        break;
      case 'image':
        out += decodeHTML((t as Tokens.Image).text);
        break;
      case 'br':
        out += '\n';
        break;
      case 'html':
        if (/^<br\s*\/?>$/i.test((t as Tokens.HTML).text.trim())) out += '\n';
        break;
      default:
        if ('tokens' in t && Array.isArray(t.tokens)) push(stack, t.tokens as Token[]);
        else if ('text' in t && typeof t.text === 'string') out += decodeHTML(t.text);
    }
  }
  return out;
}

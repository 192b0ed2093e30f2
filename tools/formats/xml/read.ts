// An XML document as one table (xml-to-excel, tools.md §5): one row per repeated element, one column per
// descendant element or attribute, named by its path from the row element (`direccion.ciudad`).
//
// Parsed by saxes (a well-kept, conformant, streaming parser; README "Benchmark" has the comparison with sax
// and fast-xml-parser), never by a hand-written scan: well-formedness errors give the line and column. A DTD is
// never processed (a DOCTYPE is refused when the parser reports it, before any entity could be used; saxes
// itself expands none but the five predefined ones and character references, and loads nothing). Nesting is
// bounded at 256 levels; the parser keeps its open elements in an array, never on the call stack.
//
// The automatic row element (the name at the smallest depth that occurs twice under one parent; ties to more
// occurrences at that depth, then the first) needs the whole document before the first row is known. One pass
// does both in the usual case: the root's children are read as rows of their own name while the counts are
// kept, and a second pass is made only when the choice is deeper, is the root, or also occurs outside such
// children.
import { isUtf8 } from 'node:buffer';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { ArrayTable } from '../batch.ts';
import type { BookReader, SheetRead } from '../book.ts';
import { baseNameOf, decodeText, decodeWindows1252, guessUtf16 } from '../csv/read.ts';
import { detectType } from '../csv/detect-type.ts';
import { FormatError } from '../errors.ts';
import type { Cell, FormatContext, Row, SourceFile, Table, TextEncodingName } from '../model.ts';
import { uniqueNames } from '../table/names.ts';

export const XML_MAX_DEPTH = 256;
/** Columns one speculative row of the root's children may open before it is taken for a wrapper, not a row. */
const WRAPPER_COLUMNS = 10_000;

export interface XmlReadOptions {
  /** Name of the row elements (local name, or `prefix:name`); empty: chosen automatically. */
  rowElement?: string;
  /** Attributes become columns. Default true. */
  attributes?: boolean;
}

/** Which elements are rows: by name and depth (the root is at depth 1). */
type RowTest = (name: string, depth: number) => boolean;

/**
 * A path from the row element, met in some row: its element column and its attribute columns, and its child
 * paths by name and occurrence. Rows share these nodes, so that an element costs no string once its path is
 * known (a row of ten children made ten paths and ten keys per row before: half the read).
 */
interface PathNode {
  /** '' for the row element itself. */
  path: string;
  /** The element's column; -1 until registered. */
  col: number;
  attrs: Map<string, number> | null;
  /** Children by name: the k-th occurrence under one parent element is nodes[k] (`name`, `name_2`…). */
  kids: Map<string, { parent: number; n: number; nodes: PathNode[] }> | null;
}

const pathNode = (path: string): PathNode => ({ path, col: -1, attrs: null, kids: null });

/** One open element inside a row; reused by depth. */
interface Frame {
  node: PathNode;
  /** Tells this element from earlier ones at the same depth (occurrence counts restart under a new parent). */
  id: number;
  text: string;
  children: number;
}

/**
 * Rows of one kind of row element, as they are read: columns by key, in order of first appearance. A value is
 * typed (`detect`) as it is set, so that a row never exists as texts and again as cells.
 */
class Collector {
  readonly rows: (Cell | undefined)[][] = [];
  private readonly keys: string[] = [];
  private readonly order: number[] = [];
  private readonly root = pathNode('');
  private selfCol = -1;
  private readonly frames: Frame[] = [];
  private depth = 0;
  private row: (Cell | undefined)[] = [];
  /** False once a speculative kind looks like a wrapper rather than a row (too many columns): given up. */
  alive = true;
  cells = 0;

  constructor(
    readonly name: string,
    private readonly attributes: boolean,
    private readonly detect: boolean,
    private readonly seq: { n: number },
    /** Read on the chance that the census chooses it (the root's children). */
    private readonly speculative: boolean,
  ) {}

  get inside(): boolean {
    return this.depth > 0;
  }

  private col(key: string): number {
    const c = this.keys.length;
    this.keys.push(key);
    this.order.push(this.seq.n++);
    if (this.speculative && c >= WRAPPER_COLUMNS) this.alive = false;
    return c;
  }

  open(tag: SaxesTagPlain, id: number): void {
    let node: PathNode;
    if (this.depth > 0) {
      const parent = this.frames[this.depth - 1];
      parent.children++;
      const kids = (parent.node.kids ??= new Map());
      let kid = kids.get(tag.name);
      if (kid === undefined) kids.set(tag.name, (kid = { parent: -1, n: 0, nodes: [] }));
      if (kid.parent !== parent.id) {
        kid.parent = parent.id;
        kid.n = 0;
      }
      const k = kid.n++;
      node = kid.nodes[k] ??= pathNode(childPath(parent.node.path, k > 0 ? `${tag.name}_${k + 1}` : tag.name));
      // The element's column takes its place at the start tag (it gets a value at the end tag, if at all; a
      // column never given one is dropped). The row's own text takes its place where it first shows.
      if (node.col < 0) node.col = this.col('e\u0000' + node.path);
    } else {
      node = this.root;
      // As wide as the columns seen so far (up to a bound: a kind whose every row opens a column of its own
      // must not cost each row the width of all): most rows then hold their cells with no room to spare.
      this.row = new Array<Cell | undefined>(Math.min(this.keys.length, PREALLOCATED_COLUMNS));
    }
    if (this.attributes) {
      const attrs = tag.attributes as Record<string, string>;
      for (const name in attrs) {
        if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
        const known = (node.attrs ??= new Map());
        let c = known.get(name);
        if (c === undefined) known.set(name, (c = this.col(`a\u0000${node.path}\u0000${name}`)));
        this.set(c, attrs[name]);
      }
    }
    const f = (this.frames[this.depth] ??= { node, id, text: '', children: 0 });
    f.node = node;
    f.id = id;
    f.text = '';
    f.children = 0;
    this.depth++;
  }

  text(s: string): void {
    this.frames[this.depth - 1].text += s;
    if (this.depth === 1 && this.selfCol < 0 && s.trim() !== '') this.selfCol = this.col('s\u0000');
  }

  /** The end tag of an open element; true when it ended the row. */
  close(): boolean {
    const f = this.frames[--this.depth];
    const text = f.text.trim();
    if (this.depth === 0) {
      if (text !== '') this.set(this.selfCol, text);
      this.rows.push(this.row);
      return true;
    }
    if (f.children === 0 || text !== '') this.set(f.node.col, text);
    return false;
  }

  /** An empty value is null, not undefined: its column is used (an empty element is a column of its own). */
  private set(c: number, value: string): void {
    if (value === '') {
      this.row[c] = null;
      return;
    }
    if (this.row[c] == null) this.cells++;
    const cell = this.detect ? detectType(value, TYPING) : value;
    this.row[c] = typeof cell === 'string' ? own(cell) : cell;
  }

  /** Titles and rows, columns in order of first appearance; columns never given a value are dropped. */
  table(): { header: string[]; rows: Row[] } {
    const used = this.keys.map(() => false);
    for (const r of this.rows) for (let c = 0; c < r.length; c++) if (r[c] !== undefined) used[c] = true;
    const cols = this.keys.map((_, c) => c).filter((c) => used[c]).sort((a, b) => this.order[a] - this.order[b] || a - b);
    const elements = new Set(cols.flatMap((c) => (this.keys[c][0] === 'e' ? [this.keys[c].slice(2)] : [])));
    const titles = cols.map((c) => {
      const [kind, path, attr] = this.keys[c].split('\u0000');
      if (kind === 'e') return path;
      if (kind === 's') return this.name;
      const plain = childPath(path, attr);
      return elements.has(plain) ? childPath(path, '@' + attr) : plain;
    });
    const header = uniqueNames(titles, (t, n) => `${t} (${n})`).names;
    // Most documents use every column they open, in the order opened: a row as wide as the table is then
    // filled where it is; any other is made anew at the table's width.
    const same = cols.every((c, i) => c === i);
    const rows = this.rows as Row[];
    for (let i = 0; i < rows.length; i++) {
      const r = this.rows[i];
      if (same && r.length === cols.length) {
        for (let c = 0; c < r.length; c++) r[c] ??= null;
        continue;
      }
      const row = new Array<Cell>(cols.length);
      for (let x = 0; x < cols.length; x++) row[x] = r[cols[x]] ?? null;
      rows[i] = row;
    }
    return { header, rows };
  }
}

/** Cells a new row is made room for at once: about as many as a plain table's rows hold. */
const PREALLOCATED_COLUMNS = 256;

/** csv-to-excel's typing with no decimal comma, as for every markup format. */
const TYPING = { decimalComma: false };

/**
 * A value as a string of its own. saxes hands out slices of the piece of text it was reading, and V8 keeps a
 * whole piece alive for any slice of 13 characters or more: every piece of the document stayed with the rows
 * (35 MB of XML, 100,000 rows: 71 MB held after reading, 49 MB with values of their own).
 */
const own = (s: string) => (s.length < 13 ? s : (' ' + s).slice(1));

const childPath = (parent: string, seg: string) => (parent ? `${parent}.${seg}` : seg);

/**
 * What the automatic choice needs, per depth and name: the count, whether it repeats under one parent, the
 * first. A name repeats when it is met again under the same parent element (told by its id), with no map per
 * element.
 */
class Census {
  private readonly levels: Map<string, { name: string; count: number; repeats: boolean; first: number; parent: number }>[] = [];
  private n = 0;
  note(name: string, depth: number, parent: number): void {
    const level = (this.levels[depth] ??= new Map());
    let s = level.get(name);
    if (!s) level.set(name, (s = { name, count: 0, repeats: false, first: this.n++, parent: -1 }));
    s.count++;
    if (s.parent === parent) s.repeats = true;
    s.parent = parent;
  }
  /** The row element, or null when nothing repeats. */
  choice(): { name: string; depth: number } | null {
    for (let depth = 1; depth < this.levels.length; depth++) {
      let best: { name: string; count: number; first: number } | null = null;
      for (const s of this.levels[depth]?.values() ?? []) {
        if (s.repeats && (!best || s.count > best.count || (s.count === best.count && s.first < best.first))) best = s;
      }
      if (best) return { name: best.name, depth };
    }
    return null;
  }
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/** The row test of a given `row-element`: the local name, and the prefix too when one is given. */
function givenRowTest(wanted: string): RowTest {
  return wanted.includes(':') ? (name) => name === wanted : (name) => localName(name) === wanted;
}

function syntaxError(err: Error): FormatError {
  const m = /^(\d+):(\d+): ([^]*)$/.exec(err.message.slice(0, 500));
  const [line, column, detail] = m ? [Number(m[1]), Number(m[2]), m[3]] : [0, 0, err.message.slice(0, 200)];
  return new FormatError('xml-syntax', err.message, { params: { line, column, detail: detail.slice(0, 200) } });
}

interface Pass {
  /** Rows of the given test, or (test null) the root's children speculatively and the census. */
  test: RowTest | null;
  attributes: boolean;
  detect: boolean;
  cells: { used: number; max: number };
  signal?: AbortSignal;
}

interface PassResult {
  collectors: Map<string, Collector>;
  census: Census;
  /** Names met below the root's children and outside an element of their own name among them. */
  deep: Set<string>;
  root: string;
}

/**
 * The last parser that read a document to its end (which resets its state), kept with its handlers taken off:
 * nothing of its document stays reachable through it. A full collection with no parser alive let V8 drop the
 * parser's hidden classes, with what they had learnt of its fields; every parse then made them anew and
 * deoptimized saxes's code when a field took its second value, and after six such rounds V8 stopped optimizing
 * those functions for the process's life: xml-to-excel's 33.6 MB XML took 0.8-0.9 s a run, then 2.3-2.6 s
 * from the seventh (one thread, a full collection after each run).
 */
let kept: SaxesParser | null = null;
const NOTHING = () => {};
function keep(parser: SaxesParser): void {
  for (const event of ['doctype', 'opentag', 'text', 'cdata', 'closetag'] as const) parser.on(event, NOTHING);
  kept = parser;
}

/** One parse of the text, given in pieces. */
function parse(pieces: Iterable<string>, p: Pass): PassResult {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const seq = { n: 0 };
  const collectors = new Map<string, Collector>();
  const census = new Census();
  const deep = new Set<string>();
  // The id of the open element at each depth (0: the document): siblings share their parent's.
  const ids: number[] = [0];
  let lastId = 0;
  let current: Collector | null = null;
  let top = '';
  let root = '';
  const limit = () => {
    let used = 0;
    for (const c of collectors.values()) used += c.cells;
    if (p.cells.used + used > p.cells.max) throw new FormatError('cells', 'cell limit', { params: { reason: 'cells', max: p.cells.max } });
  };
  parser.on('doctype', () => {
    throw new FormatError('xml-dtd', 'XML with a DOCTYPE');
  });
  parser.on('opentag', (tag) => {
    const depth = ids.length;
    if (depth > XML_MAX_DEPTH) throw new FormatError('too-deep', 'XML nested too deep', { params: { max: XML_MAX_DEPTH } });
    const id = ++lastId;
    if (depth === 1) root = tag.name;
    if (p.test === null) {
      census.note(tag.name, depth, ids[depth - 1]);
      if (depth === 2) top = tag.name;
      else if (depth > 2 && tag.name !== top) deep.add(tag.name);
    }
    ids.push(id);
    if (current === null) {
      const starts = p.test === null ? depth === 2 : p.test(tag.name, depth);
      if (!starts) return;
      // Speculative rows are kept per name; rows of a test are one kind whatever their prefixes.
      const kind = p.test === null ? tag.name : '';
      current = collectors.get(kind) ?? null;
      if (current === null) collectors.set(kind, (current = new Collector(tag.name, p.attributes, p.detect, seq, p.test === null)));
    }
    if (current.alive) current.open(tag, id);
  });
  const onText = (s: string) => {
    if (current?.alive && current.inside) current.text(s);
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    ids.pop();
    if (current === null) return;
    if (!current.alive) {
      // A kind given up on is followed to the end of its element only (speculative kinds start at depth 2).
      if (ids.length === 2) current = null;
      return;
    }
    if (current.close()) {
      current = null;
      limit();
      if (p.signal?.aborted) throw p.signal.reason;
    }
  });
  try {
    for (const piece of pieces) parser.write(piece);
    parser.close();
  } catch (err) {
    if (err instanceof FormatError) throw err;
    if (err instanceof Error && !(err instanceof RangeError)) throw syntaxError(err);
    throw err;
  }
  keep(parser);
  // A wrapper given up on is no row kind at all.
  for (const [name, c] of collectors) if (!c.alive) collectors.delete(name);
  return { collectors, census, deep, root };
}

/** Declared encodings the tool accepts (tools.md §5), by their lowercase labels. */
const DECLARED: Record<string, 'utf-8' | 'windows-1252' | 'utf-16'> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'iso-8859-1': 'windows-1252',
  'iso8859-1': 'windows-1252',
  'iso_8859-1': 'windows-1252',
  latin1: 'windows-1252',
  'latin-1': 'windows-1252',
  l1: 'windows-1252',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
  'utf-16': 'utf-16',
  utf16: 'utf-16',
  'utf-16le': 'utf-16',
  'utf-16be': 'utf-16',
};

/**
 * The document's text: a BOM decides, then the encoding its declaration names (UTF-8, UTF-16, ISO-8859-1 and
 * windows-1252; ISO-8859-1 is read as windows-1252, as browsers do), then §2.2 (UTF-8 when valid, else
 * windows-1252). Any other declared encoding, UTF-8 declared over bytes that are not, or NUL bytes outside
 * UTF-16, is invalid_file. The text is null for valid UTF-8 without a BOM (most documents): textPieces decodes
 * it as each pass reads it, so that the document is never one string beside its bytes (two bytes a character
 * once one is past Latin-1).
 */
export function decodeXml(bytes: Uint8Array): { text: string | null; encoding: TextEncodingName } {
  const b = bytes;
  const bom = (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) || (b[0] === 0xff && b[1] === 0xfe) || (b[0] === 0xfe && b[1] === 0xff);
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const utf16 = bom ? (b[0] === 0xef ? null : 'bom') : guessUtf16(b);
  if (utf16 === null && buf.indexOf(0) >= 0) throw new FormatError('binary', 'NUL bytes in XML');
  if (!bom && utf16 === null) {
    // The declaration is ASCII by definition; it ends at the first `?>` within the first bytes.
    const head = buf.subarray(0, 256).toString('latin1');
    const declared = head.startsWith('<?xml') ? /^<\?xml[^?]*?\sencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1] : undefined;
    if (declared !== undefined) {
      const kind = DECLARED[declared.toLowerCase()];
      if (kind === undefined || kind === 'utf-16') throw new FormatError('xml-encoding', `encoding ${declared}`, { params: { encoding: declared.slice(0, 40) } });
      if (kind === 'windows-1252') return { text: decodeWindows1252(b), encoding: 'windows-1252' };
      if (!isUtf8(buf)) throw new FormatError('xml-encoding', 'declared UTF-8, not UTF-8', { params: { encoding: declared.slice(0, 40) } });
      return { text: null, encoding: 'utf-8' };
    }
    if (isUtf8(buf)) return { text: null, encoding: 'utf-8' };
  }
  const decoded = decodeText(b);
  return { text: decoded.text.replace(/^\uFEFF/, ''), encoding: decoded.encoding };
}

/** Characters the parser takes at a time from a decoded text: its own buffers stay small whatever the document. */
const PIECE = 1 << 20;
/**
 * Bytes of UTF-8 decoded at a time: a piece stays a young, short-lived string (larger strings are allocated
 * beside the old generation and stay until a full collection, as many as the document has pieces).
 */
const UTF8_PIECE = 1 << 15;

/** The text in pieces: slices of the decoded text, or (null) the bytes decoded as UTF-8 a piece at a time. */
function* textPieces(text: string | null, bytes: Uint8Array): Generator<string> {
  if (text !== null) {
    for (let i = 0; i < text.length; i += PIECE) yield text.slice(i, i + PIECE);
    return;
  }
  const decoder = new TextDecoder('utf-8');
  for (let i = 0; i < bytes.length; i += UTF8_PIECE) yield decoder.decode(bytes.subarray(i, i + UTF8_PIECE), { stream: true });
  const rest = decoder.decode();
  if (rest) yield rest;
}

export class XmlReader implements BookReader {
  readonly format = 'xml' as const;
  readonly sheets: { name: string; visibility: 'visible' }[];
  readonly encoding: TextEncodingName;
  private readonly text: string | null;

  constructor(
    private readonly file: SourceFile,
    private readonly ctx: FormatContext,
    private readonly o: XmlReadOptions,
  ) {
    const { text, encoding } = decodeXml(file.bytes);
    this.text = text;
    this.encoding = encoding;
    this.sheets = [{ name: baseNameOf(file.name), visibility: 'visible' }];
  }

  table(_i: number, read: SheetRead): Table {
    const attributes = this.o.attributes ?? true;
    const wanted = this.o.rowElement ?? '';
    const pass = (test: RowTest | null) => parse(textPieces(this.text, this.file.bytes), { test, attributes, detect: read.detectTypes, cells: read.cells, signal: this.ctx.signal });
    let rows: Collector | null;
    const only = (found: Map<string, Collector>) => found.get('')!;
    if (wanted !== '') {
      const found = pass(givenRowTest(wanted)).collectors;
      rows = found.get('') ?? null;
      if (rows === null) throw new FormatError('xml-row-element', 'row element not found', { params: { element: wanted } });
      read.report('info', 'xml_rows_given', { name: read.file, element: wanted, rows: rows.rows.length });
    } else {
      const first = pass(null);
      const chosen = first.census.choice();
      if (chosen === null) rows = only(pass((_, depth) => depth === 1).collectors);
      else if (chosen.depth === 2 && !first.deep.has(chosen.name) && first.collectors.has(chosen.name)) rows = first.collectors.get(chosen.name)!;
      else rows = only(pass((name, depth) => name === chosen.name && depth >= chosen.depth).collectors);
      read.report('info', chosen === null ? 'xml_rows_root' : 'xml_rows_auto', { name: read.file, element: rows.name, rows: rows.rows.length });
    }
    const { header, rows: data } = rows.table();
    if (header.length === 0) throw new FormatError('empty', 'no value in the XML');
    read.cells.used += rows.cells;
    if (read.cells.used > read.cells.max) throw new FormatError('cells', 'cell limit', { params: { reason: 'cells', max: read.cells.max } });
    return new ArrayTable({ name: this.sheets[0].name, header, titleCells: header }, data);
  }
}

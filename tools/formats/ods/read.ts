// An OpenDocument spreadsheet (.ods) reader: styles.xml and content.xml tokenized by the project's streaming
// XML scanner (xml/scan.ts: no DTD, no entity but the five and numeric references, depth and
// token bounds; bench/ods-xml.ts compares it with saxes) straight from the inflate stream of the guarded ZIP
// reader (zip/read.ts: entry count, overlaps, inflated size and ratio).
//
// What it gives, per table in order: name, hidden (table:display="false"), column widths (in Excel's character
// units), merged ranges (from number-columns/rows-spanned; covered cells keep any value they hold), and the
// rows from the first to the last one with a value. Repeated rows and cells are never expanded past the last
// non-empty cell: an empty row repeated a million times costs a counter, not a million rows. Cells:
// float/currency → number, percentage → number, date → Date (UTC), time → a Date on 1899-12-30 (a time of
// day; 24 hours or more stays a number of days), boolean, string (text:p as lines, text:s spaces, text:tab,
// text:line-break; annotations left out), an error LibreOffice cached (calcext:value-type="error") → CellError.
// A number or date whose data style has an Excel code (number-styles.ts) comes as a FullCell with that format;
// a formula gives its cached value. Cells past `maxCells` (the tables read, each counted once) → FormatError
// 'cells'.
//
// Nothing is held whole (OdsBook): the package is opened (styles, and the tables' names and visibility, found
// in content.xml's bytes), and a table is read when asked for, its rows handed on in batches as content.xml is
// inflated and scanned; a scan pauses after that table and goes on from there for the next.
import { damaged, FormatError, NeedsFallback, passwordProtected } from '../errors.ts';
import { BATCH_ROWS, CellError, FullCell, type AnyCell, type CellRange } from '../model.ts';
import { AttrCursor, decodeEntities, nameIs, XmlScanner, type XmlHandler } from '../xml/scan.ts';
import { inflateChunks, inflateEntry, inflateWhole, InflateBudget, openZip, type ZipArchive, type ZipEntry } from '../zip/read.ts';
import { excelCodeOf, type StylePart } from './number-styles.ts';
import { TableTags } from './table-tags.ts';
import { INCHES_PER_CHAR } from './write.ts';

const BOOLEAN_FORMULA = /^(of:)?=(TRUE|FALSE)\(\)$/i;
/** A cell whose value is its text. */
const NEEDS_TEXT = Symbol('text');
/** Value types as their strings, matched on the bytes (no string made per cell). */
const TYPES = ['float', 'string', 'date', 'boolean', 'time', 'currency', 'percentage', 'error', 'void'];

const MIMETYPE = 'application/vnd.oasis.opendocument.spreadsheet';
export const MAX_ROWS = 1_048_576;
export const MAX_COLUMNS = 16_384;
const DAY_MS = 86_400_000;
const EPOCH_1900 = Date.UTC(1899, 11, 30);

/** A table of the package, as its start tag says. */
export interface OdsTable {
  name: string;
  hidden: boolean;
}

export interface OdsSheet extends OdsTable {
  columnWidths: (number | undefined)[];
  merges: CellRange[];
  /** Cells holding a formula: their cached values are read, the formulas are not. */
  formulas: number;
  /** One batch: the rows, from the first to the last with a value; each row ends at its last value. */
  rows: AnyCell[][][];
}

export interface OdsRead {
  sheets: OdsSheet[];
}

/** Every table of the package read whole. */
export function readOds(bytes: Uint8Array, o: { maxCells?: number } = {}): OdsRead {
  return verdicts(() => {
    const book = new OdsBook(bytes, o.maxCells ?? 2_000_000);
    return { sheets: book.tables.map((_, i) => book.whole(i)) };
  });
}

/** The ZIP reader's doubts are verdicts here: an ODS has no other reader to fall back on. */
export function verdicts<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof NeedsFallback) throw damaged(err.message);
    throw err;
  }
}

/** One pass over content.xml: pulled a chunk at a time, paused after the table it was asked for. */
interface Pass {
  chunks: Iterator<Uint8Array>;
  scanner: XmlScanner;
  handler: OdsHandler;
  paused: boolean;
  ended: boolean;
  /** The first table the pass can still read: -1 while a read is under way (or was left halfway). */
  next: number;
}

/**
 * An opened package: its styles read, its tables' names and visibility known (found in content.xml's bytes,
 * see findTables), and each table read when asked for, its rows handed on as content.xml is inflated and
 * scanned. Tables asked for in order are read in one pass; one asked for again (or out of order) starts
 * another. Cells count against the limit once per table, however often it is read.
 */
export class OdsBook {
  readonly tables: OdsTable[];
  private readonly zip: ZipArchive;
  private readonly content: ZipEntry;
  private readonly inflate = new InflateBudget();
  /** Inflated bytes of the parts read at opening. */
  private readonly partsBytes: number;
  /** The handler that read styles.xml: each pass starts from its styles. */
  private readonly styles: OdsHandler;
  /** Cells each table's last read counted. */
  private readonly spent: number[];
  private pass: Pass | null = null;

  constructor(
    bytes: Uint8Array,
    private readonly maxCells: number,
  ) {
    this.zip = openZip(bytes);
    const zip = this.zip;
    const whole = (name: string) => {
      const e = zip.get(name);
      return e ? Buffer.from(inflateWhole(zip, e, this.inflate)) : null;
    };
    const type = whole('mimetype')?.toString('latin1').trim();
    if (type !== MIMETYPE) throw damaged(type ? `an OpenDocument of type ${type}` : 'no ODF mimetype');
    const manifest = whole('META-INF/manifest.xml')?.toString('utf8') ?? '';
    if (manifest.includes('encryption-data')) throw passwordProtected('an encrypted package');
    this.styles = new OdsHandler();
    const styles = zip.get('styles.xml');
    if (styles) {
      const x = new XmlScanner(this.styles);
      inflateEntry(zip, styles, this.inflate, (c) => x.push(c));
      x.end();
    }
    const content = zip.get('content.xml');
    if (!content) throw damaged('no content.xml');
    this.content = content;
    this.partsBytes = this.inflate.used;
    this.tables = this.findTables();
    this.spent = this.tables.map(() => 0);
  }

  /** Table `i` read whole. */
  whole(i: number): OdsSheet {
    const rows: AnyCell[][] = [];
    const read = this.read(i);
    for (;;) {
      const next = read.next();
      if (next.done) return { ...next.value, rows: [rows] };
      for (const r of next.value) rows.push(r);
    }
  }

  /**
   * Table `i`'s rows in sheet coordinates (the first is the sheet's first row, each row ends at its last value;
   * empty rows inside are empty arrays, trailing ones left out), in batches of at most BATCH_ROWS; returns the
   * table (widths trimmed to the used columns, merges, formulas) once they are all read.
   */
  *read(i: number): Generator<AnyCell[][], Omit<OdsSheet, 'rows'>> {
    let p = this.pass;
    // A pass goes on after the table it last read whole; any other read starts again.
    if (p === null || p.ended || p.next < 0 || p.next > i) p = this.pass = this.start();
    p.next = -1;
    const h = p.handler;
    h.want = i;
    h.done = null;
    h.counter = { used: this.spent.reduce((n, c, j) => (j === i ? n : n + c), 0), max: this.maxCells };
    const base = h.counter.used;
    const runs = h.out;
    let taken = 0;
    let batch: AnyCell[][] = [];
    /** The runs read so far, made rows; batches full, handed on. */
    const take = function* (): Generator<AnyCell[][]> {
      for (; taken < runs.length; taken++) {
        const run = runs[taken];
        for (let k = 0; k < run.repeat; k++) {
          batch.push(run.cells === null ? [] : k === 0 ? run.cells : run.cells.slice());
          if (batch.length >= BATCH_ROWS) {
            yield batch;
            batch = [];
          }
        }
      }
      runs.length = 0;
      taken = 0;
    };
    if (p.paused) {
      p.paused = false;
      p.scanner.resume();
    }
    while (h.done === null && !p.ended) {
      yield* take();
      this.step(p);
    }
    yield* take();
    if (batch.length > 0) yield batch;
    const sheet = h.done as OdsSheet | null;
    if (sheet === null) throw new Error(`ods: table ${i + 1} not found where the package was found to hold it`);
    this.spent[i] = h.counter.used - base;
    p.next = i + 1;
    // After the last table, the part is read to its end: its size and CRC are checked there.
    if (i === this.tables.length - 1) {
      p.paused = false;
      p.scanner.resume();
      while (!p.ended) this.step(p);
      if (h.found.length !== this.tables.length) throw new Error('ods: more tables than the package was found to hold');
    }
    const { rows: _, ...rest } = sheet;
    return rest;
  }

  /** A new pass over content.xml, its inflated bytes counted once (each pass reads the part again). */
  private start(): Pass {
    this.inflate.used = this.partsBytes;
    const handler = OdsHandler.after(this.styles);
    handler.expected = this.tables;
    const scanner = new XmlScanner(handler);
    const p: Pass = { chunks: inflateChunks(this.zip, this.content, this.inflate), scanner, handler, paused: false, ended: false, next: 0 };
    handler.onDone = () => {
      p.paused = true;
      scanner.pause();
    };
    return p;
  }

  /** Scans the pass's next chunk; at the end of the part, checks that nothing was left cut. */
  private step(p: Pass): void {
    const next = p.chunks.next();
    if (next.done) {
      p.scanner.end();
      p.ended = true;
    } else p.scanner.push(next.value);
  }

  /**
   * The tables, from content.xml: its head (the automatic styles, which say which tables are hidden) is
   * scanned; from office:body on, table start tags are found by their bytes (findTableTags), about a tenth of
   * the time a scan takes. Where the bytes could mislead (a comment, CDATA, a processing instruction or a
   * table inside a table in the body), the whole part is scanned instead, skipping the cells.
   */
  private findTables(): OdsTable[] {
    this.inflate.used = this.partsBytes;
    const head = OdsHandler.after(this.styles);
    head.stopAtBody = true;
    const scanner = new XmlScanner(head);
    const chunks = inflateChunks(this.zip, this.content, this.inflate);
    const finder = new TableTags();
    let body = false;
    for (;;) {
      const next = chunks.next();
      if (next.done) break;
      if (body) finder.push(Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength), 0);
      else {
        try {
          scanner.push(next.value);
        } catch (err) {
          if (!(err instanceof BodyStart)) throw err;
          body = true;
          finder.push(err.b, err.at);
        }
      }
      if (finder.unsure) break;
    }
    if (body && !finder.unsure) {
      finder.end();
      if (!finder.unsure) return finder.tags.map((t, k) => ({ name: t.name ?? `Sheet${k + 1}`, hidden: head.hiddenStyles.has(t.style ?? '') }));
    }
    // Scanned whole: the handler meets the tables as every read will.
    chunks.return?.(undefined);
    this.inflate.used = this.partsBytes;
    const all = OdsHandler.after(this.styles);
    const x = new XmlScanner(all);
    inflateEntry(this.zip, this.content, this.inflate, (c) => x.push(c));
    x.end();
    return all.found;
  }
}

const attr = new AttrCursor();

/** Every attribute of a tag by local name (values decoded): ODS tags carry a handful. */
function attrs(b: Buffer, s: number, e: number): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  attr.reset(b, s, e);
  while (attr.next()) out[b.toString('latin1', attr.ns, attr.ne)] = attr.value();
  return out;
}

/** The value of one attribute by local name (the last one when repeated, as attrs() keeps it). */
function attrValue(b: Buffer, s: number, e: number, name: string): string | undefined {
  let out: string | undefined;
  attr.reset(b, s, e);
  while (attr.next()) if (attr.is(name)) out = attr.value();
  return out;
}

/** A value-type's string when its bytes spell a known one. */
function typeName(b: Buffer, s: number, e: number): string | undefined {
  for (const t of TYPES) if (nameIs(b, s, e, t)) return t;
  return undefined;
}

/** Whether text bytes decode to themselves and hold no whitespace ODF collapses (a tab, a line end, two spaces). */
function plainText(b: Buffer, s: number, e: number): boolean {
  for (let k = s; k < e; k++) {
    const c = b[k];
    if (c === 0x26 || c === 0x09 || c === 0x0a || c === 0x0d || (c === 0x20 && k + 1 < e && b[k + 1] === 0x20)) return false;
  }
  return true;
}

/**
 * Runs of whitespace as one space. Text without any is returned as it is: the replace made a new string of
 * every text with an entity (a tree of pieces, not one string: 100,000 rows with `&quot;` in a column held
 * 60 MB, 41 MB without).
 */
const collapsed = (s: string) => (/[\t\r\n]| {2}/.test(s) ? s.replace(/[\t\r\n ]+/g, ' ') : s);

/** Whether b[s, s + n) equals last[0, n) (a loop: Buffer.compare with offsets costs more on a few bytes). */
function sameBytes(b: Buffer, s: number, last: Buffer, n: number): boolean {
  for (let k = 0; k < n; k++) if (b[s + k] !== last[k]) return false;
  return true;
}

/** An attribute's value: bytes without a reference are their text as they are. */
function valueOf(a: AttrCursor, b: Buffer): string {
  for (let k = a.vs; k < a.ve; k++) if (b[k] === 0x26) return a.value();
  return b.toString('utf8', a.vs, a.ve);
}

/** A count from a repeat attribute: at least 1, never more than `max`. */
function count(v: string | undefined, max: number): number {
  const n = v === undefined ? 1 : Number.parseInt(v, 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, max) : 1;
}

/** Rows handed on by the handler: `cells` (null: an empty row) `repeat` times, in order. */
interface RowRun {
  cells: AnyCell[] | null;
  repeat: number;
}

/** Where the handler found office:body, when asked to stop there (the tables are then found by their bytes). */
class BodyStart {
  constructor(
    readonly b: Buffer,
    readonly at: number,
  ) {}
}

class OdsHandler implements XmlHandler {
  /** Every table met (outside cells), in order. */
  readonly found: OdsTable[] = [];
  /** The table to read (by position); the others are skipped, their cells neither valued nor counted. */
  want = -1;
  /** The tables the package was found to hold: a table met that is not the one expected is a fault. */
  expected: readonly OdsTable[] | null = null;
  /** Raised by office:body's start tag, when set. */
  stopAtBody = false;
  /** The wanted table, once its end is read; `onDone` is told then. */
  done: OdsSheet | null = null;
  onDone: () => void = () => {};
  /** Cells read, against the limit: shared by the file's tables. */
  counter = { used: 0, max: 0 };
  /** Rows of the wanted table read and not yet taken, from `taken` on. */
  readonly out: RowRun[] = [];
  private reading = false;
  private emitted = 0;
  private widest = 0;
  readonly hiddenStyles = new Set<string>();
  private readonly columnWidthByStyle = new Map<string, number>();
  private readonly dataStyleOfCell = new Map<string, string>();
  private readonly codes = new Map<string, string | null>();
  /** The data style being read: its element, name and parts. */
  private dataStyle: { element: string; name: string; parts: StylePart[] } | null = null;
  private part: StylePart | null = null;

  // The table being read.
  private sheet: OdsSheet | null = null;
  private column = 0;
  private row = 0;
  private rowRepeat = 1;
  private cellsOfRow: AnyCell[] = [];
  private pendingEmptyRows = 0;
  // The cell being read: its attributes (by local name, the last of a name winning), and its value when the
  // attributes alone give it (NEEDS_TEXT when it comes from the text, which is only then gathered).
  private inCell = false;
  private type: string | undefined = undefined;
  private value: string | undefined = undefined;
  private dateValue: string | undefined = undefined;
  private timeValue: string | undefined = undefined;
  private booleanValue: string | undefined = undefined;
  private stringValue: string | undefined = undefined;
  private styleName: string | undefined = undefined;
  private formula: string | undefined = undefined;
  private colSpan: string | undefined = undefined;
  private rowSpan: string | undefined = undefined;
  private preset: AnyCell | typeof NEEDS_TEXT = NEEDS_TEXT;
  /** The last cell style seen, as bytes, and its number format: most cells of a column share one. */
  private lastStyle = Buffer.alloc(64);
  private lastStyleLen = -1;
  private lastStyleName: string | undefined = undefined;
  private lastCode: string | null = null;
  private cellRepeat = 1;
  private chars: string[] = [];
  private paragraphs = 0;
  private inParagraph = false;
  /** Depth inside an annotation, whose text is no cell text. */
  private annotation = 0;

  /** A handler for one pass over content.xml, knowing the styles of styles.xml already read by `styles`. */
  static after(styles: OdsHandler): OdsHandler {
    const h = new OdsHandler();
    for (const x of styles.hiddenStyles) h.hiddenStyles.add(x);
    for (const [k, v] of styles.columnWidthByStyle) h.columnWidthByStyle.set(k, v);
    for (const [k, v] of styles.dataStyleOfCell) h.dataStyleOfCell.set(k, v);
    for (const [k, v] of styles.codes) h.codes.set(k, v);
    return h;
  }

  // The tag being handled, for is(): a closure made per element costs more than the rest of the handler (tsx
  // names every function it creates), measured on a 100,000-row file.
  private tb: Buffer = Buffer.alloc(0);
  private tln = 0;
  private tle = 0;

  private is(n: string): boolean {
    return nameIs(this.tb, this.tln, this.tle, n);
  }

  open(b: Buffer, ln: number, le: number, ae: number): void {
    this.tb = b;
    this.tln = ln;
    this.tle = le;
    if (this.annotation > 0) {
      this.annotation++;
      return;
    }
    if (this.inCell) {
      if (!this.reading) return;
      if (this.is('annotation')) this.annotation = 1;
      else if (this.is('p') || this.is('h')) {
        if (this.paragraphs++ > 0) this.chars.push('\n');
        this.inParagraph = true;
      } else if (this.is('s')) this.chars.push(' '.repeat(count(attrValue(b, le, ae, 'c'), 32_767)));
      else if (this.is('tab')) this.chars.push('\t');
      else if (this.is('line-break')) this.chars.push('\n');
      return;
    }
    if (this.is('table-cell') || this.is('covered-table-cell')) {
      if (this.reading) this.openCell(b, le, ae);
      else this.inCell = true;
      return;
    }
    if (!this.reading) {
      if (this.is('table')) this.openTable(b, le, ae);
      else if (this.is('table-row') || this.is('table-column')) return;
      else if (this.stopAtBody && this.is('body')) throw new BodyStart(b, ae);
      else this.openStyle(b, ln, le, ae);
      return;
    }
    if (this.is('table-row')) {
      this.rowRepeat = count(attrValue(b, le, ae, 'number-rows-repeated'), MAX_ROWS);
      this.cellsOfRow = [];
      this.column = 0;
    } else if (this.is('table-column') && this.sheet) {
      const a = attrs(b, le, ae);
      const n = count(a['number-columns-repeated'], MAX_COLUMNS);
      const w = a['style-name'] ? this.columnWidthByStyle.get(a['style-name']) : undefined;
      const widths = this.sheet.columnWidths;
      // At most 16,384 entries, trimmed to the used columns at the table's end.
      for (let i = 0; i < n && widths.length < MAX_COLUMNS; i++) widths.push(w);
    } else if (this.is('table')) this.openTable(b, le, ae);
    else this.openStyle(b, ln, le, ae);
  }

  private openTable(b: Buffer, le: number, ae: number): void {
    const a = attrs(b, le, ae);
    const table = { name: a.name ?? `Sheet${this.found.length + 1}`, hidden: this.hiddenStyles.has(a['style-name'] ?? '') };
    const at = this.found.length;
    this.found.push(table);
    const expected = this.expected?.[at];
    if (this.expected && (expected?.name !== table.name || expected.hidden !== table.hidden)) throw new Error(`ods: table ${at + 1} is not the one the package was found to hold`);
    this.reading = at === this.want;
    this.sheet = this.reading ? { ...table, columnWidths: [], merges: [], formulas: 0, rows: [] } : null;
    this.row = 0;
    this.pendingEmptyRows = 0;
    this.emitted = 0;
    this.widest = 0;
  }

  /** Styles, data styles and their parts (styles.xml, and the automatic styles of content.xml). */
  private openStyle(b: Buffer, ln: number, le: number, ae: number): void {
    if (this.is('style')) {
      const a = attrs(b, le, ae);
      this.styleOf = a.name ?? '';
      this.lastStyleLen = -1;
      if (a.family === 'table-cell' && a['data-style-name']) this.dataStyleOfCell.set(this.styleOf, a['data-style-name']);
    } else if (this.is('table-properties')) {
      if (attrValue(b, le, ae, 'display') === 'false') this.hiddenStyles.add(this.styleOf);
    } else if (this.is('table-column-properties')) {
      const w = attrValue(b, le, ae, 'column-width');
      const inches = w ? toInches(w) : null;
      if (inches !== null) this.columnWidthByStyle.set(this.styleOf, Math.round((inches / INCHES_PER_CHAR) * 100) / 100);
    } else if (this.dataStyle) {
      this.part = { name: b.toString('latin1', ln, le), attrs: attrs(b, le, ae), text: '' };
      this.dataStyle.parts.push(this.part);
    } else if (le - ln > 6 && b.toString('latin1', le - 6, le) === '-style' && b.toString('latin1', ln - 7, ln) === 'number:') {
      this.dataStyle = { element: b.toString('latin1', ln, le), name: attrs(b, le, ae).name ?? '', parts: [] };
    }
  }

  /** The style (style:style) being read. */
  private styleOf = '';

  /** A cell's start tag: its attributes read into the fields (no object per cell), and its value when they give it. */
  private openCell(b: Buffer, s: number, e: number): void {
    this.inCell = true;
    this.type = this.value = this.dateValue = this.timeValue = this.booleanValue = this.stringValue = undefined;
    this.formula = this.colSpan = this.rowSpan = undefined;
    let repeat: string | undefined;
    let styleAt = -1;
    let styleEnd = -1;
    const a = attr.reset(b, s, e);
    while (a.next()) {
      switch (a.ne - a.ns) {
        case 5:
          if (a.is('value')) this.value = valueOf(a, b);
          break;
        case 7:
          if (a.is('formula')) this.formula = valueOf(a, b);
          break;
        case 10:
          if (a.is('value-type')) this.type = typeName(b, a.vs, a.ve) ?? valueOf(a, b);
          else if (a.is('style-name')) {
            styleAt = a.vs;
            styleEnd = a.ve;
          } else if (a.is('date-value')) this.dateValue = valueOf(a, b);
          else if (a.is('time-value')) this.timeValue = valueOf(a, b);
          break;
        case 12:
          if (a.is('string-value')) this.stringValue = valueOf(a, b);
          break;
        case 13:
          if (a.is('boolean-value')) this.booleanValue = valueOf(a, b);
          break;
        case 19:
          if (a.is('number-rows-spanned')) this.rowSpan = valueOf(a, b);
          break;
        case 22:
          if (a.is('number-columns-spanned')) this.colSpan = valueOf(a, b);
          break;
        case 23:
          if (a.is('number-columns-repeated')) repeat = valueOf(a, b);
          break;
      }
    }
    this.cellRepeat = count(repeat, MAX_COLUMNS);
    this.styleName = styleAt < 0 ? undefined : this.styleNameAt(b, styleAt, styleEnd);
    this.preset = this.fromAttributes();
    this.chars = [];
    this.paragraphs = 0;
  }

  /** The cell style's name, the last one's string reused when the bytes are the same. */
  private styleNameAt(b: Buffer, s: number, e: number): string {
    const n = e - s;
    if (n === this.lastStyleLen && sameBytes(b, s, this.lastStyle, n)) return this.lastStyleName!;
    const name = decodeEntities(b.toString('utf8', s, e));
    if (n <= this.lastStyle.length) {
      b.copy(this.lastStyle, 0, s, e);
      this.lastStyleLen = n;
      this.lastStyleName = name;
      this.lastCode = this.codeOf(name);
    }
    return name;
  }

  close(b: Buffer, ln: number, le: number): void {
    this.tb = b;
    this.tln = ln;
    this.tle = le;
    if (this.annotation > 0) {
      this.annotation--;
      return;
    }
    if (this.inCell) {
      if (this.is('p') || this.is('h')) this.inParagraph = false;
      else if (this.is('table-cell') || this.is('covered-table-cell')) {
        if (this.reading) this.endCell();
        else this.inCell = false;
      }
      return;
    }
    if (this.is('table-row')) this.endRow();
    else if (this.is('table')) this.endTable();
    else if (this.dataStyle) {
      if (this.part && nameIs(b, ln, le, this.part.name)) this.part = null;
      else if (b.toString('latin1', ln, le) === this.dataStyle.element) {
        this.codes.set(this.dataStyle.name, excelCodeOf(this.dataStyle.element, this.dataStyle.parts));
        this.lastStyleLen = -1;
        this.dataStyle = null;
      }
    }
  }

  text(b: Buffer, s: number, e: number, literal: boolean): void {
    if (this.annotation > 0) return;
    if (this.inCell) {
      // Whitespace ODF collapses: line ends and tabs in the text itself are spaces, runs of spaces are one.
      // Only text that may hold such whitespace (or a reference that decodes to it) goes through the regex.
      if (!this.inParagraph || this.preset !== NEEDS_TEXT) return;
      if (plainText(b, s, e)) this.chars.push(b.toString('utf8', s, e));
      else this.chars.push(collapsed(literal ? b.toString('utf8', s, e) : decodeEntities(b.toString('utf8', s, e))));
    } else if (this.part) this.part.text += literal ? b.toString('utf8', s, e) : decodeEntities(b.toString('utf8', s, e));
  }

  private endCell(): void {
    this.inCell = false;
    const v = this.preset === NEEDS_TEXT ? this.fromText(this.chars.join('')) : this.preset;
    const colSpan = count(this.colSpan, MAX_COLUMNS);
    const rowSpan = count(this.rowSpan, MAX_ROWS);
    if ((colSpan > 1 || rowSpan > 1) && this.sheet) {
      this.sheet.merges.push({ top: this.row, left: this.column, bottom: this.row + rowSpan - 1, right: this.column + colSpan - 1 });
    }
    if (this.formula !== undefined && this.sheet) this.sheet.formulas += this.cellRepeat * this.rowRepeat;
    if (v === null) {
      this.column += this.cellRepeat;
      return;
    }
    if (this.column + this.cellRepeat > MAX_COLUMNS) throw new FormatError('too-complex', `a value past column ${MAX_COLUMNS}`, { where: `${this.sheet?.name} row ${this.row + 1}` });
    this.spend(this.cellRepeat * this.rowRepeat);
    if (this.column + this.cellRepeat > this.widest) this.widest = this.column + this.cellRepeat;
    const row = this.cellsOfRow;
    while (row.length < this.column) row.push(null);
    for (let k = 0; k < this.cellRepeat; k++) row.push(v);
    this.column += this.cellRepeat;
  }

  private spend(n: number): void {
    const c = this.counter;
    c.used += n;
    if (c.used > c.max) throw new FormatError('cells', `more than ${c.max} cells`, { params: { max: c.max }, where: `${this.sheet?.name} row ${this.row + 1}` });
  }

  /**
   * The cell's value from its attributes, or NEEDS_TEXT when it is its text: `text === ''` below stands for
   * whatever the text turns out to be (fromText), so that the text is gathered only for the cells that need it.
   */
  private fromAttributes(): AnyCell | typeof NEEDS_TEXT {
    const type = this.type;
    // office:value-type and LibreOffice's calcext:value-type share a local name; the latter comes last and says `error`.
    if (type === 'error') return NEEDS_TEXT;
    switch (type) {
      case 'float':
      case 'currency':
      case 'percentage': {
        const n = Number(this.value);
        if (this.value === undefined || !Number.isFinite(n)) return NEEDS_TEXT;
        // LibreOffice saves the booleans of a workbook it imported as the formulas TRUE() and FALSE() with a
        // float result, and shows them as TRUE and FALSE.
        if (type === 'float' && this.formula !== undefined && BOOLEAN_FORMULA.test(this.formula) && (n === 0 || n === 1)) return n === 1;
        return formatted(n, this.code() ?? (type === 'percentage' ? '0%' : null));
      }
      case 'date': {
        const d = isoDate(this.dateValue ?? '');
        if (!d) return NEEDS_TEXT;
        const code = this.code();
        return code ? new FullCell(d, code) : d;
      }
      case 'time': {
        const ms = duration(this.timeValue ?? '');
        if (ms === null) return NEEDS_TEXT;
        const code = this.code();
        if (ms >= 0 && ms < DAY_MS) {
          const d = new Date(EPOCH_1900 + ms);
          return code ? new FullCell(d, code) : d;
        }
        return formatted(ms / DAY_MS, code);
      }
      case 'boolean':
        return this.booleanValue === 'true';
      case 'string':
        return this.stringValue ?? NEEDS_TEXT;
      default:
        return NEEDS_TEXT;
    }
  }

  /** The value of a cell whose attributes did not give it: its text (an error's text, or empty). */
  private fromText(text: string): AnyCell {
    if (this.type === 'error') return new CellError(text);
    return text === '' ? null : text;
  }

  /** The cell's number format, from its style's data style. */
  private code(): string | null {
    const name = this.styleName;
    if (name === undefined) return null;
    return name === this.lastStyleName ? this.lastCode : this.codeOf(name);
  }

  private codeOf(cellStyle: string | undefined): string | null {
    if (!cellStyle) return null;
    const ds = this.dataStyleOfCell.get(cellStyle);
    return ds === undefined ? null : this.codes.get(ds) ?? null;
  }

  private endRow(): void {
    const sheet = this.sheet;
    if (!sheet) return;
    const cells = this.cellsOfRow;
    if (cells.length === 0) {
      this.pendingEmptyRows += this.rowRepeat;
      this.row += this.rowRepeat;
      return;
    }
    if (this.emitted + this.pendingEmptyRows + this.rowRepeat > MAX_ROWS) throw new FormatError('too-complex', `more than ${MAX_ROWS} rows`, { where: sheet.name });
    if (this.pendingEmptyRows > 0) this.out.push({ cells: null, repeat: this.pendingEmptyRows });
    // A repeated row with values is that many rows (its cells were counted once per repeat): made as taken.
    this.out.push({ cells, repeat: this.rowRepeat });
    this.emitted += this.pendingEmptyRows + this.rowRepeat;
    this.pendingEmptyRows = 0;
    this.row += this.rowRepeat;
  }

  private endTable(): void {
    if (!this.sheet) return;
    // Widths past the used columns (LibreOffice styles all 16,384) are dropped.
    const s = this.sheet;
    let used = s.merges.reduce((n, m) => Math.max(n, m.right + 1), 0);
    used = Math.max(used, this.widest);
    const widths = s.columnWidths;
    if (widths.length > used) widths.length = used;
    while (widths.length > 0 && widths[widths.length - 1] === undefined) widths.pop();
    this.done = s;
    this.sheet = null;
    this.reading = false;
    this.onDone();
  }
}

const UNITS: Record<string, number> = { in: 1, cm: 1 / 2.54, mm: 1 / 25.4, pt: 1 / 72, pc: 1 / 6, px: 1 / 96 };

/** A number with its format, when it has one (a function of the module: not a closure made per cell). */
function formatted(v: number, code: string | null): AnyCell {
  return code ? new FullCell(v, code) : v;
}

function toInches(length: string): number | null {
  const m = /^([0-9]*\.?[0-9]+)(in|cm|mm|pt|pc|px)$/.exec(length.trim());
  return m ? Number(m[1]) * UNITS[m[2]] : null;
}

/** An ODF date-value (`2024-01-15`, `2024-01-15T10:20:30.25`), read as UTC; null when it is none. */
function isoDate(s: string): Date | null {
  // The common `2024-01-15` without the regex (what it would match, read the same way).
  if (s.length === 10 && s.charCodeAt(4) === 0x2d && s.charCodeAt(7) === 0x2d) {
    const y = digits(s, 0, 4);
    const mo = digits(s, 5, 7);
    const day = digits(s, 8, 10);
    if (y >= 0 && mo >= 0 && day >= 0) {
      const d = new Date(Date.UTC(y, mo - 1, day, 0, 0, 0, 0));
      if (y < 100) d.setUTCFullYear(y);
      return Number.isNaN(d.getTime()) ? null : d;
    }
  }
  const m = /^(-?\d{4,})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/.exec(s);
  if (!m) return null;
  const ms = m[7] ? Math.round(Number(m[7]) * 1000) : 0;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), ms));
  if (Number(m[1]) < 100) d.setUTCFullYear(Number(m[1]));
  return Number.isNaN(d.getTime()) ? null : d;
}

/** The decimal number spelled by s[from, to), or -1 when a character is no digit. */
function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k) - 0x30;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/** An xsd:duration as ODF time-value uses it (`PT13H45M00S`, `PT36H`, `-PT1H`), in milliseconds. */
function duration(s: string): number | null {
  const m = /^(-)?P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(s);
  if (!m || s.endsWith('T') || s === 'P' || s === '-P') return null;
  const ms = ((Number(m[2] ?? 0) * 24 + Number(m[3] ?? 0)) * 60 + Number(m[4] ?? 0)) * 60_000 + Math.round(Number(m[5] ?? 0) * 1000);
  return m[1] ? -ms : ms;
}


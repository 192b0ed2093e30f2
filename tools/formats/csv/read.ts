// CSV in: encoding and delimiter detection, RFC 4180 quotes (fields may hold newlines), any mix of CRLF, LF
// and CR line ends, ragged rows padded with empty cells (never cut), optional type detection. Writing is
// write.ts. Reading a CSV whole (records over its bytes) is records.ts; as a workbook of one sheet, book.ts.
//
// The parser is our own, not papaparse: papaparse picks one line ending per file, so a file mixing CRLF and
// LF loses row breaks. The reader never trims a value.
import { isAscii, isUtf8 } from 'node:buffer';
import { PulledRows } from '../batch.ts';
import { FormatError, Restart } from '../errors.ts';
import { EXTENT_FACTOR } from '../grid.ts';
import type { Cell, Row, RowStream, SourceFile, TableData, TextEncodingName } from '../model.ts';
import { silent, type Report } from '../report.ts';
import { ColumnTexts, RecentDates } from '../shared-cells.ts';
import { DateOrders, detectType, type DateOrder, type DetectOptions } from './detect-type.ts';
import { eightBitEncoding, encodingLabel, type EightBitEncoding } from './charset.ts';

export type { TextEncodingName };

/**
 * Text of a file: a BOM decides (UTF-8, UTF-16 LE/BE); without one, UTF-16 is recognized by its zero bytes,
 * then strict UTF-8 is tried, and bytes that are not valid UTF-8 are read as Windows-1252.
 */
export function decodeText(bytes: Uint8Array): { text: string; encoding: TextEncodingName } {
  const b = bytes;
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return { text: new TextDecoder('utf-8').decode(b), encoding: 'utf-8' };
  // UTF-32's little-endian BOM begins as UTF-16's does: it is looked for first.
  if (b[0] === 0xff && b[1] === 0xfe && b[2] === 0 && b[3] === 0) return { text: decodeUtf32(b, true), encoding: 'utf-32le' };
  if (b[0] === 0 && b[1] === 0 && b[2] === 0xfe && b[3] === 0xff) return { text: decodeUtf32(b, false), encoding: 'utf-32be' };
  if (b[0] === 0xff && b[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(b), encoding: 'utf-16le' };
  if (b[0] === 0xfe && b[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(b), encoding: 'utf-16be' };
  const utf16 = guessUtf16(b);
  if (utf16) return { text: new TextDecoder(utf16).decode(b), encoding: utf16 };
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  // Validation first (simdutf, under a millisecond for 10 MB), then the decoder without its own checks;
  // pure ASCII decodes as Latin-1, five times faster than UTF-8 on the same bytes.
  if (isAscii(buf)) return { text: buf.toString('latin1'), encoding: 'utf-8' };
  if (isUtf8(buf)) return { text: buf.toString('utf8'), encoding: 'utf-8' };
  return decodeEightBit(b, eightBitEncoding(b));
}

/** The text as decodeText reads it, the encoding already decided (an 8-bit code page is not detected again). */
export function decodeAs(bytes: Uint8Array, encoding: TextEncodingName): string {
  return isEightBit(encoding) ? decodeEightBit(bytes, encoding).text : decodeText(bytes).text;
}

/** 8-bit text in its code page. */
export function decodeEightBit(b: Uint8Array, encoding: EightBitEncoding): { text: string; encoding: EightBitEncoding } {
  return { text: encoding === 'windows-1252' ? decodeWindows1252(b) : new TextDecoder(encoding).decode(b), encoding };
}

/**
 * UTF-32 after its 4-byte BOM (no TextDecoder reads it): a code unit that is no character (a surrogate, past
 * U+10FFFF) and a cut last unit become U+FFFD, as TextDecoder does with bad UTF-16.
 */
function decodeUtf32(b: Uint8Array, little: boolean): string {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const out: string[] = [];
  let part: number[] = [];
  for (let i = 4; i + 4 <= b.length; i += 4) {
    const cp = view.getUint32(i, little);
    part.push(cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0xfffd : cp);
    if (part.length === 8192) {
      out.push(String.fromCodePoint(...part));
      part = [];
    }
  }
  if ((b.length - 4) % 4 !== 0) part.push(0xfffd);
  out.push(String.fromCodePoint(...part));
  return out.join('');
}

// Node 20's TextDecoder('windows-1252') decodes as ISO-8859-1 (0x80 stays U+0080 instead of €), so the
// 0x80–0x9F block is mapped here; the five bytes Windows-1252 leaves undefined keep their Latin-1 code.
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ';

export function decodeWindows1252(b: Uint8Array): string {
  const latin1 = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
  return latin1.replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]);
}

// UTF-16 text without a BOM has a zero in (nearly) every other byte; no 8-bit text does.
export function guessUtf16(b: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  const n = Math.min(b.length, 4096) & ~1;
  if (n < 4) return null;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < n; i += 2) {
    if (b[i] === 0) evenZeros++;
    if (b[i + 1] === 0) oddZeros++;
  }
  const pairs = n / 2;
  if (oddZeros > pairs * 0.4 && evenZeros < pairs * 0.05) return 'utf-16le';
  if (evenZeros > pairs * 0.4 && oddZeros < pairs * 0.05) return 'utf-16be';
  return null;
}

export interface ParsedCsv {
  /** Every record as raw field texts (its cells, with a finisher); a blank line is `['']`. A final line end adds no record. */
  rows: string[][];
  /** 1-based lines where a quote opened and never closed; that quote was read as a plain character. */
  unclosedQuotes: number[];
}

const QUOTE = 34;
const CR = 13;
const LF = 10;

/**
 * Splits CSV text into records and fields with a one-character delimiter. With `finisher`, each record is handed
 * to a finish function as soon as it ends, to be turned into its cells in place (a new one for each pass).
 */
export function parseCsv(text: string, delimiter: string, maxRows = Infinity, finisher?: () => (record: string[]) => void): ParsedCsv {
  const literal = new Set<number>();
  for (;;) {
    const res = parseOnce(text, delimiter.charCodeAt(0), literal, maxRows, finisher?.());
    if (res.unclosedAt < 0) {
      const unclosedQuotes = [...literal].sort((a, b) => a - b).map((pos) => lineAt(text, pos));
      return { rows: res.rows, unclosedQuotes };
    }
    // Recovery: that quote is a plain character, and the rest of the file is read again.
    literal.add(res.unclosedAt);
  }
}

function lineAt(text: string, pos: number): number {
  let line = 1;
  for (let i = 0; i < pos; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || (c === CR && text.charCodeAt(i + 1) !== LF)) line++;
  }
  return line;
}

// Fields are found with indexOf (native, many times faster than a loop over char codes): the next delimiter,
// CR and LF positions are remembered and searched again only once the scan has passed them.
// Each record starts as long as the one before (most are as wide): a record grown from `[]` by push holds 17
// slots for 10 fields, 56 bytes a row more than one sized once. It is cut to its fields when it ends.
function parseOnce(
  text: string,
  delim: number,
  literal: Set<number>,
  maxRows: number,
  finish: ((record: string[]) => void) | undefined,
): { rows: string[][]; unclosedAt: number } {
  const rows: string[][] = [];
  const n = text.length;
  const delimChar = String.fromCharCode(delim);
  let nextDelim = -1;
  let nextCr = -1;
  let nextLf = -1;
  let row: string[] = [];
  let k = 0;
  let i = 0;
  while (i < n) {
    let value: string;
    if (text.charCodeAt(i) === QUOTE && (literal.size === 0 || !literal.has(i))) {
      const start = i;
      value = '';
      let seg = ++i;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) return { rows, unclosedAt: start };
        if (text.charCodeAt(q + 1) === QUOTE) {
          value += text.slice(seg, q + 1);
          i = seg = q + 2;
          continue;
        }
        value += text.slice(seg, q);
        i = q + 1;
        break;
      }
    } else value = '';
    // The plain part: a whole unquoted field, or what follows a closing quote (kept as it is).
    if (nextDelim < i) nextDelim = indexOrEnd(text, delimChar, i);
    if (nextLf < i) nextLf = indexOrEnd(text, '\n', i);
    if (nextCr < i) nextCr = indexOrEnd(text, '\r', i);
    let end = nextDelim < nextLf ? nextDelim : nextLf;
    if (nextCr < end) end = nextCr;
    row[k++] = end === i ? value : value === '' ? text.slice(i, end) : value + text.slice(i, end);
    i = end;
    if (i >= n) break;
    if (i === nextDelim) {
      i++;
      if (i >= n) row[k++] = '';
      continue;
    }
    i += i === nextCr && text.charCodeAt(i + 1) === LF ? 2 : 1;
    if (row.length !== k) row.length = k;
    if (finish !== undefined) finish(row);
    rows.push(row);
    row = new Array<string>(k);
    k = 0;
    if (rows.length >= maxRows) return { rows, unclosedAt: -1 };
  }
  if (k > 0) {
    if (row.length !== k) row.length = k;
    if (finish !== undefined) finish(row);
    rows.push(row);
  }
  return { rows, unclosedAt: -1 };
}

function indexOrEnd(text: string, c: string, from: number): number {
  const at = text.indexOf(c, from);
  return at < 0 ? text.length : at;
}

export const DELIMITERS = { comma: ',', semicolon: ';', tab: '\t', pipe: '|' } as const;
// On a tie, the rarer character in ordinary text wins: a semicolon file with decimal commas (`1,5;2,5`) is
// consistent with both, and means semicolon.
const DETECT_ORDER = ['\t', ';', '|', ','];
const SAMPLE_CHARS = 65_536;
const SAMPLE_ROWS = 100;

// A blank record is `['']`, or `[null]` once made into cells.
const isBlank = (r: readonly Cell[]) => r.every((f) => f === '' || f === null);

/**
 * The delimiter among comma, semicolon, tab and pipe that splits the first records into the most consistent
 * number of fields (at least two); comma when none does.
 */
export function detectDelimiter(text: string): string {
  return detectDelimiterOf(text) ?? ',';
}

/** detectDelimiter, or null when no delimiter splits the first records into two fields or more. */
export function detectDelimiterOf(text: string): string | null {
  const sample = text.slice(0, SAMPLE_CHARS);
  let best = { delim: ',', share: 0 };
  for (const delim of DETECT_ORDER) {
    if (!sample.includes(delim)) continue;
    const rows = parseCsv(sample, delim, SAMPLE_ROWS).rows.filter((r) => !isBlank(r));
    if (rows.length === 0) continue;
    const freq = new Map<number, number>();
    for (const r of rows) freq.set(r.length, (freq.get(r.length) ?? 0) + 1);
    let mode = 0;
    let count = 0;
    for (const [len, c] of freq) if (c > count || (c === count && len > mode)) [mode, count] = [len, c];
    if (mode < 2) continue;
    const share = count / rows.length;
    if (share > best.share + 1e-9) best = { delim, share };
  }
  return best.share > 0 ? best.delim : null;
}

export interface CsvReadOptions {
  hasHeader: boolean;
  /** Recognize numbers, dates and booleans; when false every non-empty field is text. */
  detectTypes: boolean;
  /** One character; detected when left out. */
  delimiter?: string;
  report?: Report;
  /** Non-empty fields the file may hold (the run's limit). */
  maxCells?: number;
}

export interface CsvRead {
  table: TableData;
  encoding: TextEncodingName;
  delimiter: string;
}

/** Where parsed rows go: the title row first (when there is a header), then the data rows in order. */
export interface CsvRowSink {
  titles(cells: readonly Cell[]): void;
  /** Rows are typed but not padded: a row shorter than the widest has no cells past its end. */
  rows(batch: Row[]): void;
}

/** A file's base name: what a CSV's table is named after. */
export function baseNameOf(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? name;
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

/** Whether text was read in an 8-bit code page (not UTF-8, UTF-16 or UTF-32): a message names it. */
export const isEightBit = (e: TextEncodingName): e is EightBitEncoding => !e.startsWith('utf-');

/** How a file's text is read (decodeText's rule), decided without decoding it. */
export interface TextKind {
  encoding: TextEncodingName;
  /** UTF-8 without a BOM and all ASCII: decoded as Latin-1, five times faster than UTF-8 on the same bytes. */
  ascii: boolean;
}

export function textKind(b: Uint8Array): TextKind {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return { encoding: 'utf-8', ascii: false };
  if (b[0] === 0xff && b[1] === 0xfe && b[2] === 0 && b[3] === 0) return { encoding: 'utf-32le', ascii: false };
  if (b[0] === 0 && b[1] === 0 && b[2] === 0xfe && b[3] === 0xff) return { encoding: 'utf-32be', ascii: false };
  if (b[0] === 0xff && b[1] === 0xfe) return { encoding: 'utf-16le', ascii: false };
  if (b[0] === 0xfe && b[1] === 0xff) return { encoding: 'utf-16be', ascii: false };
  const utf16 = guessUtf16(b);
  if (utf16) return { encoding: utf16, ascii: false };
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (isAscii(buf)) return { encoding: 'utf-8', ascii: true };
  return { encoding: isUtf8(buf) ? 'utf-8' : eightBitEncoding(b), ascii: false };
}

/**
 * tools.md §2.2: a NUL byte in text that is not UTF-16 means a binary file (a ZIP or a workbook named .csv),
 * which would otherwise come out as a table of garbage presented as success.
 */
export function refuseBinary(bytes: Uint8Array, encoding: TextEncodingName): void {
  // Buffer#indexOf is a native search; Uint8Array#includes walks the bytes one by one.
  if (!encoding.startsWith('utf-16') && !encoding.startsWith('utf-32') && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(0) >= 0) throw new FormatError('binary', 'NUL bytes in text');
}

/** The delimiter of a CSV, detected on its first characters (a file of one piece: on all of it). */
export function sniffDelimiter(bytes: Uint8Array, kind = textKind(bytes)): string | null {
  const pieces = bytes.length > PIECE_BYTES ? pieceDecoder(bytes, kind) : null;
  return detectDelimiterOf(pieces === null ? wholeText(bytes, kind.encoding) : pieces.decode(pieces.from, pieceEnd(bytes, pieces.from + 4 * SAMPLE_CHARS)));
}

/** Reads a CSV file into a rectangular table named after the file; messages go to `report`. */
export function readCsv(file: SourceFile, o: CsvReadOptions): CsvRead {
  const kind = textKind(file.bytes);
  const encoding = kind.encoding;
  refuseBinary(file.bytes, encoding);
  const delimiter = o.delimiter ?? sniffDelimiter(file.bytes, kind) ?? ',';
  const report = o.report ?? silent;
  const rowsOf = (stream: OnePassCsv) => {
    const rows: Row[] = [];
    for (const batch of stream) for (const r of batch.rows()) rows.push(r);
    return rows;
  };
  const typing = o.detectTypes ? csvTyping(file.bytes, kind, delimiter, o.hasHeader, 'dmy') : { decimalComma: delimiter !== ',' };
  const first = new OnePassCsv(file, { ...o, delimiter, kind, typing }, report, false);
  let stream = first;
  let rows: Row[];
  try {
    rows = rowsOf(first);
  } catch (err) {
    if (!(err instanceof Restart)) throw err;
    stream = new OnePassCsv(file, { ...o, delimiter, kind, typing }, report, true);
    rows = rowsOf(stream);
  }
  // Each record is its row already (CellMaker), padded here: no second array per row.
  for (const cells of rows) for (let i = cells.length; i < stream.width; i++) cells.push(null);
  return { table: { name: baseNameOf(file.name), header: stream.header, rows }, encoding, delimiter };
}

/**
 * A CSV read in one pass, its rows handed on as they are parsed: an 8-bit text is decoded and parsed in pieces
 * (see PIECE_BYTES), so that neither the whole text nor the whole table is ever held. Its width grows as rows
 * come and its titles are padded to it at the end. In the rare file whose piecewise read must start again on
 * the whole text (a quote left open until the end), iterating throws Restart, whose read parses the whole text.
 * Messages go to `report` once every row has been read.
 */
export class OnePassCsv extends PulledRows implements RowStream {
  readonly name: string;
  readonly total = null;
  readonly delimiter: string;
  private titles: string[] | null = null;
  private readonly flow: CsvFlow;

  constructor(
    private readonly file: SourceFile,
    private readonly o: CsvReadOptions & { delimiter: string; kind: TextKind; typing?: DetectOptions },
    private readonly report: Report,
    whole: boolean,
  ) {
    super();
    this.name = baseNameOf(file.name);
    this.delimiter = o.delimiter;
    this.flow = new CsvFlow(o.hasHeader, { titles: (cells) => void (this.titles = cells as string[]), rows: (batch) => void this.queue.push(batch) }, o.maxCells ?? Infinity);
    this.pull = this.parse(whole);
  }

  private *parse(whole: boolean): Generator<void> {
    const { file, o, flow } = this;
    const bytes = file.bytes;
    // Records are typed as they are parsed: their field texts die young instead of all living at once with the
    // whole text (100,000 rows: ~50 MB of fields and arrays at the end of parsing).
    const given = o.typing ?? { decimalComma: o.delimiter !== ',' };
    // Slash dates are typed in the language's order and noted; should a column prove another order, the read
    // starts again with every column's order decided on a first pass over the text (slashDateOrders). Files whose
    // dates agree with the language, and files without them, are read once.
    const track = o.detectTypes && given.orders === undefined ? new DateOrders(given.dateOrder ?? 'dmy') : undefined;
    const typing: DetectOptions = track ? { ...given, track } : given;
    const restart = () => {
      if (!track?.conflict) return;
      const orders = slashDateOrders(bytes, o.kind, o.delimiter, o.hasHeader, given.dateOrder ?? 'dmy');
      throw new Restart('slash dates in another order', (read: { report: Report }) => new OnePassCsv(file, { ...o, typing: { ...given, orders: orders ?? [] } }, read.report, whole));
    };
    const cells = new CellMaker(o.hasHeader, o.detectTypes, typing);
    const pieces = bytes.length > PIECE_BYTES ? pieceDecoder(bytes, o.kind) : null;
    let unclosedQuotes: number[] = [];
    if (pieces !== null && !whole) {
      const keep = () => {
        const header = cells.header;
        return () => void (cells.header = header);
      };
      for (const piece of parsedPieces(bytes, pieces, o.delimiter, cells.finish, keep)) {
        if (typeof piece === 'number') {
          throw new Restart('a quote open until the end of the file', (read: { report: Report }) => new OnePassCsv(file, o, read.report, true));
        }
        restart();
        flow.add(piece.rows);
        yield;
      }
    } else {
      // Each parse of the text (a quote that never closes makes another) types its records afresh.
      const parsed = parseCsv(wholeText(bytes, o.kind.encoding), o.delimiter, Infinity, () => new CellMaker(o.hasHeader, o.detectTypes, typing).finish);
      unclosedQuotes = parsed.unclosedQuotes;
      restart();
      flow.add(parsed.rows);
      yield;
    }
    flow.end(file.name);
    if (isEightBit(o.kind.encoding)) this.report('info', 'csv_encoding', { name: file.name, encoding: encodingLabel(o.kind.encoding) });
    if (unclosedQuotes.length > 0) this.report('warning', 'csv_unclosed_quote', { name: file.name, line: unclosedQuotes[0], count: unclosedQuotes.length });
    flow.reportRagged(this.report, file.name);
  }

  /** The titles as read (padded to the width once every row is read), or null without a header. */
  get header(): string[] | null {
    if (!this.o.hasHeader) return null;
    while (this.titles === null && this.step());
    return this.ended ? this.flow.header : this.titles;
  }

  /** The widest record so far: final once every row is read. */
  get width(): number {
    return this.flow.width;
  }
}

/**
 * Typed records, in file order, to a sink: blank lines before and after the data are not rows of the table
 * (a run of blank records is held until a record with a value follows it), blank lines between rows are; the
 * first record with a value is the header when there is one. Cells are counted as they pass.
 */
class CsvFlow {
  header: string[] | null = null;
  rowCount = 0;
  width = 0;
  ended = false;
  private started = false;
  private readonly pending: Row[] = [];
  private used = 0;
  /** Records of the table so far (header included), and where the first one was: for the ragged-row warning. */
  private records = 0;
  private leading = 0;
  private expected = 0;
  private ragged = 0;
  private firstRagged = -1;
  private raggedFound = 0;

  constructor(
    private readonly hasHeader: boolean,
    private readonly sink: CsvRowSink,
    private readonly maxCells: number,
  ) {}

  add(records: Row[]): void {
    let out: Row[] | null = null;
    for (const r of records) {
      if (isBlank(r)) {
        if (this.started) this.pending.push(r);
        else this.leading++;
        continue;
      }
      for (const f of r) if (f !== '' && f !== null) this.used++;
      if (this.used > this.maxCells) checkCells(this.used, 0, 0, this.maxCells, '');
      if (r.length > this.width) this.width = r.length;
      if (!this.started) {
        this.started = true;
        this.expected = r.length;
        this.records = 1;
        if (this.hasHeader) {
          this.header = r as string[];
          this.sink.titles(r);
          continue;
        }
      } else {
        this.records += this.pending.length;
        if (r.length !== this.expected) {
          if (this.ragged++ === 0) [this.firstRagged, this.raggedFound] = [this.records, r.length];
        }
        this.records++;
      }
      out ??= [];
      if (this.pending.length > 0) {
        // A blank record between rows is a row, and as wide as its fields (`;;` is three empty cells).
        for (const p of this.pending) {
          if (p.length > this.width) this.width = p.length;
          out.push(p);
        }
        this.pending.length = 0;
      }
      out.push(r);
    }
    if (out !== null) {
      this.rowCount += out.length;
      this.sink.rows(out);
    }
  }

  end(name: string): void {
    // A file with no row at all (empty, only a BOM, only blank lines) is no table: refuse it rather than
    // answer with an empty result that looks like success.
    if (!this.started) throw new FormatError('empty', 'no record with a value');
    checkCells(this.used, this.rowCount + (this.header ? 1 : 0), this.width, this.maxCells, name);
    if (this.header) {
      const h = this.header;
      this.header = Array.from({ length: this.width }, (_, i) => (h[i] as string | undefined) ?? '');
    }
    this.ended = true;
  }

  reportRagged(report: Report, name: string): void {
    if (this.ragged === 0) return;
    const row = this.leading + this.firstRagged + 1;
    report('warning', 'ragged_rows', { name, count: this.ragged, row, found: this.raggedFound, expected: this.expected, width: this.width });
  }
}

/**
 * Turns each record into its row in place: empty fields null, the rest typed when `detect`; the header (the
 * first record that is not blank, when there is one) stays text. Repeated texts of a column and equal dates
 * share one value (shared-cells.ts).
 */
class CellMaker {
  private readonly texts = new ColumnTexts(ownText);
  private readonly dates = new RecentDates();
  /** The header is still to come. */
  header: boolean;

  constructor(hasHeader: boolean, private readonly detect: boolean, private readonly typing: DetectOptions) {
    this.header = hasHeader;
  }

  readonly finish = (record: string[]): void => {
    const { texts, dates, detect, typing } = this;
    const cells: Cell[] = record;
    const len = cells.length;
    if (this.header) {
      if (isBlank(record)) return;
      this.header = false;
      for (let i = 0; i < len; i++) cells[i] = ownText(record[i]);
      return;
    }
    for (let i = 0; i < len; i++) {
      const s = cells[i] as string;
      if (s === '') {
        cells[i] = null;
        continue;
      }
      const v = detect ? detectType(s, typing, i) : s;
      cells[i] = typeof v === 'string' ? texts.share(i, v) : v instanceof Date ? dates.share(v) : v;
    }
  };
}

// An 8-bit text (UTF-8, Windows-1252) is decoded and parsed in pieces that end after a line feed byte (in these
// encodings a 0x0A byte is always a line feed): the whole text of the file never exists at once (12 MB for
// 100,000 rows, left for the next full collection while the result is written). A piece where a quote is still
// open when it ends grows until the quote closes; a quote open at the end of the file is left to the parse of
// the whole text (the recovery of unclosed quotes works on it).
const PIECE_BYTES = 65_536;

/**
 * A file read whole (no larger than a piece) is decoded once for all its passes (the delimiter's sniff, the
 * slash dates' orders, the parse): a small file's run is mostly such fixed costs. Kept while its bytes are.
 */
const wholeTexts = new WeakMap<Uint8Array, { encoding: TextEncodingName; text: string }>();

function wholeText(bytes: Uint8Array, encoding: TextEncodingName): string {
  if (bytes.length > PIECE_BYTES) return decodeAs(bytes, encoding);
  const known = wholeTexts.get(bytes);
  if (known?.encoding === encoding) return known.text;
  const text = decodeAs(bytes, encoding);
  wholeTexts.set(bytes, { encoding, text });
  return text;
}

interface PieceDecoder {
  encoding: TextEncodingName;
  /** Where the text starts (after a BOM). */
  from: number;
  decode(start: number, end: number): string;
}

/** How to decode pieces of the bytes as decodeText decodes the whole; null for UTF-16 and UTF-32 (then the whole is read). */
function pieceDecoder(b: Uint8Array, kind: TextKind): PieceDecoder | null {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (kind.encoding.startsWith('utf-16') || kind.encoding.startsWith('utf-32')) return null;
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) {
    const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
    return { encoding: 'utf-8', from: 3, decode: (s, e) => decoder.decode(b.subarray(s, e)) };
  }
  if (kind.ascii) return { encoding: 'utf-8', from: 0, decode: (s, e) => buf.toString('latin1', s, e) };
  if (kind.encoding === 'utf-8') return { encoding: 'utf-8', from: 0, decode: (s, e) => buf.toString('utf8', s, e) };
  const enc = kind.encoding as EightBitEncoding;
  return { encoding: enc, from: 0, decode: (s, e) => decodeEightBit(b.subarray(s, e), enc).text };
}

/** How a CSV's fields are typed: its decimal mark, and each column's slash-date order (slashDateOrders). */
export function csvTyping(bytes: Uint8Array, kind: TextKind, delimiter: string, hasHeader: boolean, dateOrder: 'dmy' | 'mdy'): DetectOptions {
  const decimalComma = delimiter !== ',';
  const orders = slashDateOrders(bytes, kind, delimiter, hasHeader, dateOrder);
  return orders ? { decimalComma, orders, dateOrder } : { decimalComma, dateOrder };
}

/**
 * The order of each column's slash dates (detect-type.ts DateOrders), decided on a first pass over the whole
 * text, so that a read in pieces types the first batch as the last; undefined when the bytes hold no `/` (no
 * slash date, the common case, costs one native search). The header record is left out.
 */
export function slashDateOrders(bytes: Uint8Array, kind: TextKind, delimiter: string, hasHeader: boolean, language: 'dmy' | 'mdy'): DateOrder[] | undefined {
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(0x2f) < 0) return undefined;
  const orders = new DateOrders();
  let header = hasHeader;
  const finish = (record: string[]) => {
    if (header) {
      if (!isBlank(record)) header = false;
      return;
    }
    for (let i = 0; i < record.length; i++) orders.add(i, record[i]);
  };
  const pieces = bytes.length > PIECE_BYTES ? pieceDecoder(bytes, kind) : null;
  if (pieces !== null) {
    const keep = () => {
      const before = header;
      return () => void (header = before);
    };
    for (const piece of parsedPieces(bytes, pieces, delimiter, finish, keep)) {
      // A quote open until the end: the rest is read as the whole-text parse reads it.
      if (typeof piece === 'number') parseCsv(pieces.decode(piece, bytes.length), delimiter, Infinity, () => finish);
    }
  } else parseCsv(wholeText(bytes, kind.encoding), delimiter, Infinity, () => finish);
  return orders.any ? orders.decide(language) : undefined;
}

/**
 * A text parsed piece by piece (PIECE_BYTES each, ending after a line feed), a piece growing until no quote is
 * left open in it: yields each piece's records (given to `finish` as they are parsed). A piece parsed again is
 * parsed afresh: `keep` saves what `finish` changes, before every parse, and gives back how to restore it. A
 * quote open until the end of the bytes ends the pieces with the offset where the last one starts, its
 * records not taken.
 */
function* parsedPieces(bytes: Uint8Array, pieces: PieceDecoder, delimiter: string, finish: (record: string[]) => void, keep: () => () => void): Generator<{ rows: string[][] } | number> {
  const delim = delimiter.charCodeAt(0);
  const none = new Set<number>();
  for (let start = pieces.from; start < bytes.length; ) {
    let end = pieceEnd(bytes, start + PIECE_BYTES);
    for (;;) {
      const restore = keep();
      const res = parseOnce(pieces.decode(start, end), delim, none, Infinity, finish);
      if (res.unclosedAt < 0) {
        yield res;
        break;
      }
      restore();
      if (end >= bytes.length) {
        yield start;
        return;
      }
      end = pieceEnd(bytes, start + 2 * (end - start));
    }
    start = end;
  }
}

/** The end of the piece that reaches at least `at`: just after the next line feed, or the end of the bytes. */
function pieceEnd(b: Uint8Array, at: number): number {
  if (at >= b.length) return b.length;
  const lf = b.indexOf(LF, at);
  return lf < 0 ? b.length : lf + 1;
}

/**
 * The text on its own. A field of 13 characters or more is a slice (or a concatenation of slices) of the whole
 * decoded file, and one kept slice keeps all of it: once numbers and dates are typed, the texts left are a small
 * part of the file (100,000 rows: a 12 MB text kept for 195,000 slices). Shorter ones are copies already.
 * Joining two pieces is the cheapest way found to make a new flat string (about 0.2 µs).
 */
function ownText(s: string): string {
  return s.length < 13 ? s : [s.charAt(0), s.slice(1)].join('');
}

// Decided on the parsed fields, before rows are padded and typed: padding a ragged file (one row of 100,000
// fields among a million short ones) would allocate the whole rectangle first.
export function checkCells(used: number, rows: number, width: number, maxCells: number, name: string): void {
  if (used > maxCells) throw new FormatError('cells', 'cell limit', { params: { reason: 'cells', max: maxCells } });
  if (rows * width > maxCells * EXTENT_FACTOR) {
    throw new FormatError('sheet-extent', 'sheet extent', { params: { reason: 'cells', sheet: baseNameOf(name), rows, columns: width } });
  }
}

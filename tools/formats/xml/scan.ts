// A streaming XML tokenizer over UTF-8 bytes, for the parts of an xlsx package.
//
// Not a general XML parser: it reports start tags, end tags and text, as byte ranges of the current buffer,
// and never builds a string the handler does not ask for, so that a 40 MB sheet costs one pass over its bytes.
// Chunks come as the inflate stream delivers them; a token cut by a chunk end waits for the next chunk.
// Rules (tools.md §2.11):
// - no DTD is ever processed: `<!DOCTYPE` or `<!ENTITY` is `invalid_file`, as OPC requires of every package
//   part (ECMA-376 Part 2, [M1.18]: billion laughs, external entities); only the five predefined entities
//   and numeric character references are decoded, by the handler, through `decodeEntities`;
// - comments and processing instructions are skipped, CDATA is literal text;
// - nesting deeper than 256 elements is `invalid_file`, and so is a tag longer than MAX_TOKEN_BYTES; text
//   is handed over in pieces, and handlers that gather it refuse more than MAX_TOKEN_BYTES in one value (a cell
//   holds at most 32,767 characters: anything near that bound is no spreadsheet);
// - well-formedness is not checked beyond what tokenizing needs: the handler decides what it understands.
import { damaged, FormatError } from '../errors.ts';
import { TextDecoder } from 'node:util';

export const MAX_DEPTH = 256;
export const MAX_TOKEN_BYTES = 16 * 1024 * 1024;
/** Text longer than this, with no tag after it yet, is handed over without waiting for its end. */
const TEXT_PIECE_BYTES = 64 * 1024;

export interface XmlHandler {
  /** A start tag: local name (prefix removed) in [ln, le), attributes in [le, ae). `selfClosing` for `<x/>`. */
  open(b: Buffer, ln: number, le: number, ae: number, selfClosing: boolean): void;
  /** An end tag, or right after `open` for a self-closing one. */
  close(b: Buffer, ln: number, le: number): void;
  /** Character data in [s, e), possibly one piece of a longer text: raw (entities still encoded) unless `literal` (CDATA). */
  text(b: Buffer, s: number, e: number, literal: boolean): void;
}

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const COLON = 0x3a;

const CDATA = Buffer.from('<![CDATA[');
const CDATA_END = Buffer.from(']]>');
const COMMENT_END = Buffer.from('-->');
const PI_END = Buffer.from('?>');

/**
 * Bytes looked at one by one for a text's or a tag's end before the search goes to Buffer#indexOf. Most such
 * searches in a sheet end within a few bytes (a number, a close tag), where the call into the native search
 * costs more than the loop. A text longer than that pays the loop on top of the call, and has the next text
 * looked for with the call at once (shared strings and long cells run long text after long text).
 */
const NEAR_BYTES = 16;

/** The first `c` in b[i, n), or -1. */
function seek(b: Buffer, c: number, i: number, n: number): number {
  const stop = i + NEAR_BYTES < n ? i + NEAR_BYTES : n;
  for (; i < stop; i++) if (b[i] === c) return i;
  return stop < n ? b.indexOf(c, stop) : -1;
}

const isNameEnd = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === SLASH || c === GT;

export class XmlScanner {
  /**
   * The cut token left by the last chunk, at [0, restLen), followed by the next chunk when there is one: one
   * buffer reused for the whole part, not a new joined copy per chunk (on a 32 MB sheet those 256 KB copies
   * piled up between collections, some 10–20 MB of the read's peak).
   */
  private work = Buffer.alloc(0);
  private restLen = 0;
  private depth = 0;
  private started = false;
  constructor(private readonly h: XmlHandler) {}

  private paused = false;
  /** The last text ran past NEAR_BYTES (NEAR_BYTES says why it matters). */
  private longText = false;

  /**
   * Stops after the token being handled: the rest of the chunk waits (as a cut token does) until resume(). A
   * reader that has read what it was asked for stops there, and goes on later from the same place.
   */
  pause(): void {
    this.paused = true;
  }

  /** Scans what waited since pause(). */
  resume(): void {
    this.paused = false;
    this.push(new Uint8Array(0));
  }

  /** A UTF-16 part (it starts with a BOM) is turned into UTF-8 as it comes, and scanned as any other. */
  private utf16: TextDecoder | null = null;

  push(chunk: Uint8Array): void {
    if (this.utf16) chunk = Buffer.from(this.utf16.decode(chunk, { stream: true }), 'utf8');
    else if (!this.started && chunk.length > 0) {
      this.started = true;
      const le = chunk[0] === 0xff && chunk[1] === 0xfe;
      if (le || (chunk[0] === 0xfe && chunk[1] === 0xff)) {
        // Legal OOXML (ECMA-376 Part 2 §8.1.4) that Excel reads, though programs rarely write it.
        this.utf16 = new TextDecoder(le ? 'utf-16le' : 'utf-16be');
        chunk = Buffer.from(this.utf16.decode(chunk, { stream: true }), 'utf8');
      }
    }
    let b: Buffer;
    if (this.restLen === 0) b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    else {
      const size = this.restLen + chunk.length;
      this.reserve(size);
      this.work.set(chunk, this.restLen);
      b = this.work.subarray(0, size);
    }
    this.restLen = 0;
    const stop = this.scan(b);
    if (stop < b.length) {
      const rest = b.length - stop;
      if (rest > MAX_TOKEN_BYTES) throw damaged(`XML token over ${MAX_TOKEN_BYTES} bytes`);
      // Kept as a copy: the chunk's buffer is not ours to keep.
      if (b.buffer === this.work.buffer) this.work.copyWithin(0, stop, b.length);
      else {
        this.reserve(rest);
        b.copy(this.work, 0, stop);
      }
      this.restLen = rest;
    }
  }

  /** The part has ended: anything left is a cut token. */
  end(): void {
    if (this.utf16) {
      // An odd byte left at the end is a damaged part: the decoder makes it U+FFFD, and the scan goes on to its end.
      const tail = this.utf16.decode();
      this.utf16 = null;
      if (tail) this.push(Buffer.from(tail, 'utf8'));
    }
    const rest = this.work.subarray(0, this.restLen);
    if (rest.some((c) => c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d)) throw damaged('XML part ends inside a token');
    this.restLen = 0;
    this.work = Buffer.alloc(0);
  }

  /** Room for `size` bytes in the work buffer, keeping the cut token at its start. */
  private reserve(size: number): void {
    if (size <= this.work.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(size, 2 * this.work.length, 64 * 1024));
    this.work.copy(grown, 0, 0, this.restLen);
    this.work = grown;
  }

  /** Handles every complete token of `b`; returns where the first incomplete one starts. */
  private scan(b: Buffer): number {
    const h = this.h;
    const n = b.length;
    let i = 0;
    while (i < n) {
      if (this.paused) return i;
      if (b[i] !== LT) {
        const lt = this.longText ? b.indexOf(LT, i) : seek(b, LT, i, n);
        this.longText = lt < 0 || lt - i > NEAR_BYTES;
        if (lt >= 0) {
          h.text(b, i, lt, false);
          i = lt;
          continue;
        }
        // Long text is handed over in pieces rather than held (whitespace between elements may run for
        // megabytes); a piece never ends inside a character or an entity.
        if (n - i <= TEXT_PIECE_BYTES) return i;
        const cut = safeCut(b, i, n);
        h.text(b, i, cut, false);
        return cut;
      }
      if (i + 1 >= n) return i;
      const c1 = b[i + 1];
      if (c1 === SLASH) {
        const gt = seek(b, GT, i + 2, n);
        if (gt < 0) return i;
        let ne = i + 2;
        while (ne < gt && !isNameEnd(b[ne])) ne++;
        h.close(b, localStart(b, i + 2, ne), ne);
        this.depth--;
        i = gt + 1;
        continue;
      }
      if (c1 === BANG) {
        if (n - i < 4) return i;
        if (b[i + 2] === 0x2d && b[i + 3] === 0x2d) {
          const end = b.indexOf(COMMENT_END, i + 4);
          if (end < 0) return i;
          i = end + 3;
          continue;
        }
        if (b[i + 2] === 0x5b) {
          if (n - i < 9) return i;
          if (b.compare(CDATA, 0, 9, i, i + 9) !== 0) throw damaged('malformed <![ section');
          const end = b.indexOf(CDATA_END, i + 9);
          if (end < 0) return i;
          h.text(b, i + 9, end, true);
          i = end + 3;
          continue;
        }
        // <!DOCTYPE, <!ENTITY and anything else a DTD could bring.
        throw new FormatError('xml-dtd', 'XML with a DTD');
      }
      if (c1 === QUESTION) {
        const end = b.indexOf(PI_END, i + 2);
        if (end < 0) return i;
        i = end + 2;
        continue;
      }
      // A start tag: its end is the first `>` outside quotes (a quoted value may hold `>`).
      let j = i + 1;
      let gt = -1;
      while (j < n) {
        const c = b[j];
        if (c === GT) {
          gt = j;
          break;
        }
        if (c === 0x22 || c === 0x27) {
          const q = seek(b, c, j + 1, n);
          if (q < 0) return i;
          j = q + 1;
        } else j++;
      }
      if (gt < 0) return i;
      let ne = i + 1;
      while (ne < gt && !isNameEnd(b[ne])) ne++;
      const self = b[gt - 1] === SLASH;
      const ln = localStart(b, i + 1, ne);
      if (!self && ++this.depth > MAX_DEPTH) throw damaged(`XML nested deeper than ${MAX_DEPTH}`);
      h.open(b, ln, ne, self ? gt - 1 : gt, self);
      if (self) h.close(b, ln, ne);
      i = gt + 1;
    }
    return i;
  }
}

/** An end for a text piece in [s, e) that cuts neither a UTF-8 sequence nor an `&…;` reference. */
function safeCut(b: Buffer, s: number, e: number): number {
  // The last character may still lack bytes: cut before it (at a byte that starts a character).
  let k = e - 1;
  while (k > s && (b[k] & 0xc0) === 0x80) k--;
  // An `&…;` reference not finished before the cut goes whole to the next piece.
  const amp = b.lastIndexOf(0x26, k - 1);
  if (amp >= s && amp > k - 12) {
    const semi = b.indexOf(0x3b, amp);
    if (semi < 0 || semi >= k) k = amp;
  }
  return k;
}

/** Where the local name starts: after the prefix and its colon, if any. */
function localStart(b: Buffer, s: number, e: number): number {
  for (let k = e - 1; k >= s; k--) if (b[k] === COLON) return k + 1;
  return s;
}

/** Whether bytes [s, e) spell `name` (ASCII). */
export function nameIs(b: Buffer, s: number, e: number, name: string): boolean {
  if (e - s !== name.length) return false;
  for (let k = 0; k < name.length; k++) if (b[s + k] !== name.charCodeAt(k)) return false;
  return true;
}

/**
 * Walks the attributes of a start tag: after `next()` returns true, the local name is in [ns, ne) and the raw
 * value in [vs, ve). One cursor is reused for every tag, so reading attributes allocates nothing.
 */
export class AttrCursor {
  ns = 0;
  ne = 0;
  vs = 0;
  ve = 0;
  private b: Buffer = Buffer.alloc(0);
  private p = 0;
  private e = 0;

  reset(b: Buffer, s: number, e: number): this {
    this.b = b;
    this.p = s;
    this.e = e;
    return this;
  }

  next(): boolean {
    const b = this.b;
    let p = this.p;
    const e = this.e;
    while (p < e && (b[p] === 0x20 || b[p] === 0x09 || b[p] === 0x0a || b[p] === 0x0d)) p++;
    if (p >= e) return false;
    const start = p;
    let colon = -1;
    while (p < e && b[p] !== 0x3d && b[p] !== 0x20 && b[p] !== 0x09 && b[p] !== 0x0a && b[p] !== 0x0d) {
      if (b[p] === COLON) colon = p;
      p++;
    }
    const nameEnd = p;
    while (p < e && b[p] !== 0x3d) p++;
    p++;
    while (p < e && (b[p] === 0x20 || b[p] === 0x09 || b[p] === 0x0a || b[p] === 0x0d)) p++;
    const q = b[p];
    if (p >= e || (q !== 0x22 && q !== 0x27)) throw damaged('malformed XML attribute');
    const close = b.indexOf(q, p + 1);
    if (close < 0 || close >= e) throw damaged('malformed XML attribute');
    // `xmlns:x` keeps its prefix: it is a declaration, not an attribute `x`.
    this.ns = colon >= 0 && !(colon - start === 5 && nameIs(b, start, colon, 'xmlns')) ? colon + 1 : start;
    this.ne = nameEnd;
    this.vs = p + 1;
    this.ve = close;
    this.p = close + 1;
    return true;
  }

  is(name: string): boolean {
    return nameIs(this.b, this.ns, this.ne, name);
  }

  /** The value as text, entities decoded. */
  value(): string {
    return decodeEntities(this.b.toString('utf8', this.vs, this.ve));
  }
}

/** Every attribute of a start tag by local name, values decoded: for the small parts, never per cell. */
export function attributesOf(b: Buffer, s: number, e: number): Record<string, string> {
  // No prototype: an attribute named `__proto__` is an ordinary key, never a prototype assignment.
  const out: Record<string, string> = Object.create(null);
  const a = new AttrCursor().reset(b, s, e);
  while (a.next()) out[b.toString('latin1', a.ns, a.ne)] = a.value();
  return out;
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ENTITY = /&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));/g;

/** The five predefined entities and numeric references; anything else (an undeclared `&name;`) stays as written. */
export function decodeEntities(s: string): string {
  if (s.indexOf('&') < 0) return s;
  return s.replace(ENTITY, (m, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
    if (name) return NAMED[name];
    const cp = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
  });
}

const ESCAPE = /_x([0-9A-Fa-f]{4})_/g;

/**
 * OOXML's own escape of characters XML cannot hold, `_xHHHH_` (ECMA-376 §22.4.2.4); Excel writes a literal
 * `_x0041_` as `_x005F_x0041_`, which one left-to-right pass undoes correctly.
 */
export function unescapeOoxml(s: string): string {
  return s.indexOf('_x') < 0 ? s : s.replace(ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * A piece of character data as an XML parser gives it: a line end written as CR LF in the markup is LF (XML
 * 1.0 §2.11), then entities and character references are decoded (`&#13;` is a CR that stays). A lone CR, or
 * a CR LF split between two pieces, is kept as written: never a character lost.
 */
export function xmlText(piece: string, literal: boolean): string {
  const lf = piece.indexOf('\r\n') < 0 ? piece : piece.replace(/\r\n/g, '\n');
  return literal ? lf : decodeEntities(lf);
}

/**
 * A cell's text as Excel shows it: OOXML escapes undone, so `_x000D_` before a line end is the CR of a CR LF
 * that Excel keeps (openpyxl 3.0 and Gnumeric leave escapes as written; SheetJS also makes CR LF an LF).
 */
export function cellString(s: string): string {
  return unescapeOoxml(s);
}

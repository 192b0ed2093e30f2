// Records of the Workbook stream, and the BIFF8 strings in them ([MS-XLS] 2.1.4, 2.5.293–2.5.296).
//
// A record longer than 8,224 bytes goes on in CONTINUE records. A record read here whole (SST, STRING, LABEL,
// FORMAT, BOUNDSHEET8) gets its CONTINUE payloads joined, with the offsets where each one began (`marks`):
// a character array cut by a CONTINUE goes on after one byte that says again whether the characters are
// compressed (one byte each, U+0000–U+00FF) or UTF-16; nothing else in a record (headers, rich-text runs,
// phonetic data) gets that byte. Strings are decoded as Unicode whatever the CODEPAGE record says: in BIFF8
// the code page only matters to BIFF5 and older, which go to SheetJS.
import { damaged } from '../errors.ts';

export const CONTINUE = 0x003c;

/** The payload of one record with its CONTINUE records joined. */
export interface Payload {
  data: Buffer;
  /** Offsets in `data` where a CONTINUE payload starts, ascending. */
  marks: number[];
  /** Stream offset of the record after the last CONTINUE. */
  next: number;
}

export const u16 = (b: Uint8Array, p: number) => b[p] | (b[p + 1] << 8);
export const u32 = (b: Uint8Array, p: number) => (b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24)) >>> 0;

/** The record whose header starts at `p`, with the CONTINUE records after it. */
export function gather(s: Buffer, p: number): Payload {
  const start = p + 4;
  let next = start + u16(s, p + 2);
  if (next > s.length) throw damaged('BIFF record past the end of the stream');
  if (next + 4 > s.length || u16(s, next) !== CONTINUE) return { data: s.subarray(start, next), marks: [], next };
  const pieces: [number, number][] = [[start, next]];
  while (next + 4 <= s.length && u16(s, next) === CONTINUE) {
    const from = next + 4;
    next = from + u16(s, next + 2);
    if (next > s.length) throw damaged('BIFF record past the end of the stream');
    pieces.push([from, next]);
  }
  let total = 0;
  for (const [a, b] of pieces) total += b - a;
  const data = Buffer.allocUnsafe(total);
  const marks: number[] = [];
  let at = 0;
  for (const [a, b] of pieces) {
    // An empty CONTINUE holds not even the flags byte: the next one's mark stands for both (marks ascend).
    if (at > 0 && b > a && marks[marks.length - 1] !== at) marks.push(at);
    data.set(s.subarray(a, b), at);
    at += b - a;
  }
  return { data, marks, next };
}

/** Reads strings from a payload, left to right. */
export class TextReader {
  pos = 0;
  private mark = 0;

  constructor(private readonly p: Payload) {}

  get length(): number {
    return this.p.data.length;
  }

  need(n: number): void {
    if (this.pos + n > this.p.data.length) throw damaged('BIFF string past the end of its record');
  }

  u8(): number {
    this.need(1);
    return this.p.data[this.pos++];
  }

  u16(): number {
    this.need(2);
    const v = u16(this.p.data, this.pos);
    this.pos += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const v = u32(this.p.data, this.pos);
    this.pos += 4;
    return v;
  }

  /** XLUnicodeString: a 16-bit count, the flags byte, the characters. */
  unicodeString(): string {
    const cch = this.u16();
    const flags = this.u8();
    return this.chars(cch, (flags & 1) !== 0);
  }

  /** `cch` characters, compressed or UTF-16, re-reading the flag at each CONTINUE they cross. */
  chars(cch: number, wide: boolean): string {
    const { data, marks } = this.p;
    let out = '';
    let left = cch;
    while (left > 0) {
      while (this.mark < marks.length && marks[this.mark] < this.pos) this.mark++;
      const mark = this.mark < marks.length ? marks[this.mark] : Infinity;
      if (mark === this.pos) {
        wide = this.u8() !== 0;
        this.mark++;
        continue;
      }
      const unit = wide ? 2 : 1;
      const n = Math.min(left, Math.floor((mark - this.pos) / unit));
      if (n === 0) throw damaged('BIFF string cut inside a character');
      const end = this.pos + n * unit;
      if (end > data.length) throw damaged('BIFF string past the end of its record');
      out += data.toString(wide ? 'utf16le' : 'latin1', this.pos, end);
      this.pos = end;
      left -= n;
    }
    return out;
  }
}

/**
 * The shared string table: XLUnicodeRichExtendedString after XLUnicodeRichExtendedString, rich-text runs and
 * phonetic data skipped. As many as the record holds, whatever its counts claim: a table that says more ends
 * with its record, one that says fewer ends there (a later index past it is refused when a cell uses it).
 */
export function readSst(p: Payload): string[] {
  const r = new TextReader(p);
  r.u32(); // total references
  const unique = r.u32();
  const out: string[] = [];
  for (let i = 0; i !== unique && r.pos < r.length; i++) {
    const cch = r.u16();
    const flags = r.u8();
    const runs = flags & 0x08 ? r.u16() : 0;
    const ext = flags & 0x04 ? r.u32() : 0;
    out.push(cch === 0 ? '' : r.chars(cch, (flags & 1) !== 0));
    r.pos += 4 * runs + ext;
  }
  return out;
}

// BIFF8 records written into growing byte blocks ([MS-XLS] 2.1.4): a record is a 2-byte type, a 2-byte length
// and at most MAX_PAYLOAD bytes; longer content goes on in CONTINUE records (sst.ts does that for strings).

export const MAX_PAYLOAD = 8224;
export const CONTINUE = 0x003c;

/** Bytes a block holds before the next one starts: big enough that the blocks stay few, small enough to never matter. */
const BLOCK = 1 << 20;

/**
 * An append-only byte sink in blocks of 1 MB: nothing is copied as it grows, and `position` is the stream
 * offset of the next byte, relative to wherever the sink's bytes will start.
 */
export class ByteSink {
  /** The block being written; `at` is its next free byte. */
  b: Buffer;
  at = 0;
  private readonly done: Buffer[] = [];
  private doneBytes = 0;

  constructor(private readonly blockBytes = BLOCK) {
    this.b = Buffer.allocUnsafeSlow(blockBytes);
  }

  get position(): number {
    return this.doneBytes + this.at;
  }

  /** Room for `n` more bytes in the current block (records never straddle blocks). */
  room(n: number): void {
    if (this.at + n <= this.b.length) return;
    this.done.push(this.b.subarray(0, this.at));
    this.doneBytes += this.at;
    this.b = Buffer.allocUnsafeSlow(Math.max(this.blockBytes, n));
    this.at = 0;
  }

  /** Starts a record of `len` payload bytes and returns where its payload starts in `b`; the caller fills it. */
  record(type: number, len: number): number {
    this.room(len + 4);
    const b = this.b;
    const p = this.at;
    b[p] = type & 0xff;
    b[p + 1] = type >> 8;
    b[p + 2] = len & 0xff;
    b[p + 3] = len >> 8;
    this.at = p + 4 + len;
    return p + 4;
  }

  /** A record whose payload is given whole (at most MAX_PAYLOAD bytes). */
  put(type: number, payload: ArrayLike<number>): void {
    if (payload.length > MAX_PAYLOAD) throw new Error(`BIFF record 0x${type.toString(16)} of ${payload.length} bytes`);
    const p = this.record(type, payload.length);
    this.b.set(payload, p);
  }

  /** Raw bytes, already laid out as records. */
  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.b.set(bytes, this.at);
    this.at += bytes.length;
  }

  /** The bytes written, as blocks in order; the sink is not to be used after. */
  blocks(): Buffer[] {
    if (this.at > 0) this.done.push(this.b.subarray(0, this.at));
    this.b = Buffer.alloc(0);
    this.at = 0;
    return this.done;
  }
}

/** A small payload built field by field, for the records written once per file or sheet. */
export class Fields {
  private readonly bytes: number[] = [];
  u8(v: number): this {
    this.bytes.push(v & 0xff);
    return this;
  }
  u16(v: number): this {
    this.bytes.push(v & 0xff, (v >> 8) & 0xff);
    return this;
  }
  u32(v: number): this {
    this.bytes.push(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff);
    return this;
  }
  f64(v: number): this {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(v);
    this.bytes.push(...b);
    return this;
  }
  /** UTF-16 code units, as the wide form of BIFF8 strings stores them. */
  utf16(s: string): this {
    for (let i = 0; i < s.length; i++) this.u16(s.charCodeAt(i));
    return this;
  }
  /** XLUnicodeString: 16-bit count, flags (always the wide form here), characters. */
  unicodeString(s: string): this {
    return this.u16(s.length).u8(1).utf16(s);
  }
  get payload(): number[] {
    return this.bytes;
  }
}

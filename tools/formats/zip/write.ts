// ZIP output: fflate lays out the archive, Node's zlib deflates. Measured on a 47 MB sheet XML: fflate level 6
// 901 ms (6.13 MB), zlib level 4 about 200 ms (6.29 MB), zlib level 1 118 ms (7.17 MB).
import { promisify } from 'node:util';
import { constants, crc32, createGzip, deflateRawSync, gzip } from 'node:zlib';
import { BoundedMap } from '../util/bounded-map.ts';
import { joinBytes } from '../util/bytes.ts';
import type { ResultBudget } from '../budget.ts';
import { Zip, ZipPassThrough, type AsyncFlateStreamHandler, type ZipInputFile } from 'fflate';

/** Every entry's date: results are reproducible byte for byte and carry no clue about when or where. */
export const ZIP_MTIME = new Date('2000-01-01T00:00:00Z');

/** Text gathered before it is encoded and deflated: pieces this big lose nothing measurable to the restart. */
const PIECE_BYTES = 1 << 20;

/** General-purpose bits 1–2: how hard the deflater tried (APPNOTE 4.4.4), encoded as fflate does. */
const levelFlag = (level: number) => (level === 1 ? 3 : level < 6 ? 2 : level === 9 ? 1 : 0);

/**
 * An entry deflated whole (it never filled a piece) and no larger than this is deflated at level 1: on the
 * 40 KB sheet of a 10 KB CSV, level 4 took 140-220 µs and level 1 75 µs, for 440 bytes more.
 */
const FAST_WHOLE_BYTES = 256 * 1024;

const STAGING_MIN = 64 * 1024;
const STAGING_MAX = 2 * PIECE_BYTES;
/**
 * The largest staging buffer of an ended entry, for the next one: entries are written one after another, and
 * each growing its own to 2 MB left ~4 MB of buffers per part until the next full collection (split-rows, ten
 * xlsx parts: growth 82 -> 72 MB).
 */
let spare: Buffer | null = null;

/**
 * A ZIP entry deflated by zlib as its content comes. Each piece is deflated on its own and ends with a sync
 * flush (byte aligned, not final), so the pieces concatenate into one valid deflate stream; the last one ends it.
 *
 * An entry may also get a head known only once its content is written (a worksheet's `<dimension>` and `<cols>`
 * depend on every row): the content's deflated pieces are then held, the head is deflated on its own and put in
 * front of them, an empty final block ends the stream, and the CRC-32 of head + content is combined from the two.
 * Holding costs nothing extra: every deflated piece is kept until the archive is finished anyway.
 *
 * The entry joins its archive (`add`) only with its first deflated bytes, once its level is settled: the local
 * header fflate writes then names the level used (a small entry's is 1, FAST_WHOLE_BYTES).
 */
export class ZlibEntry implements ZipInputFile {
  size = 0;
  crc = 0;
  compression = 8;
  flag = 0;
  mtime = ZIP_MTIME;
  ondata!: AsyncFlateStreamHandler;
  private added = false;
  /** Content not deflated yet, encoded into one buffer of this entry (allocated at its first write). */
  private staging: Buffer | null = null;
  private used = 0;
  /** Deflated pieces held back until the head is known; null when pieces go out as they come. */
  private held: ReturnType<typeof deflateRawSync>[] | null;
  private readonly budget: ResultBudget | null;
  private readonly add: (entry: ZlibEntry) => void;

  constructor(
    readonly filename: string,
    private level: number,
    o: {
      /** Adds the entry to its archive (fflate's Zip.add). */
      add: (entry: ZlibEntry) => void;
      headLater?: boolean;
      /** Counts each deflated piece as it is made, held or not (budget.ts). */
      budget?: ResultBudget | null;
    },
  ) {
    this.held = o.headLater ? [] : null;
    this.budget = o.budget ?? null;
    this.add = o.add;
  }

  /** Hands deflated bytes to the archive, joining it first. */
  private out(data: Uint8Array<ArrayBuffer>, final: boolean): void {
    if (!this.added) {
      this.added = true;
      this.flag = levelFlag(this.level);
      this.add(this);
    }
    this.ondata(null, data, final);
  }

  write(chunk: string | Uint8Array): void {
    if (typeof chunk === 'string') {
      // At most 3 bytes per UTF-16 unit.
      if (chunk.length * 3 > PIECE_BYTES) return void this.write(Buffer.from(chunk, 'utf8'));
      this.room(chunk.length * 3);
      this.used += this.staging!.write(chunk, this.used, 'utf8');
    } else {
      for (let at = 0; at < chunk.length; ) {
        this.room(1);
        const n = Math.min(chunk.length - at, this.staging!.length - this.used);
        this.staging!.set(chunk.subarray(at, at + n), this.used);
        this.used += n;
        at += n;
      }
    }
    if (this.used >= PIECE_BYTES) this.deflate(false);
  }

  /** Ends the entry; `head` is required when the entry was made with `headLater`, and goes before the content. */
  end(head = ''): void {
    if (this.held === null) return void this.deflate(true);
    const headBytes = Buffer.byteLength(head, 'utf8');
    if (this.held.length === 0 && this.used + headBytes <= STAGING_MAX) return void this.endWhole(head, headBytes);
    this.deflate(false);
    this.release();
    const data = Buffer.from(head, 'utf8');
    this.crc = crc32Combine(crc32(data), this.crc, this.size);
    this.size += data.length;
    this.out(deflateRawSync(data, { level: this.level, finishFlush: constants.Z_SYNC_FLUSH }), false);
    for (const piece of this.held) this.out(piece, false);
    this.held = null;
    // A final fixed-Huffman block holding nothing but its end code.
    this.out(new Uint8Array([0x03, 0x00]), true);
  }

  /**
   * The content never left the staging buffer (a small part): head and content are deflated as one stream,
   * as any other entry is. One zlib start fewer, and a 10 KB CSV -> xlsx run is mostly such fixed costs.
   */
  private endWhole(head: string, headBytes: number): void {
    // The content moves up inside the staging buffer to make room for the head, which room() makes without
    // deflating anything: both fit in its largest size.
    this.room(headBytes);
    const buf = this.staging!;
    buf.copyWithin(headBytes, 0, this.used);
    buf.write(head, 0, 'utf8');
    this.used += headBytes;
    this.held = null;
    this.deflate(true);
  }

  private release(): void {
    if (this.staging && this.staging.length > (spare?.length ?? 0)) spare = this.staging;
    this.staging = null;
  }

  /**
   * Makes room for `bytes` more: the buffer grows by doubling up to two pieces, so a small part never allocates
   * 2 MB; the spare of an ended entry is taken first when it is big enough.
   */
  private room(bytes: number): void {
    if (this.used + bytes > STAGING_MAX) this.deflate(false);
    const need = this.used + bytes;
    if (this.staging && need <= this.staging.length) return;
    const size = Math.min(STAGING_MAX, Math.max(STAGING_MIN, 2 ** Math.ceil(Math.log2(need))));
    let next: Buffer;
    if (spare !== null && spare.length >= size) [next, spare] = [spare, null];
    else next = Buffer.allocUnsafeSlow(size);
    if (this.staging) this.staging.copy(next, 0, 0, this.used);
    this.staging = next;
  }

  private deflate(final: boolean): void {
    const data = this.staging ? this.staging.subarray(0, this.used) : Buffer.alloc(0);
    this.used = 0;
    if (final) this.release();
    if (this.held !== null && data.length === 0) return;
    // Nothing deflated before and nothing to come: the whole entry is this piece.
    if (final && this.size === 0 && data.length <= FAST_WHOLE_BYTES) this.level = Math.min(this.level, 1);
    this.size += data.length;
    this.crc = crc32(data, this.crc);
    const out = deflateRawSync(data, { level: this.level, finishFlush: final ? constants.Z_FINISH : constants.Z_SYNC_FLUSH });
    this.budget?.add(out.length);
    if (this.held !== null) this.held.push(out);
    else this.out(out, final);
  }
}

// CRC-32 of A followed by B from crc(A), crc(B) and B's length: zlib's crc32_combine (multiplication by x^(8n)
// modulo the CRC polynomial), which Node does not expose.
const POLY = 0xedb88320;

function multModP(a: number, b: number): number {
  let p = 0;
  for (let m = 0x80000000; m !== 0; m >>>= 1) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}

/** x^(2^k) modulo the polynomial, for k = 0…31. */
const X2N: number[] = [];
for (let k = 0, p = 0x40000000; k < 32; k++, p = multModP(p, p)) X2N.push(p);

export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  let p = 0x80000000;
  // x^(8·lengthB): the bits of the length, starting at x^(2^3) for the 8 bits a byte shifts.
  for (let n = lengthB, k = 3; n > 0; n = Math.floor(n / 2), k++) if (n % 2 === 1) p = multModP(X2N[k & 31], p);
  return (multModP(p, crcA) ^ crcB) >>> 0;
}

/** An entry whose deflated bytes are already known. */
class DeflatedEntry implements ZipInputFile {
  compression = 8;
  mtime = ZIP_MTIME;
  ondata!: AsyncFlateStreamHandler;
  constructor(
    readonly filename: string,
    readonly size: number,
    readonly crc: number,
    readonly flag: number,
  ) {}
}

export interface Deflated {
  level: number;
  size: number;
  crc: number;
  flag: number;
  /** The deflated stream, in the pieces it was made in (put into the ZIP one after another, never joined). */
  pieces: Uint8Array<ArrayBuffer>[];
}

/**
 * Output room per step of an async deflate: each step waits for this thread to take the last one's bytes, so
 * with zlib's default 16 KB a piece took ~16 steps and stalled while the tool wrote its next part; a level-1
 * piece of text fits in one or two steps of this size.
 */
const ASYNC_OUT_BYTES = 256 * 1024;

const gzipAsync = promisify(gzip);
/** zlib's gzip header (no name, no time, no extra field) and trailer (CRC-32 and size of the input). */
const GZIP_HEAD = 10;
const GZIP_TAIL = 8;
/** What ends a stream that was just sync-flushed: a final fixed-Huffman block holding only its end code. */
const EMPTY_FINAL = 2;

/**
 * A piece deflated on libuv's threads with gzip framing, whose body is the raw deflate stream a ZIP entry holds
 * (the same bytes as deflateRaw's) and whose trailer gives the piece's CRC-32: computed by zlib as it reads the
 * piece, off this thread, where node's crc32() would read it again on this one. A piece other than the last
 * is written with a sync flush, then finished, which adds only the empty final block and the trailer, both
 * left out.
 */
function deflatePiece(piece: Uint8Array, level: number, last: boolean): Promise<{ body: Uint8Array<ArrayBuffer>; crc: number }> {
  const framed = (gz: Buffer, tail: number) => ({ body: gz.subarray(GZIP_HEAD, gz.length - tail) as Uint8Array<ArrayBuffer>, crc: gz.readUInt32LE(gz.length - GZIP_TAIL) });
  if (last) return gzipAsync(piece, { level, chunkSize: ASYNC_OUT_BYTES }).then((gz) => framed(gz, GZIP_TAIL));
  return new Promise((resolve, reject) => {
    const gz = createGzip({ level, chunkSize: ASYNC_OUT_BYTES, flush: constants.Z_SYNC_FLUSH });
    const chunks: Buffer[] = [];
    gz.on('data', (c: Buffer) => chunks.push(c));
    gz.on('error', reject);
    // Joined, as gzip() joins its output: a chunk is a view of a 256 KB buffer, kept whole while it is held.
    gz.on('end', () => resolve(framed(Buffer.concat(chunks), EMPTY_FINAL + GZIP_TAIL)));
    gz.write(piece);
    gz.end();
  });
}

/**
 * Bytes deflated on libuv's threads, a piece at a time in parallel, as pigz does: each piece but the last ends
 * with a sync flush (byte aligned, not final), so the pieces concatenate into one deflate stream. This thread
 * only combines the pieces' CRCs. Several result files of a download (split-rows, 100,000 CSV rows in ten
 * parts) deflated one after another on the job's thread took about as long as cutting them; on two cores in
 * parallel, and beside the job's thread, they cost about half.
 */
export async function deflatePieces(bytes: Uint8Array, level: number): Promise<Deflated> {
  const pieces: Promise<{ body: Uint8Array<ArrayBuffer>; crc: number }>[] = [];
  for (let at = 0; at < bytes.length || at === 0; at += PIECE_BYTES) pieces.push(deflatePiece(bytes.subarray(at, at + PIECE_BYTES), level, at + PIECE_BYTES >= bytes.length));
  const done = await Promise.all(pieces);
  let crc = 0;
  done.forEach((d, i) => (crc = i === 0 ? d.crc : crc32Combine(crc, d.crc, Math.min(PIECE_BYTES, bytes.length - i * PIECE_BYTES))));
  return { level, size: bytes.length, crc, flag: levelFlag(level), pieces: done.map((d) => d.body) };
}

/**
 * Small parts that repeat from one result to the next (an xlsx's content types, relationships, styles) are
 * deflated once per worker: for a 10 KB CSV -> xlsx, starting zlib for each of them cost more than the sheet.
 * Bounded in count and size, and emptied when full, so hostile sheet names cannot grow it.
 */
const MEMO_MAX_TEXT = 16 * 1024;
const MEMO_MAX_ENTRIES = 64;
/** By the text itself: a text that is the same string as last time is found without reading it again. */
const memo = new BoundedMap<string, Deflated>(MEMO_MAX_ENTRIES);

function deflateText(text: string, level: number): Deflated {
  const known = memo.get(text);
  if (known?.level === level) return known;
  const data = Buffer.from(text, 'utf8');
  const done: Deflated = { level, size: data.length, crc: crc32(data), flag: levelFlag(level), pieces: [new Uint8Array(deflateRawSync(data, { level }))] };
  return text.length <= MEMO_MAX_TEXT ? memo.set(text, done) : done;
}

/**
 * Builds a ZIP: `add` each entry's content, then `finish` for the bytes. With a `budget`, entries count their
 * bytes against it as they are deflated or stored.
 */
export function zipBuilder(budget: ResultBudget | null = null) {
  const chunks: Uint8Array[] = [];
  const zip = new Zip((err, data) => {
    if (err) throw err;
    chunks.push(data);
  });
  return {
    /** A deflated entry whose content is written through `write`. */
    deflated(path: string, level: number, write: (push: (chunk: string | Uint8Array) => void) => void): void {
      const entry = new ZlibEntry(path, level, { add: (e) => zip.add(e), budget });
      write((c) => entry.write(c));
      entry.end();
    },
    /** A deflated entry whose first bytes, `write`'s result, are known only once the rest is written. */
    deflatedHeadLast(path: string, level: number, write: (push: (chunk: string | Uint8Array) => void) => string): void {
      const entry = this.open(path, level, true);
      entry.end(write((c) => entry.write(c)));
    },
    /**
     * A deflated entry written as its content comes, until `end` (which takes the head of a `headLater` entry,
     * put in front). Entries are written one after another: the next opens once this one has ended.
     */
    open(path: string, level: number, headLater = false): { write(chunk: string | Uint8Array): void; end(head?: string): void } {
      const entry = new ZlibEntry(path, level, { add: (e) => zip.add(e), headLater, budget });
      return { write: (c) => entry.write(c), end: (head) => entry.end(head) };
    },
    /** A deflated entry of a short text, deflated once for all the results that repeat it. */
    deflatedText(path: string, level: number, text: string): void {
      this.deflatedBytes(path, deflateText(text, level));
    },
    /** An entry deflated beforehand (deflatePieces): its pieces go in as they are, joined only with the archive. */
    deflatedBytes(path: string, d: Deflated): void {
      budget?.add(d.pieces.reduce((n, p) => n + p.length, 0));
      const entry = new DeflatedEntry(path, d.size, d.crc, d.flag);
      zip.add(entry);
      d.pieces.forEach((p, i) => entry.ondata(null, p, i === d.pieces.length - 1));
    },
    /** An entry stored as it is: for content that is already compressed. */
    stored(path: string, bytes: Uint8Array): void {
      budget?.add(bytes.length);
      const entry = new ZipPassThrough(path);
      entry.mtime = ZIP_MTIME;
      zip.add(entry);
      entry.push(bytes, true);
    },
    /** The archive, in a Uint8Array of its own (never a slice of Node's shared buffer pool). */
    finish(): Uint8Array {
      zip.end();
      return joinBytes(chunks);
    },
  };
}

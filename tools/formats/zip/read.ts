// The ZIP container of xlsx (and ods) packages, read with its guards (tools.md §2.11, issue 4).
//
// fflate's unzip trusts the sizes a ZIP claims and inflates whole entries at once, so the directory is parsed
// here and entries are inflated with bounds on the bytes that really come out:
// - the central directory must agree with every local header (name, method, sizes, encryption flag), entries
//   must lie inside the file, before the directory, without overlapping one another (overlapping entries are
//   how the smallest bombs multiply one deflate stream), with no name twice (ignoring case: OPC [M1.12]) and
//   at most MAX_ENTRIES of them; otherwise the file is `invalid_file`;
// - an entry must inflate to exactly the size and CRC-32 its header gives, or it is `invalid_file`;
// - inflated bytes count against MAX_INFLATED_BYTES for the whole file and against MAX_RATIO past
//   RATIO_FREE_BYTES per entry: past either, `too_complex`, decided while inflating, not after;
// - an entry that claims at most WHOLE_ENTRY_BYTES is inflated by zlib in one call capped at its claimed size
//   (never more comes out: a longer stream stops at the cap and is `invalid_file`); a bigger one streams in
//   pieces (native zlib through inflate.ts, or fflate's `Inflate` where that is unavailable), so that
//   memory stays bounded whatever the sheet's size: a sheet's XML is never held whole;
// - only stored (0) and deflated (8) entries are read; an encrypted entry is a password-protected file.
import * as zlib from 'node:zlib';
import { Inflate } from 'fflate';
import { damaged, FormatError, passwordProtected, repairableDamage } from '../errors.ts';
import { rawInflater, type RawInflater } from './inflate.ts';

/** More entries than any workbook has (a big one has a few hundred); past it, a directory is hostile. */
export const MAX_ENTRIES = 10_000;
/**
 * Inflated bytes one file may produce in all. A sheet at the default cell limit (2 million cells) is about
 * 200 MB of XML; this leaves ten times that for styled empty cells and everything else, and about 15 s of work.
 */
export const MAX_INFLATED_BYTES = 2 * 1024 ** 3;
/**
 * Inflated-to-compressed ratio past which an entry is a bomb. Deflate cannot exceed about 1032:1; honest
 * sheets of repeated values reach a few hundred to one, so only streams of nearly nothing but one repeated
 * byte are stopped, and only past RATIO_FREE_BYTES, so that any small part may compress as well as it can.
 */
export const MAX_RATIO = 1000;
export const RATIO_FREE_BYTES = 16 * 1024 * 1024;
/**
 * Entries claiming up to this many bytes (workbook, styles, relationships) are inflated by zlib in one call;
 * bigger ones stream. Whole sheets used to be inflated at once (up to 64 MB): on 100,000 rows the 32 MB of
 * XML then lived as long as the read and until the next GC, a quarter of the run's peak; native zlib streams
 * it as fast (inflate.ts).
 */
export const WHOLE_ENTRY_BYTES = 1024 * 1024;
/**
 * Compressed bytes pushed to the inflater at a time. The ratio is checked per push, so a bomb is stopped within
 * its first RATIO_FREE_BYTES or so; each inflated chunk stays under about 17 MB. Measured: as fast as 64 KB.
 */
const PUSH_BYTES = 16 * 1024;

export interface ZipEntry {
  /** The name as stored (`/` separators). */
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  headerOffset: number;
  dataOffset: number;
}

export interface ZipArchive {
  bytes: Uint8Array;
  entries: ZipEntry[];
  /** An entry by part name, ignoring case and a leading `/`, as OPC part names compare. */
  get(name: string): ZipEntry | undefined;
}

const SIG_LOCAL = 0x04034b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_END = 0x06054b50;
const FLAG_ENCRYPTED = 0x0001;
const FLAG_DESCRIPTOR = 0x0008;
const FLAG_STRONG_ENCRYPTION = 0x0040;
const FLAG_UTF8 = 0x0800;
const METHOD_AES = 99;

const keyOf = (name: string) => name.replace(/\\/g, '/').replace(/^\/+/, '').toLowerCase();

/**
 * Parses and checks the directory; reads no entry data. Two names differing only in case are damage to the
 * readers that look parts up as OPC says (ignoring case), repairable when both hold the same bytes:
 * `caseTwins` lets those through for SheetJS (the first is the one `get` finds). Other twins are refused.
 */
export function openZip(bytes: Uint8Array, o: { caseTwins?: boolean } = {}): ZipArchive {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16 = (p: number) => dv.getUint16(p, true);
  const u32 = (p: number) => dv.getUint32(p, true);

  const end = findEnd(bytes, dv);
  if (u16(end + 4) !== 0 || u16(end + 6) !== 0) throw damaged('multi-disk ZIP');
  const count = u16(end + 10);
  const cdSize = u32(end + 12);
  const cdOffset = u32(end + 16);
  if (u16(end + 8) !== count) throw damaged('directory entry counts differ');
  // ZIP64 directories are for archives past 65,535 entries or 4 GB: no input of this service.
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) throw damaged('ZIP64 directory');
  if (count > MAX_ENTRIES) throw damaged(`more than ${MAX_ENTRIES} ZIP entries`);
  const cdEnd = cdOffset + cdSize;
  if (cdEnd > end) throw damaged('central directory outside the file');

  const entries: ZipEntry[] = [];
  const byKey = new Map<string, ZipEntry>();
  const names = new Set<string>();
  let p = cdOffset;
  for (let k = 0; k < count; k++) {
    if (p + 46 > cdEnd || u32(p) !== SIG_CENTRAL) throw damaged('central directory entry missing');
    const flags = u16(p + 8);
    const method = u16(p + 10);
    const crc = u32(p + 16);
    let compressedSize = u32(p + 20);
    let size = u32(p + 24);
    const nameLen = u16(p + 28);
    const extraLen = u16(p + 30);
    const commentLen = u16(p + 32);
    let headerOffset = u32(p + 42);
    const next = p + 46 + nameLen + extraLen + commentLen;
    if (next > cdEnd) throw damaged('central directory entry past the directory');
    const nameBytes = bytes.subarray(p + 46, p + 46 + nameLen);
    if (compressedSize === 0xffffffff || size === 0xffffffff || headerOffset === 0xffffffff) {
      const z = zip64Sizes(dv, p + 46 + nameLen, extraLen, { size, compressedSize, headerOffset });
      ({ size, compressedSize, headerOffset } = z);
    }
    if (flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION) || method === METHOD_AES) throw passwordProtected('encrypted ZIP entry');
    if (method !== 0 && method !== 8) throw damaged(`ZIP method ${method}`);
    if (method === 0 && compressedSize !== size) throw damaged('stored entry with two sizes');
    const name = Buffer.from(nameBytes).toString(flags & FLAG_UTF8 ? 'utf8' : 'latin1');
    const key = keyOf(name);
    const twin = byKey.get(key);
    if (twin !== undefined) {
      if (names.has(name)) throw damaged('duplicate ZIP entry name', name);
      // Twins with the same bytes lose nothing whichever is read; twins that differ leave the data in doubt.
      if (twin.crc !== crc || twin.size !== size) throw damaged('duplicate ZIP entry name differing only in case, other content', name);
      if (!o.caseTwins) throw repairableDamage('duplicate ZIP entry name differing only in case, same content', name);
    }
    names.add(name);

    // The local header must say the same: SheetJS reads names and sizes from there.
    const h = headerOffset;
    if (h + 30 > cdOffset || u32(h) !== SIG_LOCAL) throw damaged('local header missing');
    const localFlags = u16(h + 6);
    if ((localFlags & FLAG_ENCRYPTED) !== (flags & FLAG_ENCRYPTED)) throw damaged('local header disagrees');
    if (u16(h + 8) !== method) throw damaged('local header disagrees');
    const localNameLen = u16(h + 26);
    const localExtraLen = u16(h + 28);
    if (localNameLen !== nameLen || Buffer.compare(bytes.subarray(h + 30, h + 30 + nameLen), nameBytes) !== 0) throw damaged('local name disagrees');
    if (!(localFlags & FLAG_DESCRIPTOR)) {
      let lc = u32(h + 18);
      let ls = u32(h + 22);
      if (lc === 0xffffffff || ls === 0xffffffff) {
        const z = zip64Sizes(dv, h + 30 + nameLen, localExtraLen, { size: ls, compressedSize: lc, headerOffset: 0 });
        lc = z.compressedSize;
        ls = z.size;
      }
      if (lc !== compressedSize || ls !== size || u32(h + 14) !== crc) throw damaged('local sizes disagree');
    }
    const dataOffset = h + 30 + nameLen + localExtraLen;
    if (dataOffset + compressedSize > cdOffset) throw damaged('entry data past its bounds');

    const entry: ZipEntry = { name, method, flags, crc, compressedSize, size, headerOffset, dataOffset };
    entries.push(entry);
    if (!byKey.has(key)) byKey.set(key, entry);
    p = next;
  }
  if (p !== cdEnd) throw damaged('central directory size disagrees');

  const sorted = [...entries].sort((a, b) => a.headerOffset - b.headerOffset);
  for (let k = 1; k < sorted.length; k++) {
    const prev = sorted[k - 1];
    if (prev.dataOffset + prev.compressedSize > sorted[k].headerOffset) throw damaged('overlapping ZIP entries');
  }
  return { bytes, entries, get: (n) => byKey.get(keyOf(n)) };
}

/** The end-of-central-directory record: the last one, within the 64 KB a comment may take. */
function findEnd(bytes: Uint8Array, dv: DataView): number {
  const last = bytes.length - 22;
  const first = Math.max(0, last - 0xffff);
  for (let p = last; p >= first; p--) {
    if (bytes[p] === 0x50 && bytes[p + 1] === 0x4b && dv.getUint32(p, true) === SIG_END) {
      if (p + 22 + dv.getUint16(p + 20, true) > bytes.length) throw damaged('ZIP comment past the end');
      return p;
    }
  }
  throw damaged('no ZIP directory');
}

interface Sizes {
  size: number;
  compressedSize: number;
  headerOffset: number;
}

/** Values the 32-bit fields could not hold, from the ZIP64 extra field (0x0001), in its fixed order. */
function zip64Sizes(dv: DataView, at: number, len: number, s: Sizes): Sizes {
  const out = { ...s };
  for (let p = at; p + 4 <= at + len; ) {
    const id = dv.getUint16(p, true);
    const n = dv.getUint16(p + 2, true);
    if (p + 4 + n > at + len) break;
    if (id === 0x0001) {
      let q = p + 4;
      const take = () => {
        if (q + 8 > p + 4 + n) throw damaged('short ZIP64 field');
        const v = Number(dv.getBigUint64(q, true));
        q += 8;
        return v;
      };
      if (s.size === 0xffffffff) out.size = take();
      if (s.compressedSize === 0xffffffff) out.compressedSize = take();
      if (s.headerOffset === 0xffffffff) out.headerOffset = take();
      return out;
    }
    p += 4 + n;
  }
  throw damaged('ZIP64 sizes missing');
}

/**
 * Inflated bytes of one file read, against MAX_INFLATED_BYTES; the size up to which entries inflate whole; and
 * what streams the others (`fflate` only for tests of that fallback).
 */
export class InflateBudget {
  used = 0;
  constructor(
    readonly max = MAX_INFLATED_BYTES,
    readonly wholeEntryBytes = WHOLE_ENTRY_BYTES,
    readonly streamer: 'zlib' | 'fflate' = 'zlib',
  ) {}
}

/** Compressed bytes handed to native zlib at a time; the ratio is checked on every piece that comes out. */
const ZLIB_PUSH_BYTES = 64 * 1024;

/**
 * Streams one entry's inflated bytes to `onChunk`, counting them as they come; checks size and CRC at the end.
 * Stored entries are handed out as views of the file, without a copy. A chunk is valid only during the call
 * (streamed ones are views of a reused buffer): `onChunk` copies what it keeps.
 */
export function inflateEntry(zip: ZipArchive, entry: ZipEntry, budget: InflateBudget, onChunk: (chunk: Uint8Array) => void): void {
  for (const chunk of inflateChunks(zip, entry, budget)) onChunk(chunk);
}

/** inflateEntry, pulled: each chunk is valid until the next one is pulled. */
export function* inflateChunks(zip: ZipArchive, entry: ZipEntry, budget: InflateBudget): Generator<Uint8Array> {
  if (entry.size > budget.max - budget.used) throw tooBig(budget);
  const data = zip.bytes.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize);
  let produced = 0;
  let crc = 0;
  /** `consumed`: compressed bytes read so far, for the ratio. */
  const count: Count = (chunk, consumed) => {
    produced += chunk.length;
    budget.used += chunk.length;
    if (produced > entry.size) throw damaged('entry longer than its header says');
    if (budget.used > budget.max) throw tooBig(budget);
    if (produced > RATIO_FREE_BYTES && produced > MAX_RATIO * consumed) throw tooDense();
    crc = crc32(chunk, crc);
  };
  if (entry.method === 0) {
    for (let i = 0; i < data.length; i += PUSH_BYTES) {
      const end = Math.min(data.length, i + PUSH_BYTES);
      const chunk = data.subarray(i, end);
      count(chunk, end);
      yield chunk;
    }
  } else if (entry.size <= budget.wholeEntryBytes) {
    // The cap is the claim, so the ratio bound is decided on it before anything is inflated.
    if (entry.size > RATIO_FREE_BYTES && entry.size > MAX_RATIO * data.length) throw tooDense();
    let whole: Buffer;
    try {
      // One output buffer of the claimed size: zlib's default 16 KB pieces would be joined at the end, a second
      // copy of the whole part (measured on a 32 MB sheet: peak +63 MB and 90 ms, against +31 MB and 65 ms).
      const cap = Math.max(64, entry.size);
      whole = zlib.inflateRawSync(data, { maxOutputLength: cap, chunkSize: cap });
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw damaged('entry longer than its header says');
      throw damaged(`deflate: ${(err as Error).message}`);
    }
    count(whole, data.length);
    yield whole;
  } else {
    if (data.length === 0) throw damaged('empty deflate stream');
    const native = budget.streamer === 'zlib' ? rawInflater() : null;
    yield* native ? nativeChunks(native, data, count) : fflateChunks(data, count);
  }
  if (produced !== entry.size) throw damaged('entry shorter than its header says');
  if (crc !== entry.crc) throw damaged('CRC-32 mismatch');
}

type Count = (chunk: Uint8Array, consumed: number) => void;

function* nativeChunks(inflater: RawInflater, data: Uint8Array, count: Count): Generator<Uint8Array> {
  try {
    for (let i = 0; i < data.length; i += ZLIB_PUSH_BYTES) {
      const end = Math.min(data.length, i + ZLIB_PUSH_BYTES);
      for (const [chunk, consumed] of inflater.outputs(data.subarray(i, end), end === data.length)) {
        count(chunk, consumed);
        yield chunk;
      }
    }
  } catch (err) {
    // zlib's own errors (a corrupt or cut stream) carry a code such as Z_DATA_ERROR; ours pass through.
    if (err instanceof Error && /^Z_/.test(String((err as { code?: unknown }).code))) throw damaged(`deflate: ${err.message}`);
    throw err;
  } finally {
    inflater.close();
  }
}

function* fflateChunks(data: Uint8Array, count: Count): Generator<Uint8Array> {
  let consumed = 0;
  const out: Uint8Array[] = [];
  const inflater = new Inflate((chunk) => void out.push(chunk));
  for (let i = 0; i < data.length; i += PUSH_BYTES) {
    consumed = Math.min(data.length, i + PUSH_BYTES);
    try {
      inflater.push(data.subarray(i, consumed), consumed === data.length);
    } catch (err) {
      // fflate's own errors (a corrupt or cut stream) carry a numeric code; ours pass through.
      if (err instanceof Error && typeof (err as { code?: unknown }).code === 'number') throw damaged(`deflate: ${err.message}`);
      throw err;
    }
    for (let k = 0; k < out.length; k++) {
      count(out[k], consumed);
      yield out[k];
    }
    out.length = 0;
  }
}

/** A whole (small) entry as bytes, through the same counting. */
export function inflateWhole(zip: ZipArchive, entry: ZipEntry, budget: InflateBudget): Uint8Array {
  const parts: Uint8Array[] = [];
  // Streamed chunks are views of a reused buffer: kept as copies.
  inflateEntry(zip, entry, budget, (c) => parts.push(new Uint8Array(c)));
  return parts.length === 1 ? parts[0] : Buffer.concat(parts);
}

const tooDense = () => new FormatError('zip-ratio', 'compression ratio', { params: { reason: 'ratio', max: MAX_RATIO } });

const tooBig = (budget: InflateBudget) =>
  new FormatError('zip-size', 'inflated size', { params: { reason: 'inflated', max: Math.round(budget.max / 1024 ** 2) } });

// Node's native CRC-32 arrived in 20.15; a table-driven one covers older 20.x releases.
const nativeCrc = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
let table: Uint32Array | undefined;
function crc32(data: Uint8Array, value: number): number {
  if (nativeCrc) return nativeCrc(data, value);
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let c = ~value;
  for (let i = 0; i < data.length; i++) c = table[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

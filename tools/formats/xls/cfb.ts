// The Workbook stream of an OLE compound file ([MS-CFB]), read straight from the file's bytes.
//
// SheetJS's own CFB reader copies every stream into a JS array of numbers (0.5–1.6 s and some 400 MB for the
// 12 MB benchmark file); this one follows the sector chains of the one stream it needs and hands back a view
// of the file when the stream's sectors are contiguous (as writers lay them out), a copy otherwise.
//
// Every number in the file is a claim: sector numbers must lie inside the file, chains are followed at most
// as many steps as the file has sectors (a loop ends there), and nothing is allocated by a declared size
// larger than the file. A container this reader does not fully understand, or one with anything unusual
// (no root-level Workbook stream, an encrypted package), is handed to SheetJS (`NeedsFallback`), which then
// decides as it did before this reader existed; the guards of fallback.ts run first on that path.
import { NeedsFallback } from '../errors.ts';

const ENDOFCHAIN = 0xfffffffe;
const DIR_ENTRY = 128;
const STREAM = 2;
const ROOT = 5;
const NOSTREAM = 0xffffffff;
const MINI_SECTOR = 64;
/** Directory sectors read at most (8,192 entries of 128 bytes at 512 bytes a sector); workbooks have a handful. */
const MAX_DIR_SECTORS = 2048;

interface DirEntry {
  name: string;
  type: number;
  left: number;
  right: number;
  child: number;
  start: number;
  size: number;
}

const odd = (reason: string) => new NeedsFallback(`compound file: ${reason}`);

export function workbookStream(bytes: Uint8Array): Uint8Array {
  return new CompoundFile(bytes).workbook(['workbook']);
}

/** The stream of BIFF records, BIFF8's Workbook or BIFF5's Book; throws NeedsFallback as workbookStream does. */
export function biffStream(bytes: Uint8Array): Uint8Array {
  return new CompoundFile(bytes).workbook(['workbook', 'book']);
}

/** Whether a compound file holds an `EncryptedPackage` stream: an xlsx saved with a password to open. */
export function encryptedPackage(bytes: Uint8Array): boolean {
  try {
    return new CompoundFile(bytes).hasEntry('encryptedpackage');
  } catch {
    return false; // Not a compound file this reader understands: SheetJS decides.
  }
}

class CompoundFile {
  private readonly view: DataView;
  private readonly sectorSize: number;
  /** Sectors that exist in the file (the last may be short: some writers do not pad it). */
  private readonly sectors: number;
  private readonly fat: Uint32Array;
  private readonly entries: DirEntry[];
  private readonly miniCutoff: number;
  private readonly firstMiniFat: number;

  constructor(private readonly bytes: Uint8Array) {
    if (bytes.length < 512) throw odd('shorter than its header');
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const v = this.view;
    const major = v.getUint16(26, true);
    const shift = v.getUint16(30, true);
    if (v.getUint16(28, true) !== 0xfffe || !((major === 3 && shift === 9) || (major === 4 && shift === 12)) || v.getUint16(32, true) !== 6) {
      throw odd('header');
    }
    this.sectorSize = 1 << shift;
    this.sectors = Math.max(0, Math.ceil((bytes.length - this.sectorSize) / this.sectorSize));
    this.miniCutoff = v.getUint32(56, true);
    if (this.miniCutoff !== 4096) throw odd('mini stream cutoff');
    this.firstMiniFat = v.getUint32(60, true);
    this.fat = this.readFat(v.getUint32(44, true), v.getUint32(68, true), v.getUint32(72, true));
    this.entries = this.readDirectory(v.getUint32(48, true));
  }

  hasEntry(lowerName: string): boolean {
    return this.entries.some((e) => e.name.toLowerCase() === lowerName);
  }

  /** The first root-level stream named one of `names` (lower case), in the order given. */
  workbook(names: string[]): Uint8Array {
    const root = this.entries[0];
    if (root?.type !== ROOT) throw odd('no root entry');
    for (const e of this.entries) {
      const n = e.name.toLowerCase();
      if (n === 'encryptedpackage' || n === 'encryption') throw odd('an encrypted package');
    }
    const streams = this.rootChildren(root).filter((e) => e.type === STREAM);
    const book = names.map((n) => streams.find((e) => e.name.toLowerCase() === n)).find((e) => e !== undefined);
    if (!book) throw odd('no Workbook stream (BIFF5 or older, or not a workbook)');
    if (book.size < this.miniCutoff) {
      const mini = this.chain(root.start, root.size, this.fat, this.sectorSize, (s) => this.sectorOffset(s), this.sectors);
      const miniFat = this.miniFat();
      return this.chain(book.start, book.size, miniFat, MINI_SECTOR, (s) => s * MINI_SECTOR, Math.floor(mini.length / MINI_SECTOR), mini);
    }
    return this.chain(book.start, book.size, this.fat, this.sectorSize, (s) => this.sectorOffset(s), this.sectors);
  }

  private sectorOffset(s: number): number {
    return (s + 1) * this.sectorSize;
  }

  private u32(offset: number): number {
    return this.view.getUint32(offset, true);
  }

  /** The FAT: the next sector of every sector in the file (entries for sectors past the file are not kept). */
  private readFat(count: number, firstDifat: number, difatCount: number): Uint32Array {
    if (count > this.sectors) throw odd('more FAT sectors than the file has');
    const perSector = this.sectorSize / 4;
    const fatSectors: number[] = [];
    for (let i = 0; i < 109 && fatSectors.length < count; i++) fatSectors.push(this.u32(76 + i * 4));
    let difat = firstDifat;
    for (let steps = 0; fatSectors.length < count; steps++) {
      if (steps >= difatCount || steps > this.sectors || difat >= this.sectors) throw odd('DIFAT chain');
      const at = this.sectorOffset(difat);
      if (at + this.sectorSize > this.bytes.length) throw odd('DIFAT sector cut short');
      for (let i = 0; i < perSector - 1 && fatSectors.length < count; i++) fatSectors.push(this.u32(at + i * 4));
      difat = this.u32(at + (perSector - 1) * 4);
    }
    const fat = new Uint32Array(Math.min(this.sectors, count * perSector));
    for (let i = 0; i < count; i++) {
      const s = fatSectors[i];
      if (s >= this.sectors) throw odd('FAT sector outside the file');
      const at = this.sectorOffset(s);
      for (let j = 0; j < perSector; j++) {
        const k = i * perSector + j;
        if (k >= fat.length) break;
        if (at + j * 4 + 4 > this.bytes.length) throw odd('FAT sector cut short');
        fat[k] = this.u32(at + j * 4);
      }
    }
    return fat;
  }

  /** Directory entries in order; the chain of directory sectors is followed at most once per sector. */
  private readDirectory(first: number): DirEntry[] {
    const entries: DirEntry[] = [];
    let s = first;
    for (let steps = 0; s !== ENDOFCHAIN; steps++) {
      if (steps >= this.sectors || s >= this.fat.length) throw odd('directory chain');
      if (steps >= MAX_DIR_SECTORS) throw odd('a directory larger than a workbook needs');
      const at = this.sectorOffset(s);
      if (at + this.sectorSize > this.bytes.length) throw odd('directory sector cut short');
      for (let off = at; off < at + this.sectorSize; off += DIR_ENTRY) entries.push(this.entry(off));
      s = this.fat[s];
    }
    return entries;
  }

  private entry(off: number): DirEntry {
    const v = this.view;
    const nameBytes = Math.min(64, v.getUint16(off + 64, true));
    let name = '';
    for (let i = 0; i + 1 < nameBytes; i += 2) {
      const c = v.getUint16(off + i, true);
      if (c === 0) break;
      name += String.fromCharCode(c);
    }
    // Version 3 files keep only the low 32 bits of a size; the high ones may hold anything.
    const size = this.sectorSize === 512 ? v.getUint32(off + 120, true) : v.getUint32(off + 120, true) + v.getUint32(off + 124, true) * 2 ** 32;
    return {
      name,
      type: v.getUint8(off + 66),
      left: v.getUint32(off + 68, true),
      right: v.getUint32(off + 72, true),
      child: v.getUint32(off + 76, true),
      start: v.getUint32(off + 116, true),
      size,
    };
  }

  /** The entries of the root storage: its child's tree of siblings, each entry visited once. */
  private rootChildren(root: DirEntry): DirEntry[] {
    const out: DirEntry[] = [];
    const seen = new Uint8Array(this.entries.length);
    const stack = [root.child];
    while (stack.length > 0) {
      const i = stack.pop()!;
      if (i === NOSTREAM) continue;
      if (i >= this.entries.length || seen[i]) throw odd('directory tree');
      seen[i] = 1;
      const e = this.entries[i];
      out.push(e);
      stack.push(e.left, e.right);
    }
    return out;
  }

  private miniFat(): Uint32Array {
    const count = this.view.getUint32(64, true);
    if (count > this.sectors) throw odd('mini FAT larger than the file');
    const raw = this.chain(this.firstMiniFat, count * this.sectorSize, this.fat, this.sectorSize, (s) => this.sectorOffset(s), this.sectors);
    return new Uint32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + (raw.byteLength & ~3)));
  }

  /**
   * `size` bytes of the chain starting at `start`, in sectors of `unit` bytes of `source`: a view of it when
   * the chain runs through consecutive sectors, else a copy. `limit` is how many sectors exist.
   */
  private chain(start: number, size: number, fat: Uint32Array, unit: number, offsetOf: (s: number) => number, limit: number, source = this.bytes): Uint8Array {
    if (size === 0) return new Uint8Array(0);
    const count = Math.ceil(size / unit);
    if (count > limit || count > fat.length + 1) throw odd('stream larger than the file');
    const starts = new Uint32Array(count);
    let s = start;
    let contiguous = true;
    for (let i = 0; i < count; i++) {
      if (s >= limit) throw odd('chain leaves the file');
      starts[i] = s;
      if (i > 0 && s !== starts[i - 1] + 1) contiguous = false;
      s = i + 1 < count ? (s < fat.length ? fat[s] : ENDOFCHAIN) : s;
    }
    const first = offsetOf(starts[0]);
    if (contiguous) {
      if (first + size > source.length) throw odd('stream cut short');
      return source.subarray(first, first + size);
    }
    const out = new Uint8Array(size);
    for (let i = 0; i < count; i++) {
      const at = offsetOf(starts[i]);
      const n = Math.min(unit, size - i * unit);
      if (at + n > source.length) throw odd('stream cut short');
      out.set(source.subarray(at, at + n), i * unit);
    }
    return out;
  }
}

// The `mimetype` entry an ODF package starts with (ODF 1.3 Part 2, §3.3): stored, no extra field, and here
// with its size and CRC in its local header, so that the type reads at offset 38 and every unzip finds its end.
// fflate's streaming Zip writes each entry with a data descriptor instead, which a stored entry cannot use with
// SheetJS's reader; so the entry is written here, in front of the archive fflate made, whose central directory
// is moved along by the entry's size.
import { crc32 } from 'node:zlib';

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const END = 0x06054b50;
/** 2000-01-01 00:00 in MS-DOS form, the date of every entry (tools/core/zip-entry.ts: ZIP_MTIME). */
const DOS_DATE = ((2000 - 1980) << 9) | (1 << 5) | 1;

export function withMimetypeFirst(mimetype: string, zip: Uint8Array): Uint8Array {
  const name = Buffer.from('mimetype', 'latin1');
  const data = Buffer.from(mimetype, 'latin1');
  const crc = crc32(data);
  const local = Buffer.alloc(30 + name.length + data.length);
  local.writeUInt32LE(LOCAL, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(DOS_DATE, 12);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(name.length, 26);
  name.copy(local, 30);
  data.copy(local, 30 + name.length);

  const z = Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
  const end = z.length - 22;
  if (end < 0 || z.readUInt32LE(end) !== END) throw new Error('ZIP without its end record where fflate puts it');
  const count = z.readUInt16LE(end + 10);
  const cdSize = z.readUInt32LE(end + 12);
  const cdOffset = z.readUInt32LE(end + 16);
  const shift = local.length;

  const first = Buffer.alloc(46 + name.length);
  first.writeUInt32LE(CENTRAL, 0);
  first.writeUInt16LE(20, 4);
  first.writeUInt16LE(20, 6);
  first.writeUInt16LE(DOS_DATE, 14);
  first.writeUInt32LE(crc, 16);
  first.writeUInt32LE(data.length, 20);
  first.writeUInt32LE(data.length, 24);
  first.writeUInt16LE(name.length, 28);
  name.copy(first, 46);

  const directory = Buffer.from(z.subarray(cdOffset, cdOffset + cdSize));
  for (let p = 0, k = 0; k < count; k++) {
    if (directory.readUInt32LE(p) !== CENTRAL) throw new Error('ZIP central directory not where its end record says');
    directory.writeUInt32LE(directory.readUInt32LE(p + 42) + shift, p + 42);
    p += 46 + directory.readUInt16LE(p + 28) + directory.readUInt16LE(p + 30) + directory.readUInt16LE(p + 32);
  }
  const tail = Buffer.from(z.subarray(end));
  tail.writeUInt16LE(count + 1, 8);
  tail.writeUInt16LE(count + 1, 10);
  tail.writeUInt32LE(cdSize + first.length, 12);
  tail.writeUInt32LE(cdOffset + shift, 16);

  const out = new Uint8Array(shift + cdOffset + first.length + cdSize + tail.length);
  out.set(local, 0);
  out.set(z.subarray(0, cdOffset), shift);
  out.set(first, shift + cdOffset);
  out.set(directory, shift + cdOffset + first.length);
  out.set(tail, shift + cdOffset + first.length + cdSize);
  return out;
}

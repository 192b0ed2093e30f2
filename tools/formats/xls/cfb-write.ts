// The OLE compound file around the Workbook stream ([MS-CFB]), version 3 (512-byte sectors, which every
// reader since Excel 97 opens).
//
// Layout: header, the Workbook stream's sectors in one run, one directory sector (Root Entry, Workbook), the FAT
// sectors, then the DIFAT sectors that list FAT sectors past the 109 the header holds (a stream past ~7 MB).
// A stream under 4,096 bytes would belong in the mini stream: the Workbook stream is padded up to 4,096 bytes
// instead, as other writers do; every reader stops at the last sheet's EOF.

const SECTOR = 512;
const ENDOFCHAIN = 0xfffffffe;
const FREESECT = 0xffffffff;
const FATSECT = 0xfffffffd;
const DIFSECT = 0xfffffffc;
const NOSTREAM = 0xffffffff;
const MINI_CUTOFF = 4096;
const HEADER_DIFAT = 109;
const PER_FAT = SECTOR / 4;
const PER_DIFAT = PER_FAT - 1;
/** CLSID of an Excel 97–2003 workbook, {00020820-0000-0000-C000-000000000046}. */
const EXCEL_CLSID = [0x20, 0x08, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46];

/** A compound file holding `stream` (given as blocks, `length` bytes in all) as its Workbook stream. */
export function compoundFile(stream: readonly Uint8Array[], length: number): Uint8Array {
  const size = Math.max(length, MINI_CUTOFF);
  const data = Math.ceil(size / SECTOR);
  // FAT sectors cover every sector, their own and the DIFAT's included.
  let fat = 1;
  let difat = 0;
  for (;;) {
    difat = fat > HEADER_DIFAT ? Math.ceil((fat - HEADER_DIFAT) / PER_DIFAT) : 0;
    const sectors = data + 1 + fat + difat;
    if (fat * PER_FAT >= sectors) break;
    fat++;
  }
  const dirSector = data;
  const firstFat = data + 1;
  const firstDifat = firstFat + fat;
  const total = data + 1 + fat + difat;
  const out = new Uint8Array(SECTOR * (1 + total));
  const v = new DataView(out.buffer);

  // Header.
  v.setUint32(0, 0xe011cfd0, true);
  v.setUint32(4, 0xe11ab1a1, true);
  v.setUint16(24, 0x003e, true);
  v.setUint16(26, 3, true);
  v.setUint16(28, 0xfffe, true);
  v.setUint16(30, 9, true);
  v.setUint16(32, 6, true);
  v.setUint32(44, fat, true);
  v.setUint32(48, dirSector, true);
  v.setUint32(56, MINI_CUTOFF, true);
  v.setUint32(60, ENDOFCHAIN, true);
  v.setUint32(68, difat > 0 ? firstDifat : ENDOFCHAIN, true);
  v.setUint32(72, difat, true);
  for (let i = 0; i < HEADER_DIFAT; i++) v.setUint32(76 + 4 * i, i < fat ? firstFat + i : FREESECT, true);

  // The stream, padded with zeros.
  let at = SECTOR;
  for (const b of stream) {
    out.set(b, at);
    at += b.length;
  }

  // Directory: Root Entry (no mini stream), Workbook, two unused entries.
  const dir = SECTOR * (1 + dirSector);
  entry(out, v, dir, 'Root Entry', 5, 1, ENDOFCHAIN, 0, EXCEL_CLSID);
  entry(out, v, dir + 128, 'Workbook', 2, NOSTREAM, 0, size, null);
  for (const k of [2, 3]) {
    const e = dir + 128 * k;
    v.setUint32(e + 68, NOSTREAM, true);
    v.setUint32(e + 72, NOSTREAM, true);
    v.setUint32(e + 76, NOSTREAM, true);
  }

  // FAT.
  const fatAt = SECTOR * (1 + firstFat);
  const next = (s: number, value: number) => v.setUint32(fatAt + 4 * s, value, true);
  for (let s = 0; s < fat * PER_FAT; s++) next(s, FREESECT);
  for (let s = 0; s < data; s++) next(s, s + 1 < data ? s + 1 : ENDOFCHAIN);
  next(dirSector, ENDOFCHAIN);
  for (let i = 0; i < fat; i++) next(firstFat + i, FATSECT);
  for (let i = 0; i < difat; i++) next(firstDifat + i, DIFSECT);

  // DIFAT sectors: FAT sectors 109 on, 127 a sector, each sector ending with the next one's number.
  for (let i = 0; i < difat; i++) {
    const p = SECTOR * (1 + firstDifat + i);
    for (let k = 0; k < PER_DIFAT; k++) {
      const f = HEADER_DIFAT + i * PER_DIFAT + k;
      v.setUint32(p + 4 * k, f < fat ? firstFat + f : FREESECT, true);
    }
    v.setUint32(p + 4 * PER_DIFAT, i + 1 < difat ? firstDifat + i + 1 : ENDOFCHAIN, true);
  }
  return out;
}

function entry(out: Uint8Array, v: DataView, at: number, name: string, type: number, child: number, start: number, size: number, clsid: number[] | null): void {
  for (let i = 0; i < name.length; i++) v.setUint16(at + 2 * i, name.charCodeAt(i), true);
  v.setUint16(at + 64, 2 * (name.length + 1), true);
  out[at + 66] = type;
  out[at + 67] = 1; // black
  v.setUint32(at + 68, NOSTREAM, true);
  v.setUint32(at + 72, NOSTREAM, true);
  v.setUint32(at + 76, child, true);
  if (clsid) out.set(clsid, at + 80);
  v.setUint32(at + 116, start, true);
  v.setUint32(at + 120, size, true);
}

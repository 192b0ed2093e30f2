// Hostile packages made in the test: minimal SpreadsheetML parts, zipped with fflate when the ZIP itself is
// honest, or written byte by byte when it must lie (duplicate names, overlapping entries, sizes that lie).
import { deflateRawSync, crc32, createDeflateRaw } from 'node:zlib';
import { zipSync, type Zippable } from 'fflate';

export type XCell = string | number | boolean | null;

export interface XSheet {
  name: string;
  rows: XCell[][];
  /** The `<dimension ref>` the sheet claims; left out, none is written. */
  dimension?: string;
}

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

// A raw CR would be read back as LF (XML end-of-line handling): it is written as a character reference.
export const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/\r/g, '&#13;');

/** Column letters of a 0-based index (0 → A, 16383 → XFD). */
export function colName(i: number): string {
  let s = '';
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

function cellXml(v: XCell, ref: string): string {
  if (v === null) return '';
  if (typeof v === 'number') return `<c r="${ref}"><v>${v}</v></c>`;
  if (typeof v === 'boolean') return `<c r="${ref}" t="b"><v>${v ? 1 : 0}</v></c>`;
  return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${xmlEscape(v)}</t></is></c>`;
}

/** A worksheet part; `rowOffset` places the first row further down (1-based rows in the file). */
export function sheetXml(sheet: Pick<XSheet, 'rows' | 'dimension'>, rowOffset = 0): string {
  const rows = sheet.rows.map((row, r) => `<row r="${r + 1 + rowOffset}">${row.map((v, c) => cellXml(v, `${colName(c)}${r + 1 + rowOffset}`)).join('')}</row>`);
  const dim = sheet.dimension ? `<dimension ref="${sheet.dimension}"/>` : '';
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="${NS}" xmlns:r="${REL_NS}">${dim}<sheetData>${rows.join('')}</sheetData></worksheet>`;
}

/** The parts of a workbook (name → text), sheet parts included; `parts` replace or add any of them. */
export function workbookParts(sheets: XSheet[], parts: Record<string, string | Uint8Array> = {}): Record<string, string | Uint8Array> {
  const overrides = sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('');
  const out: Record<string, string | Uint8Array> = {
    '[Content_Types].xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${overrides}</Types>`,
    '_rels/.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="${NS}" xmlns:r="${REL_NS}"><sheets>${sheets.map((s, i) => `<sheet name="${xmlEscape(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="${PKG_REL}">${sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="${REL_NS}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('')}</Relationships>`,
  };
  sheets.forEach((s, i) => (out[`xl/worksheets/sheet${i + 1}.xml`] = sheetXml(s)));
  return { ...out, ...parts };
}

const bytesOf = (x: string | Uint8Array) => (typeof x === 'string' ? new TextEncoder().encode(x) : x);

/** An honest ZIP of the parts (fflate), deflated. */
export function zipParts(parts: Record<string, string | Uint8Array>): Uint8Array {
  const z: Zippable = {};
  for (const [name, data] of Object.entries(parts)) z[name] = bytesOf(data);
  return zipSync(z, { level: 6 });
}

/** A valid .xlsx of these sheets. */
export function xlsxOf(sheets: XSheet[], parts: Record<string, string | Uint8Array> = {}): Uint8Array {
  return zipParts(workbookParts(sheets, parts));
}

export interface RawEntry {
  name: string;
  /** The uncompressed content. */
  data?: string | Uint8Array;
  /** Already compressed bytes (method 8), when `data` would be too large to hold. */
  deflated?: { bytes: Uint8Array; size: number; crc: number };
  /** 0 stored, 8 deflated (default). */
  method?: 0 | 8;
  /** Sizes the headers claim instead of the real ones. */
  claim?: { compressed?: number; uncompressed?: number };
  /** Name the local header carries, when it differs from the central directory's. */
  localName?: string;
}

export interface RawZipOptions {
  /** Extra central-directory records that point at the local header of entry `target`, under another name. */
  aliases?: Array<{ target: number; name: string }>;
  /** Entry count the end record claims. */
  claimedCount?: number;
  /** Central directory offset the end record claims. */
  claimedCdOffset?: number;
}

/** A ZIP written byte by byte, so that it can lie in every way a parser must catch. */
export function rawZip(entries: RawEntry[], o: RawZipOptions = {}): Uint8Array {
  const chunks: Buffer[] = [];
  let offset = 0;
  const central: Buffer[] = [];
  const records: Array<{ name: Buffer; method: number; crc: number; csize: number; usize: number; offset: number }> = [];
  for (const e of entries) {
    const method = e.method ?? 8;
    let body: Uint8Array;
    let crc: number;
    let usize: number;
    if (e.deflated) {
      body = e.deflated.bytes;
      crc = e.deflated.crc;
      usize = e.deflated.size;
    } else {
      const data = bytesOf(e.data ?? '');
      body = method === 8 ? deflateRawSync(data) : data;
      crc = crc32(data);
      usize = data.byteLength;
    }
    const csize = e.claim?.compressed ?? body.byteLength;
    const claimedU = e.claim?.uncompressed ?? usize;
    const localName = Buffer.from(e.localName ?? e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(csize, 18);
    local.writeUInt32LE(claimedU, 22);
    local.writeUInt16LE(localName.length, 26);
    chunks.push(local, localName, Buffer.from(body));
    records.push({ name: Buffer.from(e.name, 'utf8'), method, crc, csize, usize: claimedU, offset });
    offset += 30 + localName.length + body.byteLength;
  }
  for (const a of o.aliases ?? []) records.push({ ...records[a.target], name: Buffer.from(a.name, 'utf8') });
  const cdOffset = offset;
  for (const r of records) {
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0x0800, 8);
    c.writeUInt16LE(r.method, 10);
    c.writeUInt32LE(r.crc >>> 0, 16);
    c.writeUInt32LE(r.csize, 20);
    c.writeUInt32LE(r.usize, 24);
    c.writeUInt16LE(r.name.length, 28);
    c.writeUInt32LE(r.offset, 42);
    central.push(c, r.name);
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  const count = Math.min(0xffff, o.claimedCount ?? records.length);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(o.claimedCdOffset ?? cdOffset, 16);
  return new Uint8Array(Buffer.concat([...chunks, cd, end]));
}

/** Raw entries of a workbook's parts, in order, for rawZip. */
export function rawEntriesOf(parts: Record<string, string | Uint8Array>): RawEntry[] {
  return Object.entries(parts).map(([name, data]) => ({ name, data }));
}

/**
 * Deflates `prefix + filler × n + suffix` without holding the inflated text: for bombs of hundreds of MB.
 * The filler is repeated `count` times.
 */
export async function deflateRepeated(prefix: string, filler: string, count: number, suffix: string): Promise<{ bytes: Uint8Array; size: number; crc: number }> {
  const z = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  z.on('data', (c: Buffer) => out.push(c));
  const done = new Promise<void>((resolve, reject) => {
    z.on('end', resolve);
    z.on('error', reject);
  });
  const block = Buffer.from(filler.repeat(Math.max(1, Math.floor((1 << 20) / filler.length))), 'utf8');
  const perBlock = block.length / Buffer.byteLength(filler);
  let crc = 0;
  let size = 0;
  const push = async (b: Buffer) => {
    crc = crc32(b, crc);
    size += b.length;
    if (!z.write(b)) await new Promise((r) => z.once('drain', r));
  };
  await push(Buffer.from(prefix, 'utf8'));
  let left = count;
  while (left >= perBlock) {
    await push(block);
    left -= perBlock;
  }
  if (left > 0) await push(Buffer.from(filler.repeat(left), 'utf8'));
  await push(Buffer.from(suffix, 'utf8'));
  z.end();
  await done;
  return { bytes: new Uint8Array(Buffer.concat(out)), size, crc };
}

/** A sheet part whose `<sheetData>` holds `n` MB of whitespace (valid XML, and a bomb when deflated). */
export async function whitespaceBombSheet(mb: number) {
  return deflateRepeated(`<?xml version="1.0" encoding="UTF-8"?>\n<worksheet xmlns="${NS}"><sheetData>`, ' ', mb * 2 ** 20, '</sheetData></worksheet>');
}

/** Central-directory names of a ZIP, read by hand (not by the library that wrote it). */
export function zipEntryNames(zip: Uint8Array): string[] {
  return zipDirectory(zip).map((e) => e.name);
}

/** Central-directory records of a ZIP (name and local header offset), read by hand. */
export function zipDirectory(zip: Uint8Array): Array<{ name: string; offset: number }> {
  const b = Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 65535); i--) {
    if (b.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('no end of central directory');
  const count = b.readUInt16LE(eocd + 10);
  let p = b.readUInt32LE(eocd + 16);
  const out: Array<{ name: string; offset: number }> = [];
  for (let i = 0; i < count; i++) {
    if (b.readUInt32LE(p) !== 0x02014b50) throw new Error('bad central directory record');
    const nameLen = b.readUInt16LE(p + 28);
    const extraLen = b.readUInt16LE(p + 30);
    const commentLen = b.readUInt16LE(p + 32);
    out.push({ name: b.subarray(p + 46, p + 46 + nameLen).toString('utf8'), offset: b.readUInt32LE(p + 42) });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

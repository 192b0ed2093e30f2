// Hand-written xlsx packages for tests: SpreadsheetML written as text, so that a test can hold exactly the
// markup it is about (shared or inline strings, rich text, 1904 dates, styles, lying dimensions, cells without
// `r`, prefixed names, DTDs…), zipped with fflate's `zipSync`; and a raw ZIP writer whose headers can lie, for
// the archive guards. Nothing here is committed as a binary: every package is made in the test.
import { zipSync } from 'fflate';
import { crc32, deflateRawSync } from 'node:zlib';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const CT = 'application/vnd.openxmlformats-officedocument.spreadsheetml';

export interface SheetSpec {
  name: string;
  /** The `<sheetData>` content (rows), or a whole worksheet part when it starts with `<?xml` or `<worksheet`. */
  xml: string;
  state?: 'hidden' | 'veryHidden';
}

export interface PackageSpec {
  sheets: SheetSpec[];
  /** `<si>` contents (raw markup such as `<t>a</t>` or `<r><t>a</t></r>`), one per shared string. */
  sharedStrings?: string[];
  /** Custom number formats by id, and each cell format's numFmtId (index = `s` attribute). */
  styles?: { numFmts?: Record<number, string>; cellXfs: number[] };
  date1904?: boolean;
  /** Parts to add, replace, or (undefined) remove, by entry name. */
  parts?: Record<string, string | Uint8Array | undefined>;
}

/** A worksheet part around `sheetData` content, optionally with a (possibly lying) dimension. */
export function worksheet(sheetData: string, o: { dimension?: string } = {}): string {
  const dim = o.dimension ? `<dimension ref="${o.dimension}"/>` : '';
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="${MAIN}" xmlns:r="${REL}">${dim}<sheetData>${sheetData}</sheetData><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>`;
}

function stylesXml(s: NonNullable<PackageSpec['styles']>): string {
  const fmts = Object.entries(s.numFmts ?? {});
  const numFmts = fmts.length ? `<numFmts count="${fmts.length}">${fmts.map(([id, code]) => `<numFmt numFmtId="${id}" formatCode="${escapeAttr(code)}"/>`).join('')}</numFmts>` : '';
  return (
    `<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="${MAIN}">${numFmts}` +
    '<fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>' +
    '<fills count="1"><fill><patternFill patternType="none"/></fill></fills>' +
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
    // A date format in the cell-style formats: a reader that took these for cell formats would see dates.
    '<cellStyleXfs count="1"><xf numFmtId="14" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
    `<cellXfs count="${s.cellXfs.length}">${s.cellXfs.map((id) => `<xf numFmtId="${id}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`).join('')}</cellXfs>` +
    // A differential format with a date numFmt of its own id: not a cell format either.
    '<dxfs count="1"><dxf><numFmt numFmtId="200" formatCode="yyyy-mm-dd"/></dxf></dxfs>' +
    '</styleSheet>'
  );
}

export const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The parts of a package, by entry name, before zipping. */
export function packageParts(spec: PackageSpec): Record<string, string | Uint8Array> {
  const overrides = [
    `<Override PartName="/xl/workbook.xml" ContentType="${CT}.sheet.main+xml"/>`,
    ...spec.sheets.map((_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="${CT}.worksheet+xml"/>`),
  ];
  const rels = spec.sheets.map((_, i) => `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`);
  const parts: Record<string, string | Uint8Array> = {};
  if (spec.sharedStrings) {
    overrides.push(`<Override PartName="/xl/sharedStrings.xml" ContentType="${CT}.sharedStrings+xml"/>`);
    rels.push(`<Relationship Id="rIdS" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>`);
    const n = spec.sharedStrings.length;
    parts['xl/sharedStrings.xml'] = `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="${MAIN}" count="${n}" uniqueCount="${n}">${spec.sharedStrings.map((s) => `<si>${s}</si>`).join('')}</sst>`;
  }
  if (spec.styles) {
    overrides.push(`<Override PartName="/xl/styles.xml" ContentType="${CT}.styles+xml"/>`);
    rels.push(`<Relationship Id="rIdT" Type="${REL}/styles" Target="styles.xml"/>`);
    parts['xl/styles.xml'] = stylesXml(spec.styles);
  }
  parts['[Content_Types].xml'] =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
    `${overrides.join('')}</Types>`;
  parts['_rels/.rels'] = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
  parts['xl/workbook.xml'] =
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="${MAIN}" xmlns:r="${REL}">` +
    (spec.date1904 ? '<workbookPr date1904="1"/>' : '<workbookPr/>') +
    `<sheets>${spec.sheets.map((s, i) => `<sheet name="${escapeAttr(s.name)}" sheetId="${i + 1}"${s.state ? ` state="${s.state}"` : ''} r:id="rId${i + 1}"/>`).join('')}</sheets></workbook>`;
  parts['xl/_rels/workbook.xml.rels'] = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join('')}</Relationships>`;
  spec.sheets.forEach((s, i) => {
    parts[`xl/worksheets/sheet${i + 1}.xml`] = /^\s*<(\?xml|worksheet|\w+:worksheet)/.test(s.xml) ? s.xml : worksheet(s.xml);
  });
  for (const [name, data] of Object.entries(spec.parts ?? {})) {
    if (data === undefined) delete parts[name];
    else parts[name] = data;
  }
  return parts;
}

/** A deflated .xlsx package. */
export function xlsxPackage(spec: PackageSpec): Uint8Array {
  const parts = packageParts(spec);
  const enc = new TextEncoder();
  return zipSync(Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, typeof v === 'string' ? enc.encode(v) : v])), { level: 6 });
}

/** Rows of cells as SpreadsheetML: `row(3, '<c r="A3"><v>1</v></c>')`. */
export const row = (r: number | null, cells: string) => (r === null ? `<row>${cells}</row>` : `<row r="${r}">${cells}</row>`);

export interface RawEntry {
  name: string;
  data: Uint8Array | string;
  /** 8 (default) deflates `data`; 0 stores it. */
  method?: number;
  /** What the headers claim, when a test wants them to lie; each defaults to the truth. */
  claims?: Partial<{ size: number; compressedSize: number; crc: number; flags: number; method: number; name: string }>;
  /** Claims of the local header only. */
  localClaims?: Partial<{ size: number; compressedSize: number; crc: number; flags: number; method: number; name: string }>;
  /** Central directory offset of this entry's local header, instead of the real one. */
  offset?: number;
  /** Bytes to write instead of the (compressed) data. */
  rawData?: Uint8Array;
}

/** A ZIP written byte by byte, whose headers say what the test wants them to say. */
export function rawZip(entries: RawEntry[], o: { count?: number; cdSizeDelta?: number } = {}): Uint8Array {
  const chunks: Buffer[] = [];
  const central: Buffer[] = [];
  let at = 0;
  for (const e of entries) {
    const raw = typeof e.data === 'string' ? Buffer.from(e.data, 'utf8') : Buffer.from(e.data);
    const method = e.method ?? 8;
    const body = e.rawData ? Buffer.from(e.rawData) : method === 8 ? deflateRawSync(raw) : raw;
    const truth = { size: raw.length, compressedSize: body.length, crc: crc32(raw), flags: 0x0800, method, name: e.name };
    const c = { ...truth, ...e.claims };
    const l = { ...c, ...e.localClaims };
    const localName = Buffer.from(l.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(l.flags, 6);
    local.writeUInt16LE(l.method, 8);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(l.crc >>> 0, 14);
    local.writeUInt32LE(l.compressedSize >>> 0, 18);
    local.writeUInt32LE(l.size >>> 0, 22);
    local.writeUInt16LE(localName.length, 26);
    const offset = at;
    chunks.push(local, localName, body);
    at += 30 + localName.length + body.length;
    const name = Buffer.from(c.name, 'utf8');
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(c.flags, 8);
    cd.writeUInt16LE(c.method, 10);
    cd.writeUInt16LE(0x21, 14);
    cd.writeUInt32LE(c.crc >>> 0, 16);
    cd.writeUInt32LE(c.compressedSize >>> 0, 20);
    cd.writeUInt32LE(c.size >>> 0, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(e.offset ?? offset, 42);
    central.push(cd, name);
  }
  const cdBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(o.count ?? entries.length, 8);
  end.writeUInt16LE(o.count ?? entries.length, 10);
  end.writeUInt32LE(cdBytes.length + (o.cdSizeDelta ?? 0), 12);
  end.writeUInt32LE(at, 16);
  return new Uint8Array(Buffer.concat([...chunks, cdBytes, end]));
}

/** The entries of a package as raw entries, to rebuild it with one of them changed. */
export function rawEntries(spec: PackageSpec): RawEntry[] {
  return Object.entries(packageParts(spec)).map(([name, data]) => ({ name, data }));
}

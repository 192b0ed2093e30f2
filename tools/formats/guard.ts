// The container checks run before SheetJS sees a file the fast path does not read (.xls, .ods, .xlsb, and
// xlsx packages it hands over), so that every workbook meets the same guards (tools.md §2.11):
// - a ZIP gets the directory checks of zip.ts, and every entry is inflated once, counted, before SheetJS
//   inflates it again: a bomb is stopped here, not inside SheetJS, whose unzip trusts the sizes it is told;
//   in an OOXML package (one with [Content_Types].xml) an XML part declaring a DTD is refused too, as the fast
//   path refuses it: OPC makes a DTD an error (ECMA-376 Part 2, [M1.18]), whereas ODF allows them (OpenOffice
//   wrote one in every manifest) and SheetJS processes none, so an .ods keeps them;
// - an OLE compound file holding an `EncryptedPackage` stream is an xlsx saved with a password to open.
import * as XLSX from 'xlsx';
import { FormatError, passwordProtected } from './errors.ts';
import { inflateEntry, InflateBudget, openZip } from './zip/read.ts';

export const isZip = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
export const isOle = (b: Uint8Array) => b.length >= 8 && OLE.every((x, i) => b[i] === x);


const DTD_MARKERS = [Buffer.from('<!DOCTYPE'), Buffer.from('<!ENTITY')];
const XML_PART = /\.(xml|rels|vml)$/i;

export function guardZip(bytes: Uint8Array): void {
  const zip = openZip(bytes);
  const budget = new InflateBudget();
  const opc = zip.get('[Content_Types].xml') !== undefined;
  for (const entry of zip.entries) {
    const xml = opc && XML_PART.test(entry.name);
    // The last bytes of the previous chunk, so that a marker cut by a chunk end is still seen.
    let tail = Buffer.alloc(0);
    inflateEntry(zip, entry, budget, (chunk) => {
      if (!xml) return;
      const b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      const seam = Buffer.concat([tail, b.subarray(0, 8)]);
      if (DTD_MARKERS.some((m) => b.includes(m) || seam.includes(m))) {
        throw new FormatError('xml-dtd', 'XML with a DTD');
      }
      tail = Buffer.from(b.subarray(Math.max(0, b.length - 8)));
    });
  }
}

export function guardOle(bytes: Uint8Array): void {
  let cfb: unknown;
  try {
    cfb = XLSX.CFB.read(bytes, { type: 'array' });
  } catch {
    return; // Not a compound file SheetJS can open either: it says so itself.
  }
  if (XLSX.CFB.find(cfb, 'EncryptedPackage')) throw passwordProtected('OLE EncryptedPackage');
}

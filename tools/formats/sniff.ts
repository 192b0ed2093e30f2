// What a file's bytes are, whatever its name says: container signatures first (ZIP, OLE compound file, a bare
// BIFF stream), then, for text, what its first characters look like. open.ts decides from this and the name.
import { decodeText } from './csv/read.ts';

export type Content =
  /** A ZIP: an xlsx, an ods, or any other package. */
  | 'zip'
  /** An OLE compound file: an xls, or an xlsx encrypted with a password. */
  | 'cfb'
  /** A BIFF2–4 stream without a container. */
  | 'biff'
  | 'html'
  /** SpreadsheetML 2003 (Excel's XML). */
  | 'spreadsheetml'
  | 'xml'
  /** Anything else that decodes as text. */
  | 'text'
  /** Bytes that are no text: NUL bytes outside UTF-16. */
  | 'binary'
  | 'empty';

export const isZip = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
export const isOle = (b: Uint8Array) => b.length >= 8 && OLE.every((x, i) => b[i] === x);

/** A BOF record of BIFF2–4 at the start (Excel 2–4 saved no container). */
const isBiff = (b: Uint8Array) => b.length >= 8 && b[0] === 0x09 && [0x00, 0x02, 0x04, 0x08].includes(b[1]) && b[3] === 0x00;

/** Characters of text looked at. */
const HEAD_BYTES = 4096;

export function sniff(bytes: Uint8Array): Content {
  if (bytes.length === 0) return 'empty';
  if (isZip(bytes)) return 'zip';
  if (isOle(bytes)) return 'cfb';
  if (isBiff(bytes)) return 'biff';
  const { text, encoding } = decodeText(bytes.subarray(0, HEAD_BYTES));
  if (!encoding.startsWith('utf-16') && !encoding.startsWith('utf-32') && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(0) >= 0) return 'binary';
  const head = text.replace(/^[\uFEFF\s]+/, '');
  if (head.startsWith('<')) {
    if (/urn:schemas-microsoft-com:office:spreadsheet|<\?mso-application\s+progid="Excel\.Sheet"/i.test(head)) return 'spreadsheetml';
    if (/^<(!doctype\s+html|html|head|body|meta|table|title)\b/i.test(head) || /<table\b/i.test(head)) return 'html';
    if (head.startsWith('<?xml')) return 'xml';
  }
  return 'text';
}

// The shared-string table, streamed: one string per `<si>`, plain (`<t>`) or rich text (the `<t>` of each
// `<r>` run, joined). Phonetic runs (`<rPh>`, the reading of East Asian text) are not part of the value.
// Whitespace is kept as written, with or without `xml:space="preserve"`, as Excel and SheetJS do.
import { damaged } from '../errors.ts';
import { cellString, MAX_TOKEN_BYTES, nameIs, xmlText, XmlScanner, type XmlHandler } from '../xml/scan.ts';
import { inflateEntry, type InflateBudget, type ZipArchive } from '../zip/read.ts';

export function readSharedStrings(zip: ZipArchive, path: string | undefined, budget: InflateBudget): string[] {
  if (!path) return [];
  const strings: string[] = [];
  let inSi = false;
  let inT = false;
  let phonetic = 0;
  let text = '';
  const handler: XmlHandler = {
    open(b, ln, le, _ae, self) {
      if (self) return;
      if (nameIs(b, ln, le, 'si')) {
        inSi = true;
        text = '';
      } else if (inSi && nameIs(b, ln, le, 'rPh')) phonetic++;
      else if (inSi && phonetic === 0 && nameIs(b, ln, le, 't')) inT = true;
    },
    close(b, ln, le) {
      if (nameIs(b, ln, le, 't')) inT = false;
      else if (nameIs(b, ln, le, 'rPh')) phonetic = Math.max(0, phonetic - 1);
      else if (nameIs(b, ln, le, 'si')) {
        // A self-closing `<si/>` is an empty string and still takes its index.
        strings.push(inSi ? cellString(text) : '');
        inSi = false;
        text = '';
      }
    },
    text(b, s, e, literal) {
      if (!inT) return;
      text += xmlText(b.toString('utf8', s, e), literal);
      if (text.length > MAX_TOKEN_BYTES) throw damaged('shared string too long');
    },
  };
  const scanner = new XmlScanner(handler);
  inflateEntry(zip, zip.get(path)!, budget, (chunk) => scanner.push(chunk));
  scanner.end();
  return strings;
}

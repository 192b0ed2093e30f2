// From styles.xml, only each cell format's number format: what decides whether a number is a date, and the
// format itself, which a workbook read `full` keeps (SheetJS's `cell.z`).
//
// Custom formats (`<numFmts>`) override built-in ids (LibreOffice redefines 14, for instance); an id known to
// neither is a plain number, as SheetJS reads it. `numFmt` elements inside `<dxfs>` (conditional formats) and
// `xf` elements of `<cellStyleXfs>` are not cell formats and are skipped.
import { BUILTIN_FORMATS, dateKindOf, type DateKind } from '../number-format.ts';
import { attributesOf, nameIs, unescapeOoxml, XmlScanner, type XmlHandler } from '../xml/scan.ts';
import { inflateWhole, type InflateBudget, type ZipArchive } from '../zip/read.ts';

export interface CellFormats {
  /** The DateKind of each cell format index (`s` attribute of a cell). */
  dateKinds: DateKind[];
  /** The number format of each cell format index; null where it is General or an id known to no table. */
  formats: (string | null)[];
}

export function readCellFormats(zip: ZipArchive, path: string | undefined, budget: InflateBudget): CellFormats {
  if (!path) return { dateKinds: [], formats: [] };
  const entry = zip.get(path)!;
  const custom = new Map<number, string>();
  const xfFormats: number[] = [];
  let inNumFmts = false;
  let inCellXfs = false;
  const handler: XmlHandler = {
    open(b, ln, le, ae) {
      if (nameIs(b, ln, le, 'numFmts')) inNumFmts = true;
      else if (nameIs(b, ln, le, 'cellXfs')) inCellXfs = true;
      else if (inNumFmts && nameIs(b, ln, le, 'numFmt')) {
        const a = attributesOf(b, le, ae);
        const id = parseInt(a.numFmtId, 10);
        // Id 0 stays General whatever a file says, as in SheetJS.
        if (id > 0 && a.formatCode !== undefined) custom.set(id, unescapeOoxml(a.formatCode));
      } else if (inCellXfs && nameIs(b, ln, le, 'xf')) {
        const id = attributesOf(b, le, ae).numFmtId;
        xfFormats.push(id ? parseInt(id, 10) : 0);
      }
    },
    close(b, ln, le) {
      if (nameIs(b, ln, le, 'numFmts')) inNumFmts = false;
      else if (nameIs(b, ln, le, 'cellXfs')) inCellXfs = false;
    },
    text() {},
  };
  const scanner = new XmlScanner(handler);
  scanner.push(inflateWhole(zip, entry, budget));
  scanner.end();
  const formats = xfFormats.map((id) => {
    const f = custom.get(id) ?? BUILTIN_FORMATS[id];
    return f === undefined || f === 'General' ? null : f;
  });
  return { dateKinds: formats.map(dateKindOf), formats };
}

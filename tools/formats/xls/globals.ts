// The workbook globals substream: what the sheets need to be read, as SheetJS reads it.
//
// - BOF must say BIFF8 workbook globals; anything older, or an encrypted workbook (FILEPASS), goes to SheetJS;
// - BOUNDSHEET8: names, visibility and where each sheet's substream starts; a chart, macro or VBA sheet among
//   the tabs goes to SheetJS, as do positions out of order, which SheetJS's sequential reading would name
//   differently;
// - DATEMODE (1904), FORMAT and XF (the number format of each cell format, for dates), SST.
import { BUILTIN_FORMATS, dateKindOf, type DateKind } from '../number-format.ts';
import { damaged, NeedsFallback } from '../errors.ts';
import { gather, readSst, TextReader, u16 } from './biff-text.ts';
import type { Visibility } from '../model.ts';

export const BOF = 0x0809;
export const EOF = 0x000a;
const BIFF8 = 0x0600;
const GLOBALS = 0x0005;
export const WORKSHEET = 0x0010;

const FILEPASS = 0x002f;
const DATEMODE = 0x0022;
const FORMAT = 0x041e;
const XF = 0x00e0;
const SST = 0x00fc;
const BOUNDSHEET = 0x0085;

export interface XlsSheet {
  name: string;
  /** Stream offset of the sheet's BOF record. */
  pos: number;
  visibility: Visibility;
}

export interface XlsGlobals {
  sheets: XlsSheet[];
  date1904: boolean;
  /** The DateKind of each XF index. */
  dateKinds: Uint8Array;
  /** The number format code of each XF index (the file's FORMAT, else the built-in one; undefined when unknown). */
  formatCodes: (string | undefined)[];
  strings: string[];
  /** Stream offset just past the globals' EOF. */
  end: number;
}

export function readGlobals(s: Buffer): XlsGlobals {
  if (s.length < 8 || u16(s, 0) !== BOF || u16(s, 4) !== BIFF8 || u16(s, 6) !== GLOBALS) throw new NeedsFallback('not BIFF8 workbook globals');
  const sheets: XlsSheet[] = [];
  const formats = new Map<number, string>();
  const xfFormats: number[] = [];
  let strings: string[] = [];
  let date1904 = false;
  let p = 4 + u16(s, 2);
  for (;;) {
    if (p + 4 > s.length) throw damaged('workbook globals without EOF');
    const type = u16(s, p);
    const len = u16(s, p + 2);
    const at = p + 4;
    if (at + len > s.length) throw damaged('BIFF record past the end of the stream');
    let next = at + len;
    switch (type) {
      case EOF:
        if (sheets.length === 0) throw new NeedsFallback('no sheets');
        for (let i = 1; i < sheets.length; i++) if (sheets[i].pos <= sheets[i - 1].pos) throw new NeedsFallback('sheets out of stream order');
        if (sheets[0].pos < next) throw new NeedsFallback('a sheet inside the globals');
        return { sheets, date1904, dateKinds: dateKinds(xfFormats, formats), formatCodes: xfFormats.map((id) => formats.get(id) ?? BUILTIN_FORMATS[id]), strings, end: next };
      case BOF:
        throw new NeedsFallback('a substream inside the globals');
      case FILEPASS:
        throw new NeedsFallback('encrypted workbook');
      case DATEMODE:
        date1904 = len >= 2 && u16(s, at) === 1;
        break;
      case XF:
        if (len < 4) throw damaged('XF record too short');
        xfFormats.push(u16(s, at + 2));
        break;
      case FORMAT: {
        const g = gather(s, p);
        const r = new TextReader(g);
        const id = r.u16();
        formats.set(id, r.unicodeString());
        next = g.next;
        break;
      }
      case SST: {
        const g = gather(s, p);
        strings = readSst(g);
        next = g.next;
        break;
      }
      case BOUNDSHEET: {
        const g = gather(s, p);
        const r = new TextReader(g);
        const pos = r.u32();
        const hidden = r.u8() & 0x03;
        const kind = r.u8();
        if (kind !== 0) throw new NeedsFallback('a chart, macro or VBA sheet');
        const cch = r.u8();
        const wide = (r.u8() & 1) !== 0;
        sheets.push({ name: r.chars(cch, wide) || 'Sheet1', pos, visibility: hidden === 0 ? 'visible' : hidden === 2 ? 'veryHidden' : 'hidden' });
        next = g.next;
        break;
      }
    }
    p = next;
  }
}

/**
 * Each XF's DateKind: formats of the file first (they may redefine built-in ids, as SheetJS lets them),
 * then the built-in table; unknown ids are numbers.
 */
function dateKinds(xfFormats: number[], formats: Map<number, string>): Uint8Array {
  const byFormat = new Map<number, DateKind>();
  const out = new Uint8Array(xfFormats.length);
  xfFormats.forEach((id, i) => {
    let kind = byFormat.get(id);
    if (kind === undefined) byFormat.set(id, (kind = dateKindOf(formats.get(id) ?? BUILTIN_FORMATS[id])));
    out[i] = kind;
  });
  return out;
}

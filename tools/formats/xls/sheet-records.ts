// One worksheet substream, its cell records read straight from the stream into a SheetGrid.
//
// Cells, as SheetJS reads them (grid.ts documents the rules):
// - NUMBER, RK, MULRK: numbers, dates when the cell's XF has a date format;
// - LABELSST, LABEL, RSTRING: text (rich-text runs left out); empty text is an empty cell;
// - BOOLERR: a boolean, or an error's text, counted in a warning;
// - FORMULA: its cached number, boolean or error; a text result is in the STRING record that follows (after
//   any SHRFMLA or ARRAY record), and an empty text result is an empty cell;
// - BLANK, MULBLANK and everything else (DIMENSION among them: it is never trusted) hold no value: skipped by
//   their length. Charts embedded in the sheet (a BOF…EOF inside it) are skipped whole.
// Bytes a record holds after its fields are left over, not refused (some writers leave them); a record too
// short for its fields is damage that would cost a value: refused.
// Cell records of BIFF2–4 inside a BIFF8 sheet are not guessed at: the file goes to SheetJS.
import { numberCell } from '../number-format.ts';
import { damaged, NeedsFallback } from '../errors.ts';
import type { SheetGrid } from '../grid.ts';
import { CellError, FullCell, type CellRange } from '../model.ts';
import { gather, TextReader, u16, u32 } from './biff-text.ts';
import { ERROR_TEXT } from './error-codes.ts';
import { BOF, EOF, WORKSHEET } from './globals.ts';

const FORMULA = 0x0006;
const STRING = 0x0207;
const NUMBER = 0x0203;
const RK = 0x027e;
const MULRK = 0x00bd;
const LABELSST = 0x00fd;
const LABEL = 0x0204;
const RSTRING = 0x00d6;
const BOOLERR = 0x0205;
const MERGEDCELLS = 0x00e5;
const COLINFO = 0x007d;
/** Columns a COLINFO may give widths to: the grid's (a record claiming up to 65,535 allocates no more). */
const MAX_COLUMNS = 16_384;
/** BIFF2–4 cell and formula records, which SheetJS would read with their old layouts. */
const OLD_CELLS = new Set([0x0002, 0x0003, 0x0004, 0x0005, 0x0007, 0x0206, 0x0406]);

export interface SheetContext {
  grid: SheetGrid;
  strings: string[];
  dateKinds: Uint8Array;
  date1904: boolean;
  /** `cells: 'full'`: each XF's number format code; null for values alone. */
  formats: readonly (string | undefined)[] | null;
}

/** What a full read keeps of a sheet besides its cells: merged ranges and column widths (as SheetJS reads them). */
export interface SheetLayout {
  merges: CellRange[];
  widths: (number | null)[];
}

// RK numbers: the 30 high bits of a double, or a 30-bit integer; either may be scaled by 100.
const rkBits = new Uint32Array(2);
const rkDouble = new Float64Array(rkBits.buffer);

function rk(x: number): number {
  let v: number;
  if (x & 2) v = x >> 2;
  else {
    rkBits[1] = x & 0xfffffffc;
    v = rkDouble[0];
  }
  return x & 1 ? v / 100 : v;
}

/** Reads the substream whose BOF is at `pos` and must end (its EOF) before `limit`. */
export function readSheetCells(s: Buffer, pos: number, limit: number, ctx: SheetContext): SheetLayout {
  if (pos + 8 > limit || u16(s, pos) !== BOF || u16(s, pos + 4) !== 0x0600 || u16(s, pos + 6) !== WORKSHEET) {
    throw new NeedsFallback('no BIFF8 worksheet where the sheet should start');
  }
  const { grid, strings, dateKinds, date1904, formats } = ctx;
  const view = new DataView(s.buffer, s.byteOffset, s.byteLength);
  const layout: SheetLayout = { merges: [], widths: [] };
  const num = (r: number, c: number, xf: number, n: number) => {
    const kind = xf < dateKinds.length ? dateKinds[xf] : 0;
    const v = kind === 0 ? n : (numberCell(n, kind as 1 | 2, date1904) as number | Date);
    const format = formats === null ? undefined : formats[xf];
    // A full read keeps the number format, as SheetJS does, wherever it is not General.
    if (format !== undefined && format !== 'General') grid.set(r, c, new FullCell(v, format, null) as unknown as Date);
    else grid.set(r, c, v);
  };
  const error = (r: number, c: number, code: number) => {
    const t = ERROR_TEXT[code] ?? '#ERROR';
    // Values alone: the error's text, counted in a warning; a full read keeps it an error.
    if (formats === null) grid.error(r, c, t);
    else grid.set(r, c, new CellError(t) as unknown as string);
  };
  const text = (r: number, c: number, t: string) => {
    if (t !== '') grid.set(r, c, t);
  };
  rkBits[0] = 0;
  let depth = 1;
  // The last FORMULA, which a STRING record gives its text (SheetJS: `last_formula`).
  let fRow = -1;
  let fCol = -1;
  let p = pos + 4 + u16(s, pos + 2);
  for (;;) {
    if (p + 4 > limit) throw new NeedsFallback('worksheet without its EOF');
    const type = s[p] | (s[p + 1] << 8);
    const len = s[p + 2] | (s[p + 3] << 8);
    const at = p + 4;
    let next = at + len;
    if (next > s.length) throw damaged('BIFF record past the end of the stream');
    if (depth > 1) {
      if (type === BOF) depth++;
      else if (type === EOF) depth--;
      p = next;
      continue;
    }
    switch (type) {
      case LABELSST: {
        if (len < 10) throw damaged('short LABELSST');
        const t = strings[u32(s, at + 6)];
        // SheetJS has its say on a broken table before the file is refused.
        if (t === undefined) throw new NeedsFallback('damaged: shared string index out of the table');
        text(u16(s, at), u16(s, at + 2), t);
        break;
      }
      case RK:
        if (len < 10) throw damaged('short RK');
        num(u16(s, at), u16(s, at + 2), u16(s, at + 4), rk(u32(s, at + 6)));
        break;
      case NUMBER:
        if (len < 14) throw damaged('short NUMBER');
        num(u16(s, at), u16(s, at + 2), u16(s, at + 4), view.getFloat64(at + 6, true));
        break;
      case MULRK: {
        if (len < 6) throw damaged('MULRK of a wrong length');
        const r = u16(s, at);
        const first = u16(s, at + 2);
        // Cells from the first column to the last (the record's last two bytes); bytes left over after the last
        // cell, which some writers leave, are not cells.
        let count = (len - 6) / 6;
        if (!Number.isInteger(count)) {
          count = Math.floor(count);
          const last = u16(s, at + 4 + 6 * count);
          if (last - first + 1 !== count) throw damaged('MULRK of a wrong length');
        } else if (u16(s, at + len - 2) - first + 1 !== count) throw damaged('MULRK columns do not match its length');
        for (let i = 0, q = at + 4; i < count; i++, q += 6) num(r, first + i, u16(s, q), rk(u32(s, q + 2)));
        break;
      }
      case BOOLERR: {
        if (len < 8) throw damaged('short BOOLERR');
        const r = u16(s, at);
        const c = u16(s, at + 2);
        const v = s[at + 6];
        if (s[at + 7] === 1) error(r, c, v);
        else grid.set(r, c, v === 1);
        break;
      }
      case FORMULA: {
        if (len < 20) throw damaged('short FORMULA');
        // A full read keeps formulas, whose text SheetJS writes from their tokens.
        if (formats !== null) throw new NeedsFallback('formulas in a full read');
        const r = (fRow = u16(s, at));
        const c = (fCol = u16(s, at + 2));
        if (u16(s, at + 12) !== 0xffff) num(r, c, u16(s, at + 4), view.getFloat64(at + 6, true));
        else if (s[at + 6] === 1) grid.set(r, c, s[at + 8] === 1);
        else if (s[at + 6] === 2) error(r, c, s[at + 8]);
        // 0: the text follows in a STRING record; 3: empty text; anything else: no value.
        break;
      }
      case STRING: {
        // A STRING that follows no FORMULA is the text of no cell.
        if (fRow < 0) break;
        const g = gather(s, p);
        text(fRow, fCol, new TextReader(g).unicodeString());
        fRow = -1;
        next = g.next;
        break;
      }
      case LABEL: {
        const g = gather(s, p);
        const rd = new TextReader(g);
        const r = rd.u16();
        const c = rd.u16();
        rd.u16();
        text(r, c, rd.unicodeString());
        next = g.next;
        break;
      }
      case RSTRING: {
        const g = gather(s, p);
        const rd = new TextReader(g);
        const r = rd.u16();
        const c = rd.u16();
        rd.u16();
        const cch = rd.u16();
        text(r, c, rd.chars(cch, (rd.u8() & 1) !== 0));
        next = g.next;
        break;
      }
      case BOF:
        depth++;
        break;
      case MERGEDCELLS: {
        if (formats === null) break;
        const n = Math.min(len < 2 ? 0 : u16(s, at), Math.floor((len - 2) / 8));
        for (let i = 0, q = at + 2; i < n; i++, q += 8) layout.merges.push({ top: u16(s, q), bottom: u16(s, q + 2), left: u16(s, q + 4), right: u16(s, q + 6) });
        break;
      }
      case COLINFO: {
        if (formats === null || len < 6) break;
        const w = Math.round((u16(s, at + 4) / 256) * 100) / 100;
        for (let c = u16(s, at), last = Math.min(u16(s, at + 2), MAX_COLUMNS - 1); c <= last; c++) layout.widths[c] = w;
        break;
      }
      case EOF:
        for (let c = 0; c < layout.widths.length; c++) layout.widths[c] ??= null;
        while (layout.widths.length > 0 && layout.widths[layout.widths.length - 1] === null) layout.widths.pop();
        return layout;
      default:
        if (OLD_CELLS.has(type)) throw new NeedsFallback('a BIFF2–4 cell record');
    }
    p = next;
  }
}

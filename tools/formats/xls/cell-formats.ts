// Number formats and the XF records that carry them ([MS-XLS] 2.4.126 FORMAT, 2.4.353 XF).
//
// XF 0–14 are the style XFs every workbook has and XF 15 the default cell XF (General); each number format the
// cells use gets one cell XF after them. A format Excel has built in is referred to by its id, so that Excel
// shows it as its own (id 14, the short date, follows the reader's locale); any other gets a FORMAT record with
// an id from 164 on. Dates without a format of their own get the same formats as the xlsx writer gives them.
import { Fields } from './records.ts';

export const DEFAULT_XF = 15;
const FIRST_CUSTOM = 164;
/** Cell XFs at most: XF indexes are 12 bits in ROW records, and 4,000 is Excel 97's own bound on cell formats. */
const MAX_XF = 4000;

/** Built-in formats by code ([MS-XLS] 2.4.126: those that need no FORMAT record in any locale). */
const BUILT_IN = new Map<string, number>([
  ['0', 1],
  ['0.00', 2],
  ['#,##0', 3],
  ['#,##0.00', 4],
  ['0%', 9],
  ['0.00%', 10],
  ['0.00E+00', 11],
  ['# ?/?', 12],
  ['# ??/??', 13],
  ['m/d/yy', 14],
  ['d-mmm-yy', 15],
  ['d-mmm', 16],
  ['mmm-yy', 17],
  ['h:mm AM/PM', 18],
  ['h:mm:ss AM/PM', 19],
  ['h:mm', 20],
  ['h:mm:ss', 21],
  ['m/d/yy h:mm', 22],
  ['mm:ss', 45],
  ['[h]:mm:ss', 46],
  ['mmss.0', 47],
  ['##0.0E+0', 48],
  ['@', 49],
]);

/** The formats of Date cells that come without one, as the xlsx writer gives them. */
export const DATE_FORMAT = {
  date: 'yyyy-mm-dd',
  dateTime: 'yyyy-mm-dd hh:mm:ss',
  time: 'hh:mm:ss',
  dateTimeMs: 'yyyy-mm-dd hh:mm:ss.000',
  timeMs: 'hh:mm:ss.000',
} as const;

export class CellFormats {
  private readonly xfByCode = new Map<string, number>();
  /** The format id of each cell XF from 16 on. */
  private readonly xfFormats: number[] = [];
  private readonly custom: [number, string][] = [];

  /** The XF index of a format code; `General` is the default XF. -1 once MAX_XF formats are taken. */
  xf(code: string): number {
    let xf = this.xfByCode.get(code);
    if (xf !== undefined) return xf;
    if (code === 'General' || code === '') return DEFAULT_XF;
    if (this.xfFormats.length >= MAX_XF) return -1;
    let id = BUILT_IN.get(code);
    if (id === undefined) {
      id = FIRST_CUSTOM + this.custom.length;
      this.custom.push([id, code]);
    }
    xf = DEFAULT_XF + 1 + this.xfFormats.length;
    this.xfFormats.push(id);
    this.xfByCode.set(code, xf);
    return xf;
  }

  /** FORMAT records then every XF record, as payloads. */
  records(): { formats: number[][]; xfs: number[][] } {
    const formats = this.custom.map(([id, code]) => new Fields().u16(id).unicodeString(code.slice(0, 255)).payload);
    const xfs: number[][] = [];
    // Style XFs: XF 0 is the Normal style; 1–14 are the style XFs Excel keeps for its built-in styles.
    for (let i = 0; i < 15; i++) xfs.push(xf(0, true, i === 0 ? 0x00 : 0xf4));
    xfs.push(xf(0, false, 0x00));
    for (const id of this.xfFormats) xfs.push(xf(id, false, 0x04));
    return { formats, xfs };
  }
}

/**
 * One XF: font 0, the format, locked; a style XF has no parent (0xFFF), a cell XF has XF 0. `used` says which
 * attributes a cell XF sets itself (0x04: its number format); bottom-aligned, no borders, the default colours.
 */
function xf(format: number, style: boolean, used: number): number[] {
  return new Fields()
    .u16(0)
    .u16(format)
    .u16(style ? 0xfff5 : 0x0001)
    .u8(0x20)
    .u8(0)
    .u8(0)
    .u8(used)
    .u32(0)
    .u32(0)
    .u16(0x20c0).payload;
}

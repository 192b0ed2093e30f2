// A streaming BIFF8 (.xls, Excel 97–2003) writer: the Workbook stream and its compound file, written here.
//
// SheetJS's BIFF writer builds an object per cell and record and was measured at 1.6 GB peak for 10,000 rows
// and 3.2 GB for 20,000; this one writes each row's records into byte blocks as the row comes, so a sheet
// costs about its own size in bytes (bench/xls-writer.ts has the comparison with SheetJS and ssconvert).
//
// The stream is: the workbook globals (fonts, formats, XFs, one BOUNDSHEET per sheet, the shared strings),
// then each sheet's substream. The globals depend on every sheet (their strings, formats and offsets), so the
// sheets are written first and the globals put in front at the end; BOUNDSHEET offsets are known then.
//
// What BIFF8 keeps: text (Unicode), numbers, booleans, error cells, dates (1900 date system) with their number
// formats, merged ranges, sheet names, order and visibility, column widths. Formulas are not written: a
// formula cell is handed over as its cached value and written as that value. Limits: 65,536 rows, 256
// columns, 32,767 characters a cell: past one, a FormatError 'format-limit' (errors.ts formatLimit) naming the limit, the count
// found and where. Sheet names are written as given: the caller makes them valid (≤ 31 characters, unique).
import { ChangeLog, type Changed } from '../changes.ts';
import { formatLimit } from '../errors.ts';
import type { BookIn } from '../model.ts';
import { compoundFile } from './cfb-write.ts';
import { CellFormats } from './cell-formats.ts';
import { ByteSink, Fields } from './records.ts';
import { bof, SheetWriter, type SheetStream } from './sheet.ts';
import { SharedStrings, sstRecords } from './sst.ts';

export { MAX_CELL_CHARS, MAX_COLUMNS, MAX_ROWS } from './sheet.ts';

const EOF = 0x000a;
const BOUNDSHEET = 0x0085;
const MAX_SHEET_NAME = 31;

export interface XlsWritten {
  bytes: Uint8Array;
  /** Each sheet's name and the rows and columns it holds (to its last non-empty cell). */
  sheets: { name: string; rows: number }[];
  /** Cells written otherwise than given, because BIFF8 cannot hold them as they are. */
  changed: Changed[];
}

export async function writeXls(book: BookIn, o: { t?: (key: string) => string } = {}): Promise<XlsWritten> {
  const strings = new SharedStrings();
  const formats = new CellFormats();
  const changes = new ChangeLog();
  const done: { name: string; hidden: boolean; veryHidden: boolean; stream: SheetStream; rows: number }[] = [];
  let active = -1;
  for await (const sheet of book.sheets) {
    if (sheet.name.length === 0 || sheet.name.length > MAX_SHEET_NAME) throw new RangeError(`sheet name of ${sheet.name.length} characters`);
    const w = new SheetWriter(sheet.name, strings, formats, changes, o.t);
    for await (const batch of sheet.rows) w.rows(batch);
    const visibility = sheet.visibility ?? 'visible';
    const hidden = visibility !== 'visible';
    if (!hidden && active < 0) active = done.length;
    done.push({ name: sheet.name, hidden, veryHidden: visibility === 'veryHidden', stream: w.finish(sheet.columnWidths, sheet.merges, !hidden && active === done.length), rows: w.rowCount });
  }
  if (done.length === 0) throw new RangeError('a workbook needs a sheet');
  // Excel opens no workbook whose every sheet is hidden.
  if (active < 0) throw new RangeError('every sheet is hidden; a workbook shows at least one (the caller shows the first)');

  const head = globalsHead(formats, active, done.length);
  const boundSheets = (offsets: number[]) => {
    const s = new ByteSink(4096);
    done.forEach((d, i) => s.put(BOUNDSHEET, new Fields().u32(offsets[i]).u8(d.veryHidden ? 2 : d.hidden ? 1 : 0).u8(0).u8(d.name.length).u8(1).utf16(d.name).payload));
    return s.blocks();
  };
  const headLength = length(head);
  const boundLength = length(boundSheets(done.map(() => 0)));
  const sst = sstRecords(strings, headLength + boundLength);
  const globalsLength = headLength + boundLength + length(sst) + 4;
  const offsets: number[] = [];
  let at = globalsLength;
  for (const d of done) {
    offsets.push(at);
    at += d.stream.length;
  }
  const blocks: Uint8Array[] = [...head, ...boundSheets(offsets), ...sst, Uint8Array.of(EOF, 0, 0, 0)];
  done.forEach((d, i) => blocks.push(...d.stream.bytes(offsets[i])));
  return { bytes: compoundFile(blocks, at), sheets: done.map((d) => ({ name: d.name, rows: d.rows })), changed: changes.list() };
}

const length = (blocks: readonly Uint8Array[]) => blocks.reduce((n, b) => n + b.length, 0);

/** The globals up to the sheets' BOUNDSHEET records. */
function globalsHead(formats: CellFormats, active: number, sheets: number): Buffer[] {
  const g = new ByteSink(64 * 1024);
  const u16 = (v: number) => new Fields().u16(v).payload;
  g.put(0x0809, bof(0x0005));
  g.put(0x00e1, u16(0x04b0)); // INTERFACEHDR: UTF-16
  g.put(0x00c1, u16(0)); // MMS
  g.put(0x00e2, []); // INTERFACEEND
  g.put(0x0042, u16(0x04b0)); // CODEPAGE: UTF-16 (1200)
  g.put(0x0161, u16(0)); // DSF
  const tabs = new Fields();
  for (let i = 0; i < sheets; i++) tabs.u16(i + 1);
  if (tabs.payload.length <= 8224) g.put(0x013d, tabs.payload); // TABID
  g.put(0x009c, u16(0x0e)); // FNGROUPCOUNT
  g.put(0x0019, u16(0)); // WINDOWPROTECT
  g.put(0x0012, u16(0)); // PROTECT
  g.put(0x0013, u16(0)); // PASSWORD
  g.put(0x01af, u16(0)); // PROT4REV
  g.put(0x01bc, u16(0)); // PROT4REVPASS
  // WINDOW1: position and size, visible; the active tab is the first visible sheet.
  g.put(0x003d, new Fields().u16(0x0168).u16(0x001e).u16(0x3a5c).u16(0x2328).u16(0x0038).u16(active).u16(0).u16(1).u16(0x0258).payload);
  g.put(0x0040, u16(0)); // BACKUP
  g.put(0x008d, u16(0)); // HIDEOBJ
  g.put(0x0022, u16(0)); // DATEMODE: 1900
  g.put(0x000e, u16(1)); // PRECISION
  g.put(0x01b7, u16(0)); // REFRESHALL
  g.put(0x00da, u16(0)); // BOOKBOOL
  // Four fonts (Arial 10): font index 4 is never used in BIFF, and Excel expects the first four.
  const font = new Fields().u16(200).u16(0).u16(0x7fff).u16(400).u16(0).u8(0).u8(0).u8(0).u8(0).u8(5).u8(0);
  for (const c of 'Arial') font.u8(c.charCodeAt(0));
  for (let i = 0; i < 4; i++) g.put(0x0031, font.payload);
  const { formats: formatRecords, xfs } = formats.records();
  for (const f of formatRecords) g.put(0x041e, f);
  for (const x of xfs) g.put(0x00e0, x);
  g.put(0x0293, [0x00, 0x80, 0x00, 0xff]); // STYLE: Normal, built in, on XF 0
  g.put(0x0160, u16(0)); // USESELFS
  return g.blocks();
}

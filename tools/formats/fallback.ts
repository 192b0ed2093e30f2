// SheetJS, the reader of last resort: workbooks no fast reader takes (binary packages, BIFF2–5, SpreadsheetML 2003)
// and any file a fast reader hands over (book.ts). It reads with raw values after the container guards every
// workbook meets, and its cells go through the same grid as the fast readers' (grid.ts), so all give the same
// tables: dates decided from each cell's number format (1904 system included), error cells as their text.
//
// A workbook opened for its first sheet is parsed for that sheet alone; another sheet asked for later parses
// the rest. tests compare every fast reader's tables with this one's.
//
// Opened `full` (openWorkbook's `cells: 'full'`, for the tools that copy workbooks, tools.md §2.7), it is the
// reader of any .xlsx the fast reader hands over (test/formats/xlsx-full.test.ts names where SheetJS's full read
// of .xlsx falls short of the fast reader's) and of the .xls sheets with formulas: a cell with a number format
// other than General or a formula is a FullCell
// (value, format, formula in xlsx syntax, which SheetJS translates from BIFF), an error cell a CellError, and
// each table carries its layout (origin, merged ranges, column widths).
import * as XLSX from 'xlsx';
import * as cptable from 'xlsx/dist/cpexcel.full.mjs';
import type { BookReader, SheetRead } from './book.ts';
import { damaged, passwordProtected } from './errors.ts';
import { GRID_COLUMNS, GRID_ROWS, gridTable, outsideGrid, SheetGrid } from './grid.ts';
import { CellError, columnLetter, FullCell, type Cell, type CellRange, type ContentFormat, type Table, type TableLayout, type Visibility } from './model.ts';
import { dateKindOf, numberCell } from './number-format.ts';
import { FormatError } from './errors.ts';
import { isOle, isZip } from './sniff.ts';
import { encryptedPackage } from './xls/cfb.ts';
import { decryptedFile } from './xls/decrypt.ts';
import { inflateEntry, InflateBudget, openZip } from './zip/read.ts';
import { ERROR_TEXT } from './xls/error-codes.ts';

XLSX.set_cptable(cptable);


export class SheetJsReader implements BookReader {
  readonly lastResort = true;
  readonly sheets: { name: string; visibility: Visibility }[];
  private wb: XLSX.WorkBook;
  private whole: boolean;

  /** `first`: the caller reads one table, so only the first visible sheet is parsed until another is asked for. */
  constructor(
    private bytes: Uint8Array,
    readonly format: ContentFormat,
    sheets: 'first' | 'all',
    private readonly full = false,
  ) {
    // The container guards: a bomb is stopped here, not inside SheetJS, whose unzip trusts the sizes it is told.
    if (isZip(bytes)) guardZip(bytes);
    else if (isOle(bytes) && encryptedPackage(bytes)) throw passwordProtected('OLE EncryptedPackage');
    else if (isOle(bytes)) bytes = this.bytes = decryptedFile(bytes);
    this.whole = sheets === 'all';
    this.wb = parse(bytes, this.whole ? undefined : 0, full);
    // One table means the first VISIBLE sheet (tools.md §2.3): only when the first is hidden is it worth parsing all.
    if (!this.whole && this.visibility(0) !== 'visible' && this.wb.SheetNames.length > 1) this.parseAll();
    if (!this.wb.SheetNames || this.wb.SheetNames.length === 0) throw damaged('SheetJS found no sheet');
    this.sheets = this.wb.SheetNames.map((name, i) => ({ name, visibility: this.visibility(i) }));
  }

  private visibility(i: number): Visibility {
    const hidden = this.wb.Workbook?.Sheets?.[i]?.Hidden;
    return hidden === 2 ? 'veryHidden' : hidden ? 'hidden' : 'visible';
  }

  private parseAll(): void {
    this.wb = parse(this.bytes, undefined, this.full);
    this.whole = true;
  }

  table(i: number, read: SheetRead): Table {
    const name = this.wb.SheetNames[i];
    if (!this.whole && !this.wb.Sheets[name]) this.parseAll();
    const grid = new SheetGrid(read.cells);
    const ws = this.wb.Sheets[name];
    sheetCells(ws, grid, Boolean(this.wb.Workbook?.WBProps?.date1904), name, this.full);
    grid.report(read.report, read.file, name);
    const rows = grid.rows(read.file, name);
    return gridTable(name, rows, read.hasHeader, this.full ? layoutOf(ws, grid.origin) : undefined);
  }
}

// The container guards run before SheetJS sees a file, so that every workbook meets the same guards (§2.11):
// - a ZIP gets the directory checks of zip/read.ts, and every entry is inflated once, counted, before SheetJS
//   inflates it again: a bomb is stopped here, not inside SheetJS, whose unzip trusts the sizes it is told;
//   in an OOXML package (one with [Content_Types].xml) an XML part declaring a DTD is refused too, as the xlsx
//   reader refuses it: OPC makes a DTD an error (ECMA-376 Part 2, [M1.18]), whereas ODF allows them (OpenOffice
//   wrote one in every manifest) and SheetJS processes none, so an .ods keeps them;
// - an OLE compound file holding an `EncryptedPackage` stream is an xlsx saved with a password to open; an .xls
//   encrypted with Excel's default password is decrypted first (xls/decrypt.ts), any other password refused.
const DTD_MARKERS = [Buffer.from('<!DOCTYPE'), Buffer.from('<!ENTITY')];
const XML_PART = /\.(xml|rels|vml)$/i;

export function guardZip(bytes: Uint8Array): void {
  const zip = openZip(bytes, { caseTwins: true });
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

function parse(bytes: Uint8Array, sheets: number | undefined, full: boolean): XLSX.WorkBook {
  try {
    return XLSX.read(bytes, {
      type: 'array',
      dense: true,
      cellNF: true,
      cellDates: false,
      cellText: false,
      cellHTML: false,
      cellFormula: true,
      // Column widths (`!cols`) come only with the styles.
      cellStyles: full,
      // Stubs let a formula saved without its cached value show up (as `t: 'z'` with `f`), to warn about it.
      sheetStubs: true,
      sheets,
    });
  } catch (err) {
    if (/password|encrypt/i.test(String((err as Error)?.message))) throw passwordProtected('SheetJS: encrypted workbook');
    throw Object.assign(damaged(`SheetJS: ${String((err as Error)?.message).slice(0, 200)}`), { cause: err });
  }
}

/** Puts the cells SheetJS read into the grid, deciding dates from each cell's number format. */
function sheetCells(ws: XLSX.WorkSheet | undefined, grid: SheetGrid, date1904: boolean, sheet: string, full: boolean): void {
  const data = (ws?.['!data'] ?? []) as (XLSX.CellObject | undefined)[][];
  for (let r = 0; r < data.length; r++) {
    const src = data[r];
    if (!src) continue;
    for (let c = 0; c < src.length; c++) {
      const cell = src[c];
      if (!cell) continue;
      // SheetJS keeps a cell past the grid (XFE1, A1048577) where the file put it: the file is broken.
      if (r >= GRID_ROWS || c >= GRID_COLUMNS) throw outsideGrid(`${columnLetter(c)}${r + 1}`, sheet);
      let v: Cell = null;
      switch (cell.t) {
        case 'n':
          if (typeof cell.v === 'number') v = numberCell(cell.v, dateKindOf(cell.z), date1904);
          break;
        case 's':
          v = typeof cell.v === 'string' && cell.v !== '' ? cell.v : null;
          break;
        case 'b':
          v = Boolean(cell.v);
          break;
        case 'd':
          v = isoCellDate(cell.v);
          break;
        case 'e': {
          const text = ERROR_TEXT[cell.v as number] ?? (typeof cell.w === 'string' ? cell.w : '#ERROR');
          if (!full) {
            grid.error(r, c, text);
            continue;
          }
          const e = new CellError(text);
          grid.set(r, c, (cell.f ? new FullCell(e, null, cell.f) : e) as unknown as Exclude<Cell, null>);
          continue;
        }
      }
      if (full && v !== null) {
        const format = typeof cell.z === 'string' && cell.z !== 'General' && (typeof v === 'number' || v instanceof Date) ? cell.z : null;
        const formula = typeof cell.f === 'string' && cell.f !== '' ? cell.f : null;
        // A full cell where there is more than the value: the grid holds it as it holds any value.
        if (format !== null || formula !== null) {
          grid.set(r, c, new FullCell(v, format, formula) as unknown as Exclude<Cell, null>);
          continue;
        }
      }
      if (v === null) {
        if (cell.t === 'z' && cell.f) grid.noValue++;
        continue;
      }
      grid.set(r, c, v);
    }
  }
}

// A `t="d"` cell holds ISO text; without a zone it is read as UTC, never in the process time zone.
function isoCellDate(x: unknown): Cell {
  if (x instanceof Date) return Number.isNaN(x.getTime()) ? null : x;
  if (typeof x !== 'string' || x === '') return null;
  const d = new Date(/(Z|[+-]\d\d:?\d\d)$/.test(x) || !x.includes('T') ? x : x + 'Z');
  return Number.isNaN(d.getTime()) ? x : d;
}

/** Where the table lies in its sheet, its merged ranges and column widths (in characters), as SheetJS read them. */
function layoutOf(ws: XLSX.WorkSheet | undefined, origin: { row: number; col: number }): TableLayout {
  const merges: CellRange[] = (ws?.['!merges'] ?? []).map((m) => ({ top: m.s.r, left: m.s.c, bottom: m.e.r, right: m.e.c }));
  const widths: (number | null)[] = [];
  const cols = ws?.['!cols'] ?? [];
  for (let c = 0; c < cols.length; c++) {
    const col = cols[c];
    const w = col?.width ?? col?.wch;
    widths.push(typeof w === 'number' && Number.isFinite(w) && w >= 0 ? Math.round(w * 100) / 100 : null);
  }
  while (widths.length > 0 && widths[widths.length - 1] === null) widths.pop();
  return { origin, merges, widths };
}


// One worksheet substream ([MS-XLS] 2.1.7.20.5), written as its rows come.
//
// Cells go in row blocks of 32 rows, as Excel lays them out: the block's ROW records, its cell records, then a
// DBCELL giving their offsets; the INDEX record at the top lists every DBCELL. A block's cells wait in a small
// buffer of their own until the block ends (its ROW records must come first); everything else goes straight
// to the sheet's byte sink. The head (BOF, INDEX, DIMENSIONS…) depends on every row and on where the sheet
// will stand in the stream, so it is made last and put in front.
//
// Cells: text → LABELSST (`''` is an empty cell); numbers → RK when the 30-bit form holds them exactly, else
// NUMBER; booleans and errors → BOOLERR; dates → their 1900-system serial with a date format. What BIFF8 cannot
// hold is counted in the change log: dates before 1900 as ISO text (as the xlsx writer does), infinite or NaN
// numbers as their text, error codes newer than BIFF8 (#SPILL!…) as their text.
import { dateToSerial, hasTime, isTimeOnly } from '../dates.ts';
import { rowsOf } from '../batch.ts';
import type { ChangeLog, Place } from '../changes.ts';
import { formatLimit } from '../errors.ts';
import { CellError, FullCell, type AnyCell, type CellRange, type SheetIn } from '../model.ts';
import { CellFormats, DATE_FORMAT, DEFAULT_XF } from './cell-formats.ts';
import { ByteSink, Fields, MAX_PAYLOAD } from './records.ts';
import type { SharedStrings } from './sst.ts';

export const MAX_ROWS = 65_536;
export const MAX_COLUMNS = 256;
export const MAX_CELL_CHARS = 32_767;

const BOF = 0x0809;
const EOF = 0x000a;
const INDEX = 0x020b;
const DBCELL = 0x00d7;
const ROW = 0x0208;
const NUMBER = 0x0203;
const RK = 0x027e;
const LABELSST = 0x00fd;
const BOOLERR = 0x0205;
const DIMENSIONS = 0x0200;
const DEFCOLWIDTH = 0x0055;
const COLINFO = 0x007d;
const WINDOW2 = 0x023e;
const MERGEDCELLS = 0x00e5;
/** Ranges per MERGEDCELLS record: 2 + 8 × 1,027 bytes fill a record; Excel writes 1,026. */
const MERGES_PER_RECORD = 1026;

/** The BIFF8 codes of the errors the format knows ([MS-XLS] 2.5.10). */
const ERROR_CODES: Readonly<Record<string, number>> = { '#NULL!': 0x00, '#DIV/0!': 0x07, '#VALUE!': 0x0f, '#REF!': 0x17, '#NAME?': 0x1d, '#NUM!': 0x24, '#N/A': 0x2a, '#GETTING_DATA': 0x2b };

/** The BOF of a substream: BIFF8, of type `kind` (5 globals, 0x10 worksheet), as Excel 97 writes it. */
export function bof(kind: number): number[] {
  return new Fields().u16(0x0600).u16(kind).u16(0x0dbb).u16(0x07cc).u32(0x000100c1).u32(0x00000006).payload;
}

// RK: a 30-bit integer, or the high 30 bits of a double whose other bits are zero; either may be scaled by 100.
const rkDouble = new Float64Array(1);
const rkBits = new Uint32Array(rkDouble.buffer);
const RK_INT = 2 ** 29;

function rkOf(n: number): number {
  if (Number.isInteger(n) && n >= -RK_INT && n < RK_INT) return ((n << 2) | 2) >>> 0;
  rkDouble[0] = n;
  if (rkBits[0] === 0 && (rkBits[1] & 3) === 0) return rkBits[1];
  const cents = Math.round(n * 100);
  if (cents >= -RK_INT && cents < RK_INT && cents / 100 === n) return ((cents << 2) | 3) >>> 0;
  return -1;
}

function dateFormat(d: Date): string {
  const ms = d.getUTCMilliseconds() !== 0;
  if (isTimeOnly(d)) return ms ? DATE_FORMAT.timeMs : DATE_FORMAT.time;
  if (!hasTime(d)) return DATE_FORMAT.date;
  return ms ? DATE_FORMAT.dateTimeMs : DATE_FORMAT.dateTime;
}

/** A sheet's substream, once every row is in: the head is made when the sheet's stream offset is known. */
export interface SheetStream {
  /** Bytes of the whole substream. */
  length: number;
  /** Every byte of the substream, in order, for a sheet whose BOF is at stream offset `start`. */
  bytes(start: number): Buffer[];
}

/** Bytes a row block's cells can take: 32 rows × 256 cells × 18 bytes (NUMBER, the longest). */
const BLOCK_CELL_BYTES = 32 * MAX_COLUMNS * 18;

export class SheetWriter {
  private readonly body = new ByteSink();
  private readonly cells = Buffer.allocUnsafe(BLOCK_CELL_BYTES);
  private cellsAt = 0;
  /** The rows of the current block that have cells: row, first and last column + 1, offset of their first cell. */
  private readonly blockRows: number[] = [];
  private block = -1;
  /** Body offsets of each DBCELL, for INDEX. */
  private readonly dbcells: number[] = [];
  private row = 0;
  private firstRow = -1;
  private lastRow = -1;
  private firstCol = MAX_COLUMNS;
  private lastCol = -1;
  /** Past a limit, rows are only counted, to name how many there are; the error comes at the end of the sheet. */
  private over: { rows: number; columns: number } | null = null;

  constructor(
    readonly name: string,
    private readonly strings: SharedStrings,
    private readonly formats: CellFormats,
    private readonly changes: ChangeLog,
    /** Localizes the unit of a limit's error. */
    private readonly t?: (key: string) => string,
  ) {}

  /** Rows up to the last one with a value. */
  get rowCount(): number {
    return this.lastRow + 1;
  }

  rows(batch: Parameters<typeof rowsOf<AnyCell>>[0]): void {
    for (const cells of rowsOf(batch)) {
      const r = this.row++;
      if (this.over || r >= MAX_ROWS) this.scan(r, cells);
      else this.put(r, cells);
    }
  }

  /** A row past a limit (or after one was crossed): only its extent counts. */
  private scan(r: number, cells: readonly AnyCell[]): void {
    for (let c = cells.length - 1; c >= 0; c--) {
      if (!isEmpty(cells[c])) {
        this.over ??= { rows: 0, columns: 0 };
        this.over.rows = r + 1;
        this.over.columns = Math.max(this.over.columns, c + 1);
        return;
      }
    }
  }

  private put(r: number, cells: readonly AnyCell[]): void {
    if (r >> 5 !== this.block) this.endBlock(r >> 5);
    const start = this.cellsAt;
    let first = -1;
    let last = -1;
    for (let c = 0; c < cells.length; c++) {
      const v = cells[c];
      if (isEmpty(v)) continue;
      if (c >= MAX_COLUMNS) {
        this.cellsAt = start;
        return this.scan(r, cells);
      }
      this.cell(r, c, v);
      if (first < 0) first = c;
      last = c;
    }
    if (first < 0) return;
    this.blockRows.push(r, first, last + 1, start);
    if (this.firstRow < 0) this.firstRow = r;
    this.lastRow = r;
    if (first < this.firstCol) this.firstCol = first;
    if (last > this.lastCol) this.lastCol = last;
  }

  private place(r: number, c: number): () => Place {
    return () => ({ sheet: this.name, row: r + 1, column: c + 1 });
  }

  private cell(r: number, c: number, v: Exclude<AnyCell, null>): void {
    if (typeof v === 'string') return this.text(r, c, v);
    if (typeof v === 'number') return this.number(r, c, v, DEFAULT_XF);
    if (typeof v === 'boolean') return this.boolErr(r, c, v ? 1 : 0, 0);
    if (v instanceof Date) return this.date(r, c, v, null);
    if (v instanceof CellError) {
      const code = ERROR_CODES[v.text];
      if (code !== undefined) return this.boolErr(r, c, code, 1);
      this.changes.note('error_as_text', this.place(r, c));
      return this.text(r, c, v.text);
    }
    if (v instanceof FullCell) {
      // BIFF8 formulas are not written: the cached value stands, counted.
      if (v.formula !== null) this.changes.note('formula_as_value', this.place(r, c));
      const inner = v.value;
      if (v.format !== null && inner instanceof Date) return this.date(r, c, inner, v.format);
      if (v.format !== null && typeof inner === 'number') return this.number(r, c, inner, this.xf(v.format, r, c));
      if (inner === null || inner === '') return;
      return this.cell(r, c, inner);
    }
    throw new TypeError(`not a cell value at row ${r + 1}, column ${c + 1}`);
  }

  private xf(format: string, r: number, c: number): number {
    const xf = this.formats.xf(format);
    if (xf >= 0) return xf;
    this.changes.note('format_dropped', this.place(r, c));
    return DEFAULT_XF;
  }

  private text(r: number, c: number, s: string): void {
    if (s.length > MAX_CELL_CHARS) {
      throw formatLimit('xls', 'characters', MAX_CELL_CHARS, s.length, this.place(r, c)(), this.t);
    }
    const p = this.head(LABELSST, 10, r, c, DEFAULT_XF);
    this.cells.writeUInt32LE(this.strings.id(s), p + 6);
  }

  private number(r: number, c: number, n: number, xf: number): void {
    if (!Number.isFinite(n)) {
      this.changes.note('number_as_text', this.place(r, c));
      return this.text(r, c, String(n));
    }
    const rk = rkOf(n);
    if (rk >= 0) {
      const p = this.head(RK, 10, r, c, xf);
      this.cells.writeUInt32LE(rk, p + 6);
    } else {
      const p = this.head(NUMBER, 14, r, c, xf);
      this.cells.writeDoubleLE(n, p + 6);
    }
  }

  private date(r: number, c: number, d: Date, format: string | null): void {
    const serial = dateToSerial(d);
    if (serial === null) {
      if (Number.isNaN(d.getTime())) {
        this.changes.note('invalid_date', this.place(r, c));
        return this.text(r, c, '');
      }
      this.changes.note('date_as_text', this.place(r, c));
      return this.text(r, c, d.toISOString().slice(0, hasTime(d) ? 19 : 10));
    }
    this.number(r, c, serial, this.xf(format ?? dateFormat(d), r, c));
  }

  private boolErr(r: number, c: number, value: number, isError: number): void {
    const p = this.head(BOOLERR, 8, r, c, DEFAULT_XF);
    this.cells[p + 6] = value;
    this.cells[p + 7] = isError;
  }

  /** A cell record's header and its row, column and XF; returns where its payload starts. */
  private head(type: number, len: number, r: number, c: number, xf: number): number {
    const b = this.cells;
    let p = this.cellsAt;
    b.writeUInt16LE(type, p);
    b.writeUInt16LE(len, p + 2);
    p += 4;
    b.writeUInt16LE(r, p);
    b.writeUInt16LE(c, p + 2);
    b.writeUInt16LE(xf, p + 4);
    this.cellsAt = p + len;
    return p;
  }

  /** Writes the block in progress (ROW records, cells, DBCELL) and starts block `next`. */
  private endBlock(next: number): void {
    const rows = this.blockRows;
    if (rows.length > 0) {
      const body = this.body;
      // Blocks without a row of data between two that have some still get their DBCELL, as INDEX counts them.
      while (this.dbcells.length > 0 && this.dbcells.length < this.block - (this.firstRow >> 5)) this.emptyDbcell();
      const firstRowAt = body.position;
      for (let i = 0; i < rows.length; i += 4) {
        const p = body.record(ROW, 16);
        const b = body.b;
        b.writeUInt16LE(rows[i], p);
        b.writeUInt16LE(rows[i + 1], p + 2);
        b.writeUInt16LE(rows[i + 2], p + 4);
        b.writeUInt16LE(0x00ff, p + 6);
        b.writeUInt32LE(0, p + 8);
        // Reserved bit 8 set, as the format requires; the row's XF is the default one.
        b.writeUInt32LE(0x000f0100, p + 12);
      }
      body.raw(this.cells.subarray(0, this.cellsAt));
      const n = rows.length / 4;
      const at = body.position;
      this.dbcells.push(at);
      const p = body.record(DBCELL, 4 + 2 * n);
      const b = body.b;
      b.writeUInt32LE(at - firstRowAt, p);
      // The first offset is from the end of the first ROW record; each next one from the previous row's first cell.
      b.writeUInt16LE((n - 1) * 20 + rows[3], p + 4);
      for (let k = 1; k < n; k++) b.writeUInt16LE(rows[4 * k + 3] - rows[4 * (k - 1) + 3], p + 4 + 2 * k);
    }
    rows.length = 0;
    this.cellsAt = 0;
    this.block = next;
  }

  private emptyDbcell(): void {
    this.dbcells.push(this.body.position);
    const p = this.body.record(DBCELL, 4);
    this.body.b.writeUInt32LE(0, p);
  }

  /** Ends the rows; throws when the sheet passed a limit of the format. */
  finish(columnWidths: SheetIn['columnWidths'] = [], merges: readonly CellRange[] = [], active = false): SheetStream {
    if (this.over) {
      const o = this.over;
      if (o.columns > MAX_COLUMNS) {
        throw formatLimit('xls', 'columns', MAX_COLUMNS, o.columns, { sheet: this.name, column: o.columns }, this.t);
      }
      if (o.rows > MAX_ROWS) {
        throw formatLimit('xls', 'rows', MAX_ROWS, o.rows, { sheet: this.name, row: o.rows }, this.t);
      }
    }
    this.endBlock(-1);
    const body = this.body.blocks();
    const tail = new ByteSink(4096);
    // Grid lines, headers, zeros, outline symbols; the active sheet is also the selected one.
    tail.put(WINDOW2, new Fields().u16(active ? 0x06b6 : 0x00b6).u16(0).u16(0).u16(64).u16(0).u16(0).u16(0).u16(0).u16(0).payload);
    this.mergeRecords(tail, merges);
    tail.put(EOF, []);
    const tailBytes = tail.blocks();
    const bodyLength = body.reduce((n, b) => n + b.length, 0);
    const tailLength = tailBytes.reduce((n, b) => n + b.length, 0);
    const headLength = this.headRecords(0, columnWidths, 0).position;
    return {
      length: headLength + bodyLength + tailLength,
      bytes: (start) => [...this.headRecords(start, columnWidths, start + headLength).blocks(), ...body, ...tailBytes],
    };
  }

  private mergeRecords(sink: ByteSink, merges: readonly CellRange[]): void {
    const fit: CellRange[] = [];
    for (const m of merges) {
      if (m.top >= MAX_ROWS || m.left >= MAX_COLUMNS || (m.top === m.bottom && m.left === m.right)) continue;
      if (m.bottom >= MAX_ROWS || m.right >= MAX_COLUMNS) this.changes.note('merge_clipped', () => ({ sheet: this.name, row: m.top + 1, column: m.left + 1 }));
      fit.push({ top: m.top, left: m.left, bottom: Math.min(m.bottom, MAX_ROWS - 1), right: Math.min(m.right, MAX_COLUMNS - 1) });
    }
    for (let i = 0; i < fit.length; i += MERGES_PER_RECORD) {
      const part = fit.slice(i, i + MERGES_PER_RECORD);
      const f = new Fields().u16(part.length);
      for (const m of part) f.u16(m.top).u16(m.bottom).u16(m.left).u16(m.right);
      sink.put(MERGEDCELLS, f.payload);
    }
  }

  /** BOF to DIMENSIONS, for a sheet at stream offset `start` whose body starts at `bodyStart`. */
  private headRecords(start: number, widths: NonNullable<SheetIn['columnWidths']>, bodyStart: number): ByteSink {
    const h = new ByteSink(4096 + 4 * this.dbcells.length);
    const u16 = (v: number) => new Fields().u16(v).payload;
    h.put(BOF, bof(0x10));
    const hasRows = this.firstRow >= 0;
    const index = new Fields().u32(0).u32(hasRows ? this.firstRow : 0).u32(hasRows ? this.lastRow + 1 : 0);
    const indexAt = h.record(INDEX, 16 + 4 * this.dbcells.length);
    h.put(0x000d, u16(1)); // CALCMODE: automatic
    h.put(0x000c, u16(100)); // CALCCOUNT
    h.put(0x000f, u16(1)); // REFMODE: A1
    h.put(0x0011, u16(0)); // ITERATION: off
    h.put(0x0010, new Fields().f64(0.001).payload); // DELTA
    h.put(0x005f, u16(1)); // SAVERECALC
    h.put(0x002a, u16(0)); // PRINTHEADERS
    h.put(0x002b, u16(0)); // PRINTGRIDLINES
    h.put(0x0082, u16(1)); // GRIDSET
    h.put(0x0080, new Fields().u16(0).u16(0).u16(0).u16(0).payload); // GUTS
    h.put(0x0225, new Fields().u16(0).u16(0x00ff).payload); // DEFAULTROWHEIGHT: 12.75 pt
    h.put(0x0081, u16(0x04c1)); // WSBOOL
    const defColWidthAt = start + h.position;
    h.put(DEFCOLWIDTH, u16(8));
    for (let c = 0; c < Math.min(widths.length, MAX_COLUMNS); ) {
      const w = widths[c];
      let end = c;
      while (end + 1 < Math.min(widths.length, MAX_COLUMNS) && widths[end + 1] === w) end++;
      if (typeof w === 'number' && Number.isFinite(w) && w >= 0) {
        h.put(COLINFO, new Fields().u16(c).u16(end).u16(Math.min(0xffff, Math.round(w * 256))).u16(DEFAULT_XF).u16(0).u16(0).payload);
      }
      c = end + 1;
    }
    h.put(
      DIMENSIONS,
      new Fields()
        .u32(hasRows ? this.firstRow : 0)
        .u32(hasRows ? this.lastRow + 1 : 0)
        .u16(hasRows ? this.firstCol : 0)
        .u16(hasRows ? this.lastCol + 1 : 0)
        .u16(0).payload,
    );
    index.u32(defColWidthAt);
    const bodyOffset = bodyStart;
    for (const d of this.dbcells) index.u32(bodyOffset + d);
    if (index.payload.length > MAX_PAYLOAD) throw new Error('INDEX record too long');
    h.b.set(index.payload, indexAt);
    return h;
  }
}

function isEmpty(v: AnyCell | undefined): v is null | undefined | '' {
  return v === null || v === undefined || v === '';
}

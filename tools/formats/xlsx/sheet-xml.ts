// One worksheet part, streamed into a SheetGrid: only `sheetData` is read, and in it only what carries cells:
// `row` (r), `c` (r, t, s), `v`, inline strings (`is` → `t`, phonetic runs left out) and `f` (only to know that
// a formula was saved without its value). Everything else (dimension, merged cells, extensions) is skipped;
// the declared `<dimension>` in particular is never trusted.
//
// Read `full` (a `layout` in the context: openWorkbook's `cells: 'full'`), it reads besides what SheetJS's
// full read gives: each number's and date's number format and each cell's formula (FullCell; shared formulas
// moved to each cell of their group, formula.ts), error cells as CellErrors, `<cols>` widths and
// `<mergeCell>` ranges. A read that is not full pays for none of it: the formula text is not even gathered.
//
// Cell types, as SheetJS reads them (grid.ts documents the rules):
// - number (`n` or no type): the value, or a date when its format is a date format and it is not negative;
// - `s` shared string, `str` formula text, `inlineStr`: text, empty text is an empty cell;
// - `b` boolean (`1`/`true`), `e` error: its text, counted in a warning;
// - no value: an empty cell, counted when a number or shared string formula had no cached value;
// - `d` (ISO 8601, Strict OOXML and a few tools): a date or time as written, a duration (`PT0H11M0S`) as its
//   number of days, then as a number in that cell's format (dates.ts isoCellValue); text that is neither stays
//   text. SheetJS, which read them before, made some dates before 1900-03-01 a day off (1899-12-31 read as
//   1899-12-30), those before 1904 in a 1904 workbook negative numbers, and each duration NaN;
// - unknown types go to SheetJS, as do cell references that are not plain `A1` style (either case); a reference
//   outside the grid (XFE1, A1048577, A0, a row 0) is a broken file,
//   refused naming it (`cell-outside-grid`): Excel repairs such a file by dropping the cell, and SheetJS made a
//   table of a million rows of it, or lost the cell without a word.
import { CellError, columnLetter, FullCell, type Cell, type CellRange } from '../model.ts';
import { isoCellValue } from '../dates.ts';
import { shiftFormula } from './formula.ts';
import { ColumnTexts, RecentDates } from '../shared-cells.ts';
import { numberCell, type DateKind } from '../number-format.ts';
import { damaged, NeedsFallback } from '../errors.ts';
import { GRID_COLUMNS as MAX_COL, GRID_ROWS as MAX_ROW, outsideGrid, type SheetGrid } from '../grid.ts';
import { AttrCursor, attributesOf, cellString, decodeEntities, MAX_TOKEN_BYTES, nameIs, xmlText, XmlScanner, type XmlHandler } from '../xml/scan.ts';
import { inflateChunks, type InflateBudget, type ZipArchive, type ZipEntry } from '../zip/read.ts';


// Cell types.
const NUMBER = 0;
const SHARED = 1;
const FORMULA_TEXT = 2;
const INLINE = 3;
const BOOLEAN = 4;
const ERROR = 5;
const DATE = 6;

export interface SheetContext {
  /** The sheet's name, for the errors that name a cell. */
  sheet: string;
  grid: SheetGrid;
  strings: string[];
  dateKinds: DateKind[];
  date1904: boolean;
  /** Each cell format's number format (null for General): read only when `layout` is given. */
  formats?: (string | null)[];
  /** Given for a full read: filled with the sheet's merged ranges and column widths. */
  layout?: { merges: CellRange[]; widths: (number | null)[] };
}

export function readSheet(zip: ZipArchive, entry: ZipEntry, budget: InflateBudget, ctx: SheetContext): void {
  for (const _ of sheetSteps(zip, entry, budget, ctx));
}

/** readSheet a step at a time: each step scans one inflated chunk into the grid. */
export function* sheetSteps(zip: ZipArchive, entry: ZipEntry, budget: InflateBudget, ctx: SheetContext): Generator<void> {
  const scanner = new XmlScanner(new SheetHandler(ctx));
  for (const chunk of inflateChunks(zip, entry, budget)) {
    scanner.push(chunk);
    yield;
  }
  scanner.end();
}

class SheetHandler implements XmlHandler {
  private inData = false;
  private row = -1;
  private col = -1;
  private inCell = false;
  private cellRow = 0;
  private cellCol = 0;
  private type = NUMBER;
  private style = -1;
  private hasFormula = false;
  private inV = false;
  private v: string | null = null;
  /** A number or shared-string index read straight from the bytes, when `v` is READY. */
  private ready = 0;
  private inInline = false;
  private inT = false;
  private phonetic = 0;
  private inlineText = '';
  private readonly attr = new AttrCursor();
  private readonly dates = new RecentDates();
  private readonly texts = new ColumnTexts();
  /** Full read only: the cell's formula text as read, its shared group (-1 for none), and each group's first cell. */
  private readonly full: boolean;
  private inF = false;
  private formulaText = '';
  private sharedGroup = -1;
  private readonly groups = new Map<number, { text: string; row: number; col: number }>();

  constructor(private readonly ctx: SheetContext) {
    this.full = ctx.layout !== undefined;
  }

  /**
   * Text written in the cell itself (inline strings, as this service writes every text, and formula results):
   * one string per distinct text of a column while the column keeps repeating itself, as a shared-string table
   * would give (100,000 rows of this service's own output: about 6 MB less), bounded (shared-cells.ts).
   */
  private textCell(text: string): string | null {
    return text === '' ? null : this.texts.share(this.cellCol, text);
  }

  /**
   * A number in a date format. Cells with the same date share one Date: a Date takes 96 bytes, and a column of
   * dates mostly repeats a few thousand days (100,000 rows: 9 MB of Dates, 0.1 MB shared). Tools never change a
   * cell in place. The cache is a fixed table of recent dates, so distinct timestamps cost nothing more.
   */
  private dateCell(n: number, kind: DateKind): Cell {
    const key = kind === 2 ? -1 - n : n;
    const same = this.dates.get(key);
    if (same !== undefined) return same;
    const value = numberCell(n, kind, this.ctx.date1904);
    if (value instanceof Date) this.dates.put(key, value);
    return value;
  }

  open(b: Buffer, ln: number, le: number, ae: number, self: boolean): void {
    if (!this.inData) {
      if (!self && nameIs(b, ln, le, 'sheetData')) this.inData = true;
      else if (this.full) this.layoutElement(b, ln, le, ae);
      return;
    }
    const len = le - ln;
    const c0 = b[ln];
    if (len === 1) {
      if (c0 === 0x63) this.openCell(b, le, ae, self);
      else if (c0 === 0x76) this.inV = this.inCell && !self && this.v === null;
      else if (c0 === 0x66 && this.inCell) {
        this.hasFormula = true;
        if (this.full) this.openFormula(b, le, ae, self);
      } else if (c0 === 0x74) this.inT = this.inInline && this.phonetic === 0 && !self;
    } else if (len === 3 && nameIs(b, ln, le, 'row')) this.openRow(b, le, ae);
    else if (len === 2 && nameIs(b, ln, le, 'is')) this.inInline = this.inCell && !self;
    else if (len === 3 && !self && nameIs(b, ln, le, 'rPh')) this.phonetic++;
  }

  close(b: Buffer, ln: number, le: number): void {
    if (!this.inData) return;
    const len = le - ln;
    const c0 = b[ln];
    if (len === 1) {
      if (c0 === 0x63) {
        if (this.inCell) this.finishCell();
      } else if (c0 === 0x76) this.inV = false;
      else if (c0 === 0x74) this.inT = false;
      else if (c0 === 0x66) this.inF = false;
    } else if (len === 2 && nameIs(b, ln, le, 'is')) this.inInline = false;
    else if (len === 3 && nameIs(b, ln, le, 'rPh')) this.phonetic = Math.max(0, this.phonetic - 1);
    else if (nameIs(b, ln, le, 'sheetData')) this.inData = false;
  }

  text(b: Buffer, s: number, e: number, literal: boolean): void {
    if (this.inV) {
      if (this.v === READY) throw new NeedsFallback('a value in pieces');
      // Most values are plain numbers and indexes: read from the bytes, without a string to parse.
      if (this.v === null && !literal && (this.type === NUMBER || this.type === SHARED)) {
        const x = this.type === NUMBER ? plainNumber(b, s, e) : digits(b, s, e);
        if (this.type === NUMBER ? !Number.isNaN(x) : x >= 0) {
          this.ready = x;
          this.v = READY;
          return;
        }
      }
      const piece = this.type === NUMBER || this.type === SHARED || this.type === BOOLEAN ? b.toString('latin1', s, e) : b.toString('utf8', s, e);
      const text = xmlText(piece, literal);
      this.v = this.v === null ? text : this.v + text;
      if (this.v.length > MAX_TOKEN_BYTES) throw damaged('cell value too long');
    } else if (this.inT) {
      this.inlineText += xmlText(b.toString('utf8', s, e), literal);
      if (this.inlineText.length > MAX_TOKEN_BYTES) throw damaged('cell value too long');
    } else if (this.inF) {
      this.formulaText += xmlText(b.toString('utf8', s, e), literal);
      if (this.formulaText.length > MAX_TOKEN_BYTES) throw damaged('formula too long');
    }
  }

  /** `<f>` of a full read: a shared formula's group. */
  private openFormula(b: Buffer, s: number, e: number, self: boolean): void {
    const a = attributesOf(b, s, e);
    const group = a.si === undefined ? NaN : parseInt(a.si, 10);
    this.sharedGroup = a.t === 'shared' && group >= 0 ? group : -1;
    this.inF = !self;
  }

  /** The cell's formula (full read), recording a shared group's first cell. */
  private formula(): string | null {
    const text = cellString(this.formulaText);
    if (this.sharedGroup < 0) return text === '' ? null : text;
    if (text !== '') {
      this.groups.set(this.sharedGroup, { text, row: this.cellRow, col: this.cellCol });
      return text;
    }
    const first = this.groups.get(this.sharedGroup);
    return first ? shiftFormula(first.text, this.cellRow - first.row, this.cellCol - first.col) : null;
  }

  /** `<col>` widths and `<mergeCell>` ranges, outside `sheetData` (full read). */
  private layoutElement(b: Buffer, ln: number, le: number, ae: number): void {
    const len = le - ln;
    const layout = this.ctx.layout!;
    if (len === 3 && nameIs(b, ln, le, 'col')) {
      const a = attributesOf(b, le, ae);
      const min = parseInt(a.min, 10);
      const max = Math.min(parseInt(a.max, 10), MAX_COL);
      const w = a.width === undefined ? NaN : Number(a.width);
      const width = Number.isFinite(w) && w >= 0 ? Math.round(w * 100) / 100 : null;
      if (!(min >= 1 && max >= min)) return;
      while (layout.widths.length < min - 1) layout.widths.push(null);
      for (let c = min - 1; c < max; c++) layout.widths[c] = width;
    } else if (len === 9 && nameIs(b, ln, le, 'mergeCell')) {
      const range = rangeOf(attributesOf(b, le, ae).ref ?? '');
      if (range) layout.merges.push(range);
    }
  }

  private openRow(b: Buffer, s: number, e: number): void {
    let r = this.row + 1;
    const a = this.attr.reset(b, s, e);
    while (a.next()) {
      if (a.ne - a.ns === 1 && b[a.ns] === 0x72) {
        r = digits(b, a.vs, a.ve) - 1;
        if (r < 0 || r >= MAX_ROW) {
          const text = b.toString('latin1', a.vs, Math.min(a.ve, a.vs + 20));
          if (!/^\d+$/.test(text)) throw new NeedsFallback('row number not a number');
          throw outsideGrid(`${text}:${text}`, this.ctx.sheet);
        }
      }
    }
    this.row = r;
    this.col = -1;
  }

  private openCell(b: Buffer, s: number, e: number, self: boolean): void {
    let row = this.row;
    let col = this.col + 1;
    let type = NUMBER;
    let style = -1;
    const a = this.attr.reset(b, s, e);
    while (a.next()) {
      if (a.ne - a.ns !== 1) continue;
      const n = b[a.ns];
      if (n === 0x72) {
        // r="BC12": column letters, then the 1-based row.
        let p = a.vs;
        let c = 0;
        // Letters in either case: a few writers use `a1`, which Excel, openpyxl and Gnumeric read as A1.
        while (p < a.ve && ((b[p] >= 0x41 && b[p] <= 0x5a) || (b[p] >= 0x61 && b[p] <= 0x7a))) c = Math.min(c * 26 + ((b[p++] & 0xdf) - 0x40), MAX_COL + 1);
        const letters = p - a.vs;
        const r = digits(b, p, a.ve);
        if (letters === 0 || r < 1 || r > MAX_ROW || c > MAX_COL) {
          if (letters === 0 || p === a.ve || !allDigits(b, p, a.ve)) throw new NeedsFallback('cell reference not in A1 style');
          throw outsideGrid(b.toString('latin1', a.vs, Math.min(a.ve, a.vs + 24)), this.ctx.sheet);
        }
        row = r - 1;
        col = c - 1;
      } else if (n === 0x74) type = cellType(b, a.vs, a.ve);
      else if (n === 0x73) style = digits(b, a.vs, a.ve);
    }
    if (row < 0) throw new NeedsFallback('cell outside a row');
    // Cells without a reference, one after another, past the last column.
    if (col >= MAX_COL) throw outsideGrid(`${columnLetter(col)}${row + 1}`, this.ctx.sheet);
    this.col = col;
    this.cellRow = row;
    this.cellCol = col;
    this.type = type;
    this.style = style;
    this.hasFormula = false;
    this.v = null;
    this.inV = false;
    this.inInline = false;
    this.inT = false;
    this.phonetic = 0;
    this.inlineText = '';
    if (this.full) {
      this.inF = false;
      this.formulaText = '';
      this.sharedGroup = -1;
    }
    this.inCell = true;
    if (self) this.finishCell();
  }

  private finishCell(): void {
    this.inCell = false;
    this.inV = false;
    const { grid } = this.ctx;
    const v = this.v;
    let value: Cell = null;
    /** A formula saved without its value. */
    let missing = false;
    let error: string | null = null;
    switch (this.type) {
      case NUMBER: {
        if (v === null || v === '') {
          missing = this.hasFormula;
          break;
        }
        const n = v === READY ? this.ready : parseFloat(v);
        const kind = this.style >= 0 ? (this.ctx.dateKinds[this.style] ?? 0) : 0;
        value = kind === 0 ? n : this.dateCell(n, kind);
        break;
      }
      case SHARED: {
        if (v === null || v === '') {
          missing = this.hasFormula;
          break;
        }
        const text = this.ctx.strings[v === READY ? this.ready : parseInt(v, 10)];
        if (text === undefined) throw damaged('shared string index out of the table');
        value = text === '' ? null : text;
        break;
      }
      case FORMULA_TEXT:
        value = v === null ? null : this.textCell(cellString(v));
        break;
      case INLINE:
        value = this.textCell(cellString(this.inlineText));
        break;
      case BOOLEAN:
        // `<c t="b"/>` holds no value: an empty cell, not FALSE.
        value = v === null || v === '' ? null : v === '1' || v === 'true';
        break;
      case ERROR:
        if (v !== null && v !== '') error = v;
        break;
      case DATE:
        if (v === null || v === '') missing = this.hasFormula;
        else value = this.isoCell(v);
        break;
    }
    if (this.full) return this.fullCell(value, error, missing);
    if (error !== null) grid.error(this.cellRow, this.cellCol, error);
    else if (value !== null) grid.set(this.cellRow, this.cellCol, value);
    else if (missing) grid.noValue++;
  }

  /** A `t="d"` value: a date as written, a duration as a number of days in the cell's format, else the text. */
  private isoCell(text: string): Cell {
    const x = isoCellValue(text.trim());
    if (x === null) return this.textCell(text);
    if (x instanceof Date) return x;
    const kind = this.style >= 0 ? (this.ctx.dateKinds[this.style] ?? 0) : 0;
    return kind === 0 ? x : this.dateCell(x, kind);
  }

  /**
   * A cell of a full read: a FullCell where it has a number format (a number or a date) or a formula, an error
   * cell a CellError. A formula whose value was not saved keeps its formula, still counted in the warning.
   */
  private fullCell(value: Cell, error: string | null, missing: boolean): void {
    // No closure here: one made per cell costs (tsx wraps each in a naming call: 0.4 s on 650,000 cells).
    const { grid } = this.ctx;
    const formula = this.hasFormula ? this.formula() : null;
    if (missing) grid.noValue++;
    let cell: Cell | FullCell | CellError = value;
    if (error !== null) cell = formula === null ? new CellError(error) : new FullCell(new CellError(error), null, formula);
    else {
      const format = (typeof value === 'number' || value instanceof Date) && this.style >= 0 ? (this.ctx.formats?.[this.style] ?? null) : null;
      if (format !== null || formula !== null) cell = new FullCell(value, format, formula);
    }
    if (cell !== null) grid.set(this.cellRow, this.cellCol, cell as Exclude<Cell, null>);
  }
}

/** `A1:B2` (or one cell), 0-based and inclusive; null for anything else. */
function rangeOf(ref: string): CellRange | null {
  const m = /^([A-Za-z]{1,3})(\d{1,7})(?::([A-Za-z]{1,3})(\d{1,7}))?$/.exec(ref);
  if (!m) return null;
  const col = (letters: string) => {
    let c = 0;
    for (const ch of letters.toUpperCase()) c = c * 26 + ch.charCodeAt(0) - 64;
    return c - 1;
  };
  const top = +m[2] - 1;
  const left = col(m[1]);
  const bottom = m[4] ? +m[4] - 1 : top;
  const right = m[3] ? col(m[3]) : left;
  if (top < 0 || bottom < top || right < left || bottom >= MAX_ROW || right >= MAX_COL) return null;
  return { top, left, bottom, right };
}

// Marks `v` as read into `ready`; never a value a cell could hold in that place (it is not a number).
const READY = '\u0000ready';

const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * `-?digits(.digits)?` with at most 15 digits, as parseFloat reads it, or NaN for anything else (the caller
 * then uses parseFloat). Exact: the digits make an integer below 2^53 and 10^k (k ≤ 15) is exact too, so one
 * correctly rounded division gives the same double as parsing the text (Clinger's fast path).
 */
function plainNumber(b: Buffer, s: number, e: number): number {
  let p = s;
  const negative = b[p] === 0x2d;
  if (negative) p++;
  let m = 0;
  let count = 0;
  let scale = -1;
  for (; p < e; p++) {
    const c = b[p];
    if (c >= 0x30 && c <= 0x39) {
      if (++count > 15) return NaN;
      m = m * 10 + (c - 0x30);
      if (scale >= 0) scale++;
    } else if (c === 0x2e && scale < 0) scale = 0;
    else return NaN;
  }
  if (count === 0) return NaN;
  const x = scale > 0 ? m / POW10[scale] : m;
  return negative ? -x : x;
}

/** A non-negative decimal integer, or -1 when the bytes are anything else. */
function allDigits(b: Buffer, s: number, e: number): boolean {
  for (let p = s; p < e; p++) if (b[p] < 0x30 || b[p] > 0x39) return false;
  return true;
}

function digits(b: Buffer, s: number, e: number): number {
  if (s >= e || e - s > 9) return -1;
  let n = 0;
  for (let p = s; p < e; p++) {
    const d = b[p] - 0x30;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

function cellType(b: Buffer, s: number, e: number): number {
  const len = e - s;
  if (len === 1) {
    switch (b[s]) {
      case 0x6e:
        return NUMBER;
      case 0x73:
        return SHARED;
      case 0x62:
        return BOOLEAN;
      case 0x65:
        return ERROR;
      case 0x64:
        return DATE;
    }
  } else if (len === 3 && nameIs(b, s, e, 'str')) return FORMULA_TEXT;
  else if (len === 9 && nameIs(b, s, e, 'inlineStr')) return INLINE;
  throw new NeedsFallback('cell type the fast path does not read');
}

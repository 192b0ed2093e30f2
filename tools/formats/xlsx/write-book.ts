// A workbook copied into .xlsx (tools.md §2.7): the sheets as given, in order, with their visibility, column
// widths, merged ranges, and each cell's number format and formula (FullCell). Where write.ts lays out tables
// (a bold title row, widths from the content), this writes a workbook as it was: no title styling, the widths
// it had. Cells are written as write.ts writes them (inline strings, dates as serials with a date format); a
// number format is a cell format of its own in styles.xml, made on first use; a formula is written with its
// cached value. Sheet names are made valid for Excel (write.ts sheetNames): the caller sees the names given
// back. Excel opens no workbook whose every sheet is hidden, so the caller makes one visible first.
import { rowsOf } from '../batch.ts';
import { ChangeLog, type Changed } from '../changes.ts';
import { dateToSerial } from '../dates.ts';
import { formatLimit } from '../errors.ts';
import { BUILTIN_FORMATS } from '../number-format.ts';
import { CellError, columnLetter, FullCell, type AnyCell, type BookIn, type CellRange, type FormatContext, type Removed, type TablePreview } from '../model.ts';
import { FirstRows } from '../batch.ts';
import { zipBuilder } from '../zip/write.ts';
import { XmlCharFilter } from '../markup.ts';
import type { CharFilter } from '../removed.ts';
import { cellText, cellXml, DATE_FORMATS, dateStyle, LEVEL, sheetNames, xmlText, XLSX_MAX_CELL_CHARS, XLSX_MAX_COLUMNS, XLSX_MAX_ROWS } from './write.ts';

type Localizer = Pick<FormatContext, 't' | 'name'>;

export interface XlsxBookWritten {
  bytes: Uint8Array;
  /** The first sheet's first rows. */
  preview: TablePreview | null;
  /** Each sheet's name as written and the rows it holds. */
  sheets: { name: string; rows: number }[];
  changed: Changed[];
  /** Characters XML cannot hold, left out (the kernel warns once). */
  removed?: Removed | null;
}

/** Built-in number format ids by their code: a format Excel knows is referred to by its id. */
const BUILTIN_IDS = new Map(Object.entries(BUILTIN_FORMATS).map(([id, code]) => [code, Number(id)]));
/** Cell formats of styles.xml before the ones this writer adds: default, bold, the dates of write.ts. */
const FIRST_CUSTOM_XF = 2 + DATE_FORMATS.length;
const FIRST_CUSTOM_FMT = 164 + DATE_FORMATS.length;

class Styles {
  private readonly byCode = new Map<string, number>();
  readonly codes: string[] = [];
  xf(code: string): number {
    let xf = this.byCode.get(code);
    if (xf === undefined) {
      xf = FIRST_CUSTOM_XF + this.codes.length;
      this.byCode.set(code, xf);
      this.codes.push(code);
    }
    return xf;
  }
  xml(): string {
    const custom = this.codes.map((code, i) => ({ code, id: BUILTIN_IDS.get(code) ?? FIRST_CUSTOM_FMT + i }));
    const own = custom.filter((f) => f.id >= 164);
    const fmts = [...DATE_FORMATS.map((f, i) => `<numFmt numFmtId="${164 + i}" formatCode="${xmlText(f)}"/>`), ...own.map((f) => `<numFmt numFmtId="${f.id}" formatCode="${xmlText(f.code)}"/>`)];
    const xf = (id: number) => `<xf numFmtId="${id}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`;
    const xfs = [
      '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>',
      '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>',
      ...DATE_FORMATS.map((_, i) => xf(164 + i)),
      ...custom.map((f) => xf(f.id)),
    ];
    return (
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
      '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
      `<numFmts count="${fmts.length}">${fmts.join('')}</numFmts>` +
      '<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>' +
      '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
      '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
      '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
      `<cellXfs count="${xfs.length}">${xfs.join('')}</cellXfs>` +
      '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'
    );
  }
}

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

export async function writeXlsxBook(book: BookIn, ctx: Localizer): Promise<XlsxBookWritten> {
  const zip = zipBuilder();
  const styles = new Styles();
  const changes = new ChangeLog();
  // What XML cannot hold is removed from every cell, counted for the one warning (tools.md §2.6).
  const chars = new XmlCharFilter();
  const done: { name: string; state: string; rows: number }[] = [];
  const first = new FirstRows();
  let preview: TablePreview | null = null;
  const limit = (unit: 'rows' | 'columns' | 'characters', max: number, found: number, where: { sheet: string; row?: number; column?: number }) => formatLimit('xlsx', unit, max, found, where, ctx.t);
  for await (const sheet of book.sheets) {
    const i = done.length;
    chars.table = sheet.name;
    const entry = zip.open(`xl/worksheets/sheet${i + 1}.xml`, LEVEL, true);
    let r = 0;
    let width = 0;
    let out = '';
    const letters: string[] = [];
    for await (const batch of sheet.rows) {
      const rows = rowsOf(batch);
      if (i === 0) first.take(rows);
      for (const row of rows) {
        if (r >= XLSX_MAX_ROWS) {
          if (row.some((c) => c !== null && c !== '')) throw limit('rows', XLSX_MAX_ROWS, r + 1, { sheet: sheet.name, row: r + 1 });
          r++;
          continue;
        }
        const n = String(++r);
        let cells = '';
        for (let c = 0; c < row.length; c++) {
          const v = row[c];
          if (v === null || v === '' || v === undefined) continue;
          if (c >= XLSX_MAX_COLUMNS) throw limit('columns', XLSX_MAX_COLUMNS, row.length, { sheet: sheet.name, row: r, column: c + 1 });
          while (letters.length <= c) letters.push(columnLetter(letters.length));
          if (c + 1 > width) width = c + 1;
          const text = v instanceof FullCell ? v.value : v;
          if (text instanceof Date && dateToSerial(text) === null) changes.note('date_as_text', () => ({ sheet: sheet.name, row: r, column: c + 1 }));
          if (typeof text === 'string' && text.length > XLSX_MAX_CELL_CHARS) throw limit('characters', XLSX_MAX_CELL_CHARS, text.length, { sheet: sheet.name, row: r, column: c + 1 });
          cells += v instanceof FullCell ? fullXml(v, letters[c] + n, styles, chars) : cellXml(v, letters[c] + n, false, chars);
        }
        if (cells) out += `<row r="${n}">${cells}</row>`;
        if (out.length > 65_536) {
          entry.write(out);
          out = '';
        }
      }
    }
    const rowCount = Math.min(r, XLSX_MAX_ROWS);
    entry.write(out + '</sheetData>' + mergesXml(sheet.merges ?? []) + '</worksheet>');
    const visibility = sheet.visibility ?? 'visible';
    const active = visibility === 'visible' && !done.some((d) => d.state === '');
    entry.end(sheetHead(rowCount, width, sheet.columnWidths ?? [], active));
    if (i === 0) preview = first.preview(sheet.name, null, Math.max(width, first.rows.reduce((w, x) => Math.max(w, x.length), 0)), rowCount);
    done.push({ name: sheet.name, state: visibility === 'visible' ? '' : visibility, rows: rowCount });
  }
  if (done.length === 0) throw new RangeError('a workbook needs a sheet');
  const activeTab = done.findIndex((d) => d.state === '');
  if (activeTab < 0) throw new RangeError('every sheet is hidden; a workbook shows at least one (the caller shows the first)');
  const names = sheetNames(
    done.map((d) => d.name),
    ctx.name('sheet'),
  );
  for (const [path, xml] of Object.entries(packageXml(names, done, activeTab, styles))) zip.deflatedText(path, LEVEL, xml);
  return { bytes: zip.finish(), preview, removed: chars.removed(), sheets: done.map((d, i) => ({ name: names[i], rows: d.rows })), changed: changes.list() };
}

/** A cell with its number format (a cell format of styles.xml) and its formula with the cached value. */
function fullXml(c: FullCell, ref: string, styles: Styles, chars: CharFilter): string {
  const value = c.value;
  const f = c.formula !== null ? `<f>${xmlText(c.formula)}</f>` : '';
  if (value instanceof Date) {
    const serial = dateToSerial(value);
    if (serial === null) return cellXml(value, ref, false, chars);
    const s = c.format !== null ? styles.xf(c.format) : dateStyle(value);
    return `<c r="${ref}" s="${s}">${f}<v>${serial}</v></c>`;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return `<c r="${ref}"${c.format !== null ? ` s="${styles.xf(c.format)}"` : ''}>${f}<v>${value}</v></c>`;
  if (f === '') return cellXml(value, ref, false, chars);
  if (value === null || value === '') return `<c r="${ref}">${f}</c>`;
  if (typeof value === 'string') return `<c r="${ref}" t="str">${f}<v>${cellText(value, chars, ref)}</v></c>`;
  if (typeof value === 'boolean') return `<c r="${ref}" t="b">${f}<v>${value ? 1 : 0}</v></c>`;
  if (value instanceof CellError) return `<c r="${ref}" t="e">${f}<v>${cellText(value.text, chars, ref)}</v></c>`;
  return cellXml(String(value), ref, false, chars);
}

function sheetHead(height: number, width: number, widths: readonly (number | null | undefined)[], active: boolean): string {
  const ref = height > 0 && width > 0 ? `A1:${columnLetter(width - 1)}${height}` : 'A1';
  let head = `${HEAD}<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><dimension ref="${ref}"/>`;
  head += `<sheetViews><sheetView workbookViewId="0"${active ? ' tabSelected="1"' : ''}/></sheetViews>`;
  let cols = '';
  for (let c = 0; c < Math.min(widths.length, XLSX_MAX_COLUMNS); ) {
    const w = widths[c];
    let end = c;
    while (end + 1 < Math.min(widths.length, XLSX_MAX_COLUMNS) && widths[end + 1] === w) end++;
    if (typeof w === 'number' && Number.isFinite(w) && w >= 0) cols += `<col min="${c + 1}" max="${end + 1}" width="${Math.min(w, 255)}" customWidth="1"/>`;
    c = end + 1;
  }
  return head + (cols ? `<cols>${cols}</cols>` : '') + '<sheetData>';
}

function mergesXml(merges: readonly CellRange[]): string {
  const real = merges.filter((m) => m.bottom > m.top || m.right > m.left);
  if (real.length === 0) return '';
  const ref = (m: CellRange) => `${columnLetter(m.left)}${m.top + 1}:${columnLetter(m.right)}${m.bottom + 1}`;
  return `<mergeCells count="${real.length}">${real.map((m) => `<mergeCell ref="${ref(m)}"/>`).join('')}</mergeCells>`;
}

function packageXml(names: string[], sheets: { state: string }[], activeTab: number, styles: Styles): Record<string, string> {
  const ids = names.map((_, i) => i + 1);
  return {
    '[Content_Types].xml':
      HEAD +
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
      '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
      ids.map((i) => `<Override PartName="/xl/worksheets/sheet${i}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('') +
      '</Types>',
    '_rels/.rels': `${HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml':
      HEAD +
      `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL}">` +
      `<workbookPr/><bookViews><workbookView${activeTab > 0 ? ` activeTab="${activeTab}"` : ''}/></bookViews><sheets>` +
      names.map((n, i) => `<sheet name="${xmlText(n)}" sheetId="${i + 1}"${sheets[i].state ? ` state="${sheets[i].state}"` : ''} r:id="rId${i + 1}"/>`).join('') +
      '</sheets></workbook>',
    'xl/_rels/workbook.xml.rels':
      HEAD +
      '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      ids.map((i) => `<Relationship Id="rId${i}" Type="${REL}/worksheet" Target="worksheets/sheet${i}.xml"/>`).join('') +
      `<Relationship Id="rId${names.length + 1}" Type="${REL}/styles" Target="styles.xml"/></Relationships>`,
    'xl/styles.xml': styles.xml(),
  };
}

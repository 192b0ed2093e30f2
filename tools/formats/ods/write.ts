// An OpenDocument spreadsheet (.ods, ODF 1.3) writer: content.xml streamed into the ZIP as rows come.
//
// The package: `mimetype` first, stored, so that the file names its type at a fixed offset; the manifest;
// styles.xml with the default cell style; content.xml. The automatic styles (column widths, hidden tables,
// number formats) depend on every sheet and cell, so they are the head of content.xml that the ZIP entry puts
// in front once the tables are written (tools/core/zip-entry.ts, `headLater`).
//
// Every cell carries its text in <text:p> as well as its value (the machine form: `1234.5`, `2024-01-15`,
// `TRUE`), as LibreOffice writes them: some readers (SheetJS among them) take a cell without text for empty.
// Cells: text → string (runs of spaces as <text:s>, tabs as <text:tab/>, line breaks as paragraphs; a CR or
// CRLF is a break too); numbers → float; booleans → boolean; dates → date (a Date on 1899-12-30, Excel's day 0,
// is a time of day); a FullCell number or date → float, percentage, date or time with its data style (number-styles.ts);
// an error → the OpenFormula formula that gives it, with its text cached, as LibreOffice writes error cells.
// Runs of empty cells and rows are `number-columns-repeated` / `number-rows-repeated`; merged ranges are a
// spanned cell and covered cells (a value under a merge is kept in its covered cell). What ODS cannot hold is
// counted in the change log: characters XML cannot carry (removed), a non-finite number (as text), a format
// without a translation (the value without it). Limits: 1,048,576 rows, 16,384 columns, 32,767 characters.
import { Zip } from 'fflate';
import { joinBytes } from '../util/bytes.ts';
import { ZlibEntry } from '../zip/write.ts';
import { isTimeOnly } from '../dates.ts';
import { rowsOf } from '../batch.ts';
import { ChangeLog, type Changed, type Place } from '../changes.ts';
import { formatLimit } from '../errors.ts';
import { CellError, FullCell, type AnyCell, type BookIn, type CellRange, type SheetIn } from '../model.ts';
import { withMimetypeFirst } from './mimetype-first.ts';
import { dataStyleOf, type DataStyle } from './number-styles.ts';

export const MAX_ROWS = 1_048_576;
export const MAX_COLUMNS = 16_384;
export const MAX_CELL_CHARS = 32_767;
/** Inches of column width per character of Excel's width, as LibreOffice converts them. */
export const INCHES_PER_CHAR = 0.077;

const MIMETYPE = 'application/vnd.oasis.opendocument.spreadsheet';
const NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ' +
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
  'xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" ' +
  'xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" xmlns:calcext="urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0" office:version="1.3"';
const MANIFEST =
  '<?xml version="1.0" encoding="UTF-8"?>\n<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">' +
  `<manifest:file-entry manifest:full-path="/" manifest:version="1.3" manifest:media-type="${MIMETYPE}"/>` +
  '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>' +
  '<manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>' +
  '<manifest:file-entry manifest:full-path="settings.xml" manifest:media-type="text/xml"/></manifest:manifest>';
const STYLES =
  `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-styles ${NS}><office:styles>` +
  '<style:default-style style:family="table-cell"><style:paragraph-properties style:tab-stop-distance="0.5in"/></style:default-style>' +
  '<style:style style:name="Default" style:family="table-cell"/></office:styles></office:document-styles>';

/** The data styles of Dates without a format of their own, as the xlsx writer formats them. */
/** The cell style key of booleans (no format code can contain a NUL). */
const BOOLEAN_KEY = '\u0000boolean';

const DATE_CODES = { date: 'yyyy-mm-dd', dateTime: 'yyyy-mm-dd hh:mm:ss', dateTimeMs: 'yyyy-mm-dd hh:mm:ss.000', time: 'hh:mm:ss', timeMs: 'hh:mm:ss.000' };

/** Characters XML 1.0 cannot hold: controls other than tab and line ends, U+FFFE/U+FFFF, lone surrogates. */
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const TEXT_SPECIAL = /[&<>\t\n\r  ]|[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff\ud800-\udfff]/;
const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Text written before it goes to the ZIP entry: pieces of this size keep encoding cheap and memory flat. */
const PIECE_CHARS = 64 * 1024;

export interface OdsWritten {
  bytes: Uint8Array;
  sheets: { name: string; rows: number }[];
  changed: Changed[];
}

export async function writeOds(book: BookIn, o: { t?: (key: string) => string } = {}): Promise<OdsWritten> {
  const chunks: Uint8Array[] = [];
  const zip = new Zip((err, data) => {
    if (err) throw err;
    chunks.push(data);
  });
  const content = new ZlibEntry('content.xml', 4, { add: (e) => zip.add(e), headLater: true });
  const w = new ContentWriter((s) => content.write(s), o.t);
  for await (const sheet of book.sheets) {
    w.startTable(sheet.name, (sheet.visibility ?? 'visible') !== 'visible', sheet.columnWidths ?? [], sheet.merges ?? []);
    for await (const batch of sheet.rows) for (const row of rowsOf(batch)) w.row(row);
    w.endTable();
  }
  if (w.sheets.length === 0) throw new RangeError('a workbook needs a sheet');
  w.flush('</office:spreadsheet></office:body></office:document-content>');
  content.end(w.head());
  // The active sheet is the first visible one: LibreOffice would otherwise show (and unhide) the first.
  const active = w.sheets.find((s) => !s.hidden) ?? w.sheets[0];
  for (const [path, text] of [
    ['styles.xml', STYLES],
    ['settings.xml', settings(active.name)],
    ['META-INF/manifest.xml', MANIFEST],
  ]) {
    // Small parts, deflated whole: at level 1 whatever is asked (zip/write.ts, FAST_WHOLE_BYTES).
    const e = new ZlibEntry(path, 1, { add: (entry) => zip.add(entry) });
    e.write(text);
    e.end();
  }
  zip.end();
  return { bytes: withMimetypeFirst(MIMETYPE, joinBytes(chunks)), sheets: w.sheets.map(({ name, rows }) => ({ name, rows })), changed: w.changes.list() };
}

function settings(activeTable: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<office:document-settings xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
    'xmlns:config="urn:oasis:names:tc:opendocument:xmlns:config:1.0" office:version="1.3"><office:settings>' +
    '<config:config-item-set config:name="ooo:view-settings"><config:config-item-map-indexed config:name="Views"><config:config-item-map-entry>' +
    '<config:config-item config:name="ViewId" config:type="string">view1</config:config-item>' +
    `<config:config-item config:name="ActiveTable" config:type="string">${escapeXml(clean(activeTable))}</config:config-item>` +
    '</config:config-item-map-entry></config:config-item-map-indexed></config:config-item-set></office:settings></office:document-settings>'
  );
}

/** A merge active on the current row: its columns, and the row of its anchor. */
interface Span {
  m: CellRange;
}

class ContentWriter {
  readonly changes = new ChangeLog();
  readonly sheets: { name: string; rows: number; hidden: boolean }[] = [];
  private out = '';
  private readonly columnStyles = new Map<string, string>();
  private readonly tableStyles: string[] = [];
  /** Cell style name by format code, and the data styles behind them. */
  private readonly cellStyles = new Map<string, string>();
  private readonly parsed = new Map<string, DataStyle | null>();
  private readonly dataStyles: { name: string; style: DataStyle }[] = [];
  private name = '';
  private hidden = false;
  private next = 0;
  private lastRow = -1;
  /** Empty rows waiting to be written as one repeated row (they may turn out to be trailing). */
  private emptyRows = 0;
  private merges: CellRange[] = [];
  private nextMerge = 0;
  private active: Span[] = [];
  private mergeBottom = -1;

  constructor(
    private readonly push: (s: string) => void,
    private readonly t?: (key: string) => string,
  ) {}

  flush(s = ''): void {
    this.out += s;
    this.push(this.out);
    this.out = '';
  }

  private write(s: string): void {
    this.out += s;
    if (this.out.length >= PIECE_CHARS) this.flush();
  }

  startTable(name: string, hidden: boolean, widths: NonNullable<SheetIn['columnWidths']>, merges: readonly CellRange[]): void {
    this.name = name;
    this.hidden = hidden;
    this.next = 0;
    this.lastRow = -1;
    this.emptyRows = 0;
    this.merges = merges.filter((m) => m.bottom > m.top || m.right > m.left).sort((a, b) => a.top - b.top || a.left - b.left);
    this.nextMerge = 0;
    this.active = [];
    this.mergeBottom = this.merges.reduce((n, m) => Math.max(n, m.bottom), -1);
    const ta = `ta${hidden ? 2 : 1}`;
    if (!this.tableStyles.includes(ta)) this.tableStyles.push(ta);
    this.write(`<table:table table:name="${escapeXml(clean(name))}" table:style-name="${ta}">`);
    let columns = '';
    for (let c = 0; c < widths.length; ) {
      let end = c;
      while (end + 1 < widths.length && widths[end + 1] === widths[c]) end++;
      const w = widths[c];
      const n = end - c + 1;
      const repeat = n > 1 ? ` table:number-columns-repeated="${n}"` : '';
      const style = typeof w === 'number' && Number.isFinite(w) && w >= 0 ? ` table:style-name="${this.columnStyle(w)}"` : '';
      columns += `<table:table-column${style}${repeat}/>`;
      c = end + 1;
    }
    this.write(columns || '<table:table-column/>');
  }

  private columnStyle(width: number): string {
    const inches = `${(width * INCHES_PER_CHAR).toFixed(4)}in`;
    let name = this.columnStyles.get(inches);
    if (!name) this.columnStyles.set(inches, (name = `co${this.columnStyles.size + 1}`));
    return name;
  }

  private place(r: number, c: number): () => Place {
    return () => ({ sheet: this.name, row: r + 1, column: c + 1 });
  }

  row(cells: readonly AnyCell[]): void {
    const r = this.next++;
    if (r >= MAX_ROWS) {
      if (cells.some((v) => !isEmpty(v))) this.tooMany(r, cells);
      return;
    }
    while (this.nextMerge < this.merges.length && this.merges[this.nextMerge].top === r) this.active.push({ m: this.merges[this.nextMerge++] });
    if (this.active.length > 0) this.active = this.active.filter((s) => s.m.bottom >= r);
    let end = cells.length;
    while (end > 0 && isEmpty(cells[end - 1])) end--;
    if (end === 0 && this.active.length === 0) {
      this.emptyRows++;
      return;
    }
    if (end > MAX_COLUMNS) this.tooMany(r, cells);
    this.writeEmptyRows();
    this.lastRow = r;
    let xml = '<table:table-row>';
    let gap = 0;
    const width = this.active.length > 0 ? Math.max(end, ...this.active.map((s) => Math.min(s.m.right + 1, MAX_COLUMNS))) : end;
    for (let c = 0; c < width; c++) {
      const v = c < end ? cells[c] : null;
      const span = this.active.length > 0 ? this.active.find((s) => c >= s.m.left && c <= s.m.right) : undefined;
      if (!span && isEmpty(v)) {
        gap++;
        continue;
      }
      if (gap > 0) {
        xml += gap > 1 ? `<table:table-cell table:number-columns-repeated="${gap}"/>` : '<table:table-cell/>';
        gap = 0;
      }
      if (span && !(span.m.top === r && span.m.left === c)) {
        xml += this.cell(r, c, v, 'table:covered-table-cell', '');
        continue;
      }
      const spanned = span ? ` table:number-columns-spanned="${span.m.right - span.m.left + 1}" table:number-rows-spanned="${span.m.bottom - span.m.top + 1}"` : '';
      xml += this.cell(r, c, v, 'table:table-cell', spanned);
    }
    this.write(`${xml}</table:table-row>`);
  }

  private tooMany(r: number, cells: readonly AnyCell[]): never {
    let end = cells.length;
    while (end > 0 && isEmpty(cells[end - 1])) end--;
    if (end > MAX_COLUMNS) {
      throw formatLimit('ods', 'columns', MAX_COLUMNS, end, { sheet: this.name, row: r + 1, column: end }, this.t);
    }
    throw formatLimit('ods', 'rows', MAX_ROWS, r + 1, { sheet: this.name, row: r + 1 }, this.t);
  }

  private writeEmptyRows(): void {
    if (this.emptyRows === 0) return;
    const n = this.emptyRows;
    this.emptyRows = 0;
    this.write(`<table:table-row${n > 1 ? ` table:number-rows-repeated="${n}"` : ''}><table:table-cell/></table:table-row>`);
  }

  private cell(r: number, c: number, v: AnyCell, element: string, extra: string): string {
    if (isEmpty(v)) return `<${element}${extra}/>`;
    if (typeof v === 'string') return this.text(r, c, v, element, extra);
    if (typeof v === 'number') return this.number(r, c, v, element, extra, '');
    if (typeof v === 'boolean') return `<${element}${extra}${this.style(BOOLEAN_KEY)} office:value-type="boolean" office:boolean-value="${v}"><text:p>${v ? 'TRUE' : 'FALSE'}</text:p></${element}>`;
    if (v instanceof Date) return this.date(r, c, v, null, element, extra);
    if (v instanceof CellError) {
      const formula = ERROR_FORMULAS[v.text];
      if (!formula) {
        this.changes.note('error_as_text', this.place(r, c));
        return this.text(r, c, v.text, element, extra);
      }
      return `<${element}${extra} table:formula="${escapeXml(formula)}" office:value-type="string" office:string-value="" calcext:value-type="error"><text:p>${escapeXml(v.text)}</text:p></${element}>`;
    }
    if (v instanceof FullCell) {
      // Formulas are not translated to OpenFormula: the cached value stands, counted.
      if (v.formula !== null) this.changes.note('formula_as_value', this.place(r, c));
      if (v.format === null || !(typeof v.value === 'number' || v.value instanceof Date)) return this.cell(r, c, v.value, element, extra);
      const fc = v as FullCell & { value: number | Date; format: string };
      return this.formatted(r, c, fc.value, fc.format, element, extra);
    }
    throw new TypeError(`not a cell value at row ${r + 1}, column ${c + 1}`);
  }

  private formatted(r: number, c: number, value: number | Date, format: string, element: string, extra: string): string {
    const ds = this.dataStyle(format);
    if (value instanceof Date) {
      if (!ds || (ds.kind !== 'date' && ds.kind !== 'time')) {
        if (format !== 'General') this.changes.note('format_dropped', this.place(r, c));
        return this.date(r, c, value, null, element, extra);
      }
      return this.date(r, c, value, format, element, extra);
    }
    if (!ds || ds.kind === 'date' || ds.kind === 'time') {
      if (format !== 'General' && format !== '@') this.changes.note('format_dropped', this.place(r, c));
      return this.number(r, c, value, element, extra, '');
    }
    return this.number(r, c, value, element, extra, format, ds.kind === 'percentage');
  }

  private number(r: number, c: number, n: number, element: string, extra: string, format: string, percent = false): string {
    if (!Number.isFinite(n)) {
      this.changes.note('number_as_text', this.place(r, c));
      return this.text(r, c, String(n), element, extra);
    }
    return `<${element}${extra}${format ? this.style(format) : ''} office:value-type="${percent ? 'percentage' : 'float'}" office:value="${n}"><text:p>${n}</text:p></${element}>`;
  }

  private date(r: number, c: number, d: Date, format: string | null, element: string, extra: string): string {
    const t = d.getTime();
    const year = d.getUTCFullYear();
    if (!Number.isFinite(t) || year < 1 || year > 9999) {
      this.changes.note(Number.isFinite(t) ? 'date_as_text' : 'invalid_date', this.place(r, c));
      return this.text(r, c, Number.isFinite(t) ? d.toISOString() : '', element, extra);
    }
    const ms = d.getUTCMilliseconds();
    const iso = d.toISOString();
    if (isTimeOnly(d) && (format === null || this.dataStyle(format)?.kind === 'time')) {
      const value = `PT${iso.slice(11, 13)}H${iso.slice(14, 16)}M${iso.slice(17, ms ? 23 : 19)}S`;
      return `<${element}${extra}${this.style(format ?? (ms ? DATE_CODES.timeMs : DATE_CODES.time))} office:value-type="time" office:time-value="${value}"><text:p>${iso.slice(11, ms ? 23 : 19)}</text:p></${element}>`;
    }
    const midnight = t % 86_400_000 === 0;
    const value = midnight ? iso.slice(0, 10) : iso.slice(0, ms ? 23 : 19);
    const code = format ?? (midnight ? DATE_CODES.date : ms ? DATE_CODES.dateTimeMs : DATE_CODES.dateTime);
    return `<${element}${extra}${this.style(code)} office:value-type="date" office:date-value="${value}"><text:p>${value.replace('T', ' ')}</text:p></${element}>`;
  }

  private text(r: number, c: number, s: string, element: string, extra: string): string {
    if (s.length > MAX_CELL_CHARS) {
      throw formatLimit('ods', 'characters', MAX_CELL_CHARS, s.length, this.place(r, c)(), this.t);
    }
    if (!TEXT_SPECIAL.test(s)) return `<${element}${extra} office:value-type="string"><text:p>${s}</text:p></${element}>`;
    const kept = s.replace(NOT_XML, '');
    if (kept.length !== s.length) this.changes.note('xml_characters_removed', this.place(r, c));
    if (/\r(?!\n)/.test(kept)) this.changes.note('carriage_return_as_line_break', this.place(r, c));
    const paragraphs = kept.split(/\r\n|\r|\n/).map((p) => `<text:p>${paragraph(p)}</text:p>`);
    return `<${element}${extra} office:value-type="string">${paragraphs.join('')}</${element}>`;
  }

  /** A format code's data style, parsed once per code: a workbook has a few formats and many cells (a parse per cell was 0.3 s of 100,000 rows). */
  private dataStyle(code: string): DataStyle | null {
    let ds = this.parsed.get(code);
    if (ds === undefined) this.parsed.set(code, (ds = dataStyleOf(code)));
    return ds;
  }

  /** ` table:style-name` of the cell style for a format code; the data style is made on first use. */
  private style(code: string): string {
    let name = this.cellStyles.get(code);
    if (!name) {
      name = `ce${this.cellStyles.size + 1}`;
      this.cellStyles.set(code, name);
      const style: DataStyle = code === BOOLEAN_KEY ? { element: 'number:number-style', kind: 'number', children: '' } : dataStyleOf(code)!;
      this.dataStyles.push({ name: `N${this.dataStyles.length + 1}`, style: code === BOOLEAN_KEY ? { ...style, element: 'number:boolean-style' as DataStyle['element'], children: '<number:boolean/>' } : style });
    }
    return ` table:style-name="${name}"`;
  }

  endTable(): void {
    // Rows that only merges reach past the last row with cells.
    while (this.next <= this.mergeBottom && this.next < MAX_ROWS) this.row([]);
    if (this.lastRow < 0) this.write('<table:table-row><table:table-cell/></table:table-row>');
    this.emptyRows = 0;
    this.write('</table:table>');
    this.sheets.push({ name: this.name, rows: this.lastRow + 1, hidden: this.hidden });
  }

  /** The start of content.xml up to the first table: every automatic style the tables use. */
  head(): string {
    let s = `<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content ${NS}><office:automatic-styles>`;
    for (const [inches, name] of this.columnStyles) s += `<style:style style:name="${name}" style:family="table-column"><style:table-column-properties style:column-width="${inches}"/></style:style>`;
    for (const ta of this.tableStyles) s += `<style:style style:name="${ta}" style:family="table"><style:table-properties table:display="${ta === 'ta1'}"/></style:style>`;
    this.dataStyles.forEach(({ name, style }) => (s += `<${style.element} style:name="${name}">${style.children}</${style.element}>`));
    let i = 0;
    for (const ce of this.cellStyles.values()) s += `<style:style style:name="${ce}" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="N${++i}"/>`;
    return `${s}</office:automatic-styles><office:body><office:spreadsheet>`;
  }
}

/** The OpenFormula that gives each error, as LibreOffice and Gnumeric evaluate it. */
const ERROR_FORMULAS: Readonly<Record<string, string>> = {
  '#N/A': 'of:=NA()',
  '#DIV/0!': 'of:=1/0',
  '#VALUE!': 'of:="a"+1',
  '#REF!': 'of:=#REF!',
  '#NAME?': 'of:=#NAME?',
  '#NUM!': 'of:=#NUM!',
  '#NULL!': 'of:=#NULL!',
};

/** One paragraph's text: spaces that XML or ODF would collapse as <text:s>, tabs as <text:tab/>. */
function paragraph(p: string): string {
  return escapeXml(p)
    .replace(/\t/g, '<text:tab/>')
    .replace(/ {2,}|^ | $/g, (run, at: number) =>
      at === 0 || run.length === 1 ? `<text:s${run.length > 1 ? ` text:c="${run.length}"` : ''}/>` : ` <text:s${run.length > 2 ? ` text:c="${run.length - 1}"` : ''}/>`,
    );
}

function isEmpty(v: AnyCell | undefined): v is null | undefined | '' {
  return v === null || v === undefined || v === '';
}

/** A sheet name without what XML cannot hold. */
function clean(s: string): string {
  return s.replace(NOT_XML, '');
}

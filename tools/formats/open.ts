// openWorkbook: the one way into the format library. The reader is chosen from the content (sniff.ts); the
// name only decides among the readings its extension allows, since the kernel admitted the file by it:
//
//   extension         content read as
//   .xlsx .xlsm       ZIP → xlsx (an ods too); OLE → xls (BIFF8 saved under the wrong name) or a password;
//   .xltx .xltm       macro-enabled workbooks and templates are xlsx packages: macros are neither run nor kept
//   .xls              OLE or BIFF → xls; ZIP → xlsx; HTML → its tables; SpreadsheetML 2003; tab-separated text
//                     (web applications export all of these as "Excel"; tools.md §2.2)
//   .ods              ZIP → ods (ods/book.ts)
//   .csv .tsv .txt    text (any encoding; any delimiter, a tab for .tsv); anything else → binary
//   .json             JSON
//   .xml              XML (one table: xml/read.ts), SpreadsheetML 2003 → its sheets; a package or binary → refused
//   .html .htm        HTML (one sheet per table); a package or binary → refused
//   .md .markdown     the GFM tables of a Markdown document
//
// Any other pairing is `unreadable`. When the content is not what the extension says, an info message says
// what it was read as. Fast readers hand what they do not fully understand to SheetJS (fallback.ts).
//
// `cells: 'full'` (the tools that copy workbooks, tools.md §2.7): number formats, formulas, error cells, merged
// ranges and column widths are filled by the xlsx, xls and ods readers themselves, except the formulas of .xls
// (a sheet with formulas goes to SheetJS, which writes their text). A package the xlsx reader hands over goes
// to SheetJS full.
import { Book, type BookReader, type ReadOptions } from './book.ts';
import { CsvReader } from './csv/book.ts';
import { baseNameOf, detectDelimiterOf, decodeText } from './csv/read.ts';
import { FormatError } from './errors.ts';
import { SheetJsReader } from './fallback.ts';
import { HtmlReader } from './html/read.ts';
import { JsonReader } from './json/read.ts';
import { XmlReader, type XmlReadOptions } from './xml/read.ts';
import { MarkdownReader } from './markdown/read.ts';
import { OdsReader } from './ods/book.ts';
import type { AnyCell, Cell, ContentFormat, FormatContext, SourceFile, Workbook } from './model.ts';
import { sniff, type Content } from './sniff.ts';
import { SqlReader, type SqlDialectOption } from './sql/read.ts';
import { VcardReader } from './vcard/read.ts';
import { XlsReader } from './xls/read.ts';
import { XlsxReader } from './xlsx/read.ts';

export interface OpenOptions {
  /** The first row holds the titles. */
  hasHeader: boolean;
  /** Text formats (CSV, HTML): numbers, dates and booleans typed by csv-to-excel's rules; else every value is its text. Default true. */
  detectTypes?: boolean;
  /** CSV: one character; detected when left out. */
  delimiter?: string;
  /** Sheets the caller reads: `first` lets a reader that parses whole workbooks (SheetJS) parse only that one. Default `all`. */
  sheets?: 'first' | 'all';
  /** XML: the row element and whether attributes are columns. */
  xml?: XmlReadOptions;
  /** Markdown: cells as written, only escaped pipes and `<br>` undone (markdown-to-excel's keep-markdown). */
  keepMarkdown?: boolean;
  /** SQL: the dialect whose quoting the script uses; `auto` decides from the script. Default auto. */
  sqlDialect?: SqlDialectOption;
  /** Tests: read with SheetJS, the reader of last resort, to compare the fast readers with it. */
  reader?: 'sheetjs';
  /** `full`: cells keep their number formats and formulas (FullCell), errors stay CellErrors, tables their layout. */
  cells?: 'values' | 'full';
}

const extensionOf = (name: string) => {
  const base = name.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
};

const WORKBOOKS = new Set(['xlsx', 'xlsm', 'xltx', 'xltm', 'xls', 'ods']);
const TEXT = new Set(['csv', 'tsv', 'txt']);
/** Extensions of packages that may hold a VBA project: it is never run, and no result carries it. */
const MACROS = new Set(['xlsm', 'xltm']);

/** Opens a file as a workbook; its sheets are read as they are asked for. */
export function openWorkbook(file: SourceFile, ctx: FormatContext, o: OpenOptions & { cells: 'full' }): Workbook<AnyCell>;
export function openWorkbook(file: SourceFile, ctx: FormatContext, o: OpenOptions): Workbook<Cell>;
export function openWorkbook(file: SourceFile, ctx: FormatContext, o: OpenOptions): Workbook<Cell> {
  const full = o.cells === 'full';
  const ext = extensionOf(file.name);
  const read: ReadOptions = { hasHeader: o.hasHeader, detectTypes: o.detectTypes ?? true, delimiter: o.delimiter };
  const sheets = o.sheets ?? 'all';
  const open = (reader: () => BookReader, fallback?: ContentFormat) => Book.open(file, ctx, read, sheets, reader, fallback ? () => new SheetJsReader(file.bytes, fallback, sheets, full) : null);
  const sheetJs = (format: ContentFormat, bytes = file.bytes) => open(() => new SheetJsReader(bytes, format, sheets, full));
  let csv: CsvReader | null = null;
  // A text format's reader takes any text, and refuses whatever is not (a ZIP named .csv is binary).
  if (TEXT.has(ext) && o.reader === undefined) return open(() => new CsvReader(file, o.delimiter ?? (ext === 'tsv' ? '\t' : undefined)));
  if (ext === 'json' && o.reader === undefined) return open(() => new JsonReader(file));
  if (ext === 'md' || ext === 'markdown') return open(() => new MarkdownReader(file, ctx, { keep: o.keepMarkdown ?? false }));
  if ((ext === 'vcf' || ext === 'vcard') && o.reader === undefined) return open(() => new VcardReader(file, ctx));
  if (ext === 'sql' && o.reader === undefined) return open(() => new SqlReader(file, ctx, o.sqlDialect ?? 'auto'));
  const content = sniff(file.bytes);
  if ((ext === 'xml' || ext === 'html' || ext === 'htm') && o.reader === undefined) {
    // Markup readers take text in any encoding; a package or binary file under such a name is refused.
    if (content === 'zip' || content === 'cfb' || content === 'biff' || content === 'binary') throw unreadable(file, `${content} content`);
    // Excel's "XML Spreadsheet 2003" is saved as .xml: its first sheet is the table, unless rows are asked for by name.
    if (ext === 'xml' && content === 'spreadsheetml' && !o.xml?.rowElement) return announce(open(() => new SheetJsReader(spreadsheetMl(file), 'spreadsheetml', sheets)), file, ext, ctx, null);
    return ext === 'xml' ? open(() => new XmlReader(file, ctx, o.xml ?? {})) : open(() => new HtmlReader(file, ctx, read.detectTypes));
  }
  if (o.reader === 'sheetjs') return announce(open(() => new SheetJsReader(file.bytes, formatOf(content, ext), sheets, full)), file, ext, ctx, null);
  if (!WORKBOOKS.has(ext)) throw unreadable(file, `.${ext} is not a format read here`);
  if (MACROS.has(ext)) ctx.message('info', 'macros_not_kept', { name: file.name, extension: `.${ext}` });
  const book = (() => {
    switch (content) {
      case 'zip':
        if (ext === 'ods') return open(() => new OdsReader(file.bytes, ctx.limits.maxCells, full), 'ods');
        return open(() => new XlsxReader(file.bytes, full), 'xlsx');
      case 'cfb':
        return open(() => new XlsReader(file.bytes, full), 'xls');
      case 'biff':
        return sheetJs('biff');
      case 'html':
        if (ext === 'xls') return open(() => new HtmlReader(file, ctx, read.detectTypes));
        break;
      case 'spreadsheetml':
        if (ext === 'xls') return sheetJs('spreadsheetml', spreadsheetMl(file));
        break;
      case 'text':
        // Tab-separated text named .xls (Excel's "Unicode text", many web exports): read as the CSV it is. A
        // comma CSV named .xls is no such export, and stays refused as not what its name says.
        if (ext === 'xls' && detectDelimiterOf(decodeText(file.bytes.subarray(0, 256 * 1024)).text) === '\t') return open(() => (csv = new CsvReader(file, '\t')));
        break;
    }
    throw unreadable(file, `${content} content`);
  })();
  return announce(book, file, ext, ctx, csv);
}

/** What content the extension itself stands for. */
const CLAIMED: Record<string, ContentFormat[]> = { xlsx: ['xlsx'], xlsm: ['xlsx'], xltx: ['xlsx'], xltm: ['xlsx'], xls: ['xls', 'biff'], ods: ['ods'], xml: ['xml'] };

/** The info message when the content is not what the extension says. */
function announce(book: Workbook<Cell>, file: SourceFile, ext: string, ctx: FormatContext, csv: CsvReader | null): Workbook<Cell> {
  const claimed = CLAIMED[ext];
  if (claimed && !claimed.includes(book.format)) {
    const delimiter = csv ? ctx.t(`names.delimiter-${DELIMITER_NAMES[csv.delimiter] ?? 'comma'}`) : '';
    ctx.message('info', 'read_as', { name: file.name, extension: `.${ext}`, content: ctx.t(`names.content-${book.format}`, { delimiter }) });
  }
  return book;
}

const DELIMITER_NAMES: Record<string, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' };

function formatOf(content: Content, ext: string): ContentFormat {
  if (content === 'zip') return ext === 'ods' ? 'ods' : 'xlsx';
  if (content === 'cfb') return 'xls';
  if (content === 'spreadsheetml') return 'spreadsheetml';
  return 'biff';
}

/** SpreadsheetML is XML SheetJS parses with its own parser: a DTD is refused first, as in every XML we read. */
function spreadsheetMl(file: SourceFile): Uint8Array {
  const head = Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength);
  if (head.includes('<!DOCTYPE') || head.includes('<!ENTITY')) throw Object.assign(new FormatError('xml-dtd', 'SpreadsheetML with a DTD'), { file: file.name, source: file });
  return file.bytes;
}

function unreadable(file: SourceFile, detail: string): FormatError {
  const err = new FormatError('unreadable', detail);
  err.file = file.name;
  err.source = file;
  return err;
}

export { baseNameOf };

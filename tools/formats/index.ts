// The format library's one public entry: tools and the kernel import from here, never from a format's folder.
// README "How it is built" draws the layers; "How to add a format" says what a reader or writer implements.
export * from './model.ts';
export { FormatError, type FormatReason } from './errors.ts';
export { openWorkbook, type OpenOptions } from './open.ts';
export { writtenOf } from './batch.ts';
export { deflatePieces, zipBuilder, type Deflated } from './zip/write.ts';
export { resultBudget, type ResultBudget } from './budget.ts';
/** A map that forgets everything when full: caches with a bound, for the kernel and adapters too. */
export { BoundedMap } from './util/bounded-map.ts';

// Writers: each takes a table's head, then its rows in batches, and gives Written (bytes + preview rows).
export { XlsxWriter, xlsxWriter, sheetNames, type TableWriter } from './xlsx/write.ts';
export { csvWriter, csvText, type CsvWriterOptions } from './csv/write.ts';
export { jsonWriter, type Layout as JsonLayout } from './json/write.ts';
export { tableWriter } from './writers.ts';
// Workbooks copied as they were (tools.md §2.7): read with `cells: 'full'`, written by a workbook writer.
export { copySheets, type SheetCopy } from './copy.ts';
export { writeXlsxBook, type XlsxBookWritten } from './xlsx/write-book.ts';
export { writeXls, type XlsWritten } from './xls/write.ts';
export { MAX_ROWS as XLS_MAX_ROWS, MAX_COLUMNS as XLS_MAX_COLUMNS, MAX_CELL_CHARS as XLS_MAX_CELL_CHARS } from './xls/sheet.ts';
export { writeOds, type OdsWritten } from './ods/write.ts';
export { ChangeLog, type Changed, type Place } from './changes.ts';
export { formatLimit, type LimitUnit } from './errors.ts';
export { extrasOf, type ExtraKind } from './extras.ts';
export { writeHtml, type HtmlOptions } from './html/write.ts';
export { elementNames, writeXml, type XmlOptions } from './xml/write.ts';
export { ELEMENT_NAME_OR_EMPTY, MAX_NAME_CHARS } from './markup.ts';
export { writeSql, type SqlOptions } from './sql/write.ts';
export { columnInfo, type ColumnInfo } from './sql/column-types.ts';
export { DIALECT, DIALECTS, type Dialect } from './sql/dialects.ts';
export { columnNames, DEFAULT_TABLE, tableName, type ColumnNames } from './sql/names.ts';
export { SQL_DIALECTS, SQL_MAX_DEPTH, type SqlDialectOption } from './sql/read.ts';
export { escapeValue, foldLine, VCARD_VERSIONS, VcardWriter, type VcardProperty, type VcardVersion } from './vcard/write.ts';
export { CONTACT_FIELDS, detectFields, titleForm, type ContactField } from './vcard/fields.ts';

// Table helpers shared by tools: stacking, titles, names, message lists.
export { stack, type StackOptions, type StackSource } from './table/stack.ts';
export { titleRow, titleCell } from './table/titles.ts';
export { namedTitles, titlesBeside, uniqueNames } from './table/names.ts';
export { listText } from './report.ts';
export { typingFor, writeEdited, type EditedTable } from './table/edit.ts';
export { laidOut } from './csv/book.ts';
export { DELIMITERS, decodeWindows1252 } from './csv/read.ts';
export { EncodedText, readRawCsv, rewriteCsv, unencodable1252, type RawCsv, type RawEncoding } from './csv/raw.ts';
export { JSON_MAX_DEPTH } from './json/read.ts';
export { planColumns, renderPdf, PDF_CELL_CHARS, PDF_LINES_PER_ROW, type PdfTable } from './pdf/layout.ts';
export { pdfSetup } from './pdf/fonts.ts';
// Documents for people (tools.md §2.6 display form) and the text formats written from rows.
export { displayText, numericColumns, countsAsNumeric, shownTitles, shownRows, shownRow, type DisplayWords } from './display.ts';
export { writeMarkdown, type MarkdownSection } from './markdown/write.ts';
export { yamlWriter, type YamlLayout } from './yaml/write.ts';
export { writeFixedWidth, Unencodable } from './txt/write.ts';
export { writeDocx, DOCX_MAX_COLUMNS } from './docx/write.ts';

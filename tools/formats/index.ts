// The spreadsheet layer tools share: reading inputs into tables, writing xlsx and csv, aligning columns.
export { readTables, readFirstTable, type ReadOptions, type ReadResult } from './read-table.ts';
export { writeXlsx, writeXlsxRows, writePipedXlsx, sheetNames, XLSX_MAX_ROWS, XLSX_MAX_COLUMNS, XLSX_MAX_CELL_CHARS } from './xlsx/write.ts';
export { readCsv, streamCsv, decodeText, parseCsv, detectDelimiter, DELIMITERS, type CsvReadOptions, type CsvRead } from './csv/read.ts';
export { writeCsv, csvText, plainNumber, type CsvWriteOptions } from './csv/write.ts';
export { detectType } from './csv/detect-type.ts';
export { serialToDate, dateToSerial, isTimeOnly } from './dates.ts';
export { stack, tableSource, type StackSource, type StackOptions } from './table/stack.ts';
export { listText } from './report.ts';
export { titleRow, titleCell, type SheetTable, type PipedTable } from './table/titles.ts';
export { namedTitles, uniqueNames } from './table/names.ts';
export { readJsonTable, JSON_MAX_DEPTH, type JsonReadOptions } from './json/read.ts';
export { FormatError, type FormatReason } from './errors.ts';
export * from './model.ts';

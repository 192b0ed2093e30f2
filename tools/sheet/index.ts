// The spreadsheet layer tools share: reading inputs into tables, writing xlsx and csv, aligning columns.
export { readTables, readFirstTable, type ReadOptions, type ReadResult } from './read-table.ts';
export { writeXlsx, writeXlsxRows, writePipedXlsx, sheetNames, XLSX_MAX_ROWS, XLSX_MAX_COLUMNS, XLSX_MAX_CELL_CHARS } from './write-xlsx.ts';
export { readCsv, streamCsv, decodeText, parseCsv, detectDelimiter, DELIMITERS, type CsvReadOptions, type CsvRead, type TextEncodingName } from './csv.ts';
export { writeCsv, csvText, plainNumber, type CsvWriteOptions } from './write-csv.ts';
export { detectType } from './detect-type.ts';
export { serialToDate, dateToSerial, isTimeOnly } from './excel-date.ts';
export { stack, tableSource, type StackSource, type StackOptions } from './header.ts';
export { listText, type Report } from './report.ts';
export { titleRow, titleCell, type SheetTable, type PipedTable } from './titles.ts';
export { namedTitles, uniqueNames } from './result-titles.ts';
export { readJsonTable, JSON_MAX_DEPTH, type JsonReadOptions } from './read-json.ts';

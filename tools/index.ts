// The registry: every tool that runs, in one explicit, sorted list. Views (MCP, catalogue, OpenAPI,
// llms.txt, README) are all derived from it.
import csvToExcel from './convert/csv-to-excel.ts';
import excelToCsv from './convert/excel-to-csv.ts';
import excelToHtml from './convert/excel-to-html.ts';
import excelToJson from './convert/excel-to-json.ts';
import excelToPdf from './convert/excel-to-pdf.ts';
import excelToSql from './convert/excel-to-sql.ts';
import excelToXml from './convert/excel-to-xml.ts';
import xlsToXlsx from './convert/xls-to-xlsx.ts';
import xlsxToXls from './convert/xlsx-to-xls.ts';
import odsToExcel from './convert/ods-to-excel.ts';
import excelToOds from './convert/excel-to-ods.ts';
import jsonToExcel from './convert/json-to-excel.ts';
import flattenSheets from './merge-split/flatten-sheets.ts';
import mergeSheets from './merge-split/merge-sheets.ts';
import mergeStack from './merge-split/merge-stack.ts';
import splitByColumn from './merge-split/split-by-column.ts';
import splitRows from './merge-split/split-rows.ts';
import splitSheets from './merge-split/split-sheets.ts';
import unmergeCells from './merge-split/unmerge-cells.ts';
import extractSheets from './merge-split/extract-sheets.ts';

export const tools = [mergeStack, mergeSheets, flattenSheets, splitSheets, splitRows, splitByColumn, unmergeCells, extractSheets, excelToCsv, csvToExcel, excelToJson, jsonToExcel, excelToSql, excelToPdf, excelToHtml, excelToXml, xlsToXlsx, xlsxToXls, odsToExcel, excelToOds] as const;

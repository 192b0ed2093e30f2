// The registry: every tool that runs, in one explicit, sorted list. Views (MCP, catalogue, OpenAPI,
// llms.txt, README) are all derived from it.
import convertCsv from './convert/convert-csv.ts';
import csvToExcel from './convert/csv-to-excel.ts';
import excelToCsv from './convert/excel-to-csv.ts';
import excelToDocx from './convert/excel-to-docx.ts';
import excelToHtml from './convert/excel-to-html.ts';
import excelToJson from './convert/excel-to-json.ts';
import excelToMarkdown from './convert/excel-to-markdown.ts';
import excelToPdf from './convert/excel-to-pdf.ts';
import excelToSql from './convert/excel-to-sql.ts';
import excelToTxt from './convert/excel-to-txt.ts';
import excelToXml from './convert/excel-to-xml.ts';
import excelToOds from './convert/excel-to-ods.ts';
import excelToYaml from './convert/excel-to-yaml.ts';
import htmlToExcel from './convert/html-to-excel.ts';
import odsToExcel from './convert/ods-to-excel.ts';
import xlsToXlsx from './convert/xls-to-xlsx.ts';
import xlsxToXls from './convert/xlsx-to-xls.ts';
import jsonToExcel from './convert/json-to-excel.ts';
import excelToVcard from './convert/excel-to-vcard.ts';
import markdownToExcel from './convert/markdown-to-excel.ts';
import sqlToExcel from './convert/sql-to-excel.ts';
import vcardToExcel from './convert/vcard-to-excel.ts';
import xmlToExcel from './convert/xml-to-excel.ts';
import flattenSheets from './merge-split/flatten-sheets.ts';
import mergeByKey from './merge-split/merge-by-key.ts';
import mergeColumns from './merge-split/merge-columns.ts';
import splitColumn from './merge-split/split-column.ts';
import splitToSheets from './merge-split/split-to-sheets.ts';
import mergeSheets from './merge-split/merge-sheets.ts';
import mergeStack from './merge-split/merge-stack.ts';
import splitByColumn from './merge-split/split-by-column.ts';
import splitRows from './merge-split/split-rows.ts';
import splitSheets from './merge-split/split-sheets.ts';
import unmergeCells from './merge-split/unmerge-cells.ts';
import extractSheets from './merge-split/extract-sheets.ts';

export const tools = [mergeStack, mergeSheets, flattenSheets, splitSheets, splitRows, splitByColumn, excelToCsv, csvToExcel, excelToJson, jsonToExcel, excelToSql, excelToPdf, excelToHtml, excelToXml, mergeByKey, mergeColumns, splitColumn, unmergeCells, splitToSheets, extractSheets, xmlToExcel, htmlToExcel, excelToMarkdown, markdownToExcel, convertCsv, xlsToXlsx, xlsxToXls, odsToExcel, excelToOds, excelToTxt, excelToYaml, excelToDocx, sqlToExcel, excelToVcard, vcardToExcel] as const;

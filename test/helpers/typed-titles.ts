// Inputs shared by the split tools' tests.
import ExcelJS from 'exceljs';
import { d } from './read-xlsx.ts';
import { inputFile } from './run-tool.ts';

/** A report-style workbook whose title row holds a year and a month (typed, not text). */
export async function typedTitles(): Promise<ReturnType<typeof inputFile>> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Informe');
  ws.addRow(['Zona', 2024, d(2024, 1, 1)]);
  ws.getCell('C1').numFmt = 'mmm yyyy';
  ws.addRow(['Norte', 1, 2]);
  ws.addRow(['Sur', 3, 4]);
  return inputFile('informe.xlsx', new Uint8Array(await wb.xlsx.writeBuffer()));
}

/** A UTF-8 result as text, its BOM kept so tests can assert it. */
export const textOf = (b: Uint8Array) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(b);

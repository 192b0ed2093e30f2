// extract-sheets: chosen sheets in the order given, as they were (openpyxl reads the result), one file each,
// CSV, hidden sheets shown when all are hidden, formulas to sheets left out as cached values, and its errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import tool from '../../../tools/merge-split/extract-sheets.ts';
import excelToOds from '../../../tools/convert/excel-to-ods.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { ssconvertCsv } from '../../helpers/office.ts';
import { openpyxl, richWorkbook } from '../../helpers/workbook-fixture.ts';
import { textOf } from '../../helpers/typed-titles.ts';

const dir = mkdtempSync(join(tmpdir(), 'extract-sheets-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
let serial = 0;
const read = (bytes: Uint8Array, ext = 'xlsx') => {
  const path = join(dir, `r${serial++}.${ext}`);
  writeFileSync(path, bytes);
  return path;
};

test('extract-sheets: the order given, by position and name, keeping formats, merges, widths and visibility', async () => {
  const out = await runTool(tool, [inputFile('informe.xlsx', await richWorkbook())], { sheets: '3, Datos, 2' });
  assert.deepEqual(out.files.map((f) => f.name), ['informe-extraido.xlsx']);
  const book = openpyxl(read(out.files[0].bytes));
  assert.deepEqual(book.sheets.map((s) => [s.name, s.state]), [['Tercera', 'visible'], ['Datos', 'visible'], ['Oculta', 'hidden']]);
  const datos = book.sheets[1];
  assert.deepEqual(datos.merged, ['A6:C6']);
  assert.deepEqual([datos.widths.A, datos.widths.B], [20, 12.5]);
  assert.deepEqual(datos.cells.C2, ['2024-01-15T00:00:00', 'd', 'dd/mm/yyyy']);
  assert.deepEqual(datos.cells.B4, ['=SUM(B2:B3)', 'f', '#,##0.00'], 'a formula on its own sheet stays a formula');
  assert.deepEqual(book.sheets[2].cells, { B3: ['desplazada', 's', 'General'], C4: [42, 'n', 'General'] });
  assert.equal(out.preview?.sheet, 'Tercera');
});

test('extract-sheets: range 2-3 into one file each; a hidden sheet alone is shown, with an info', async () => {
  const out = await runTool(tool, [inputFile('informe.xlsx', await richWorkbook())], { sheets: ['2-3'], output: 'files', language: 'en' });
  assert.deepEqual(out.files.map((f) => f.name), ['Oculta.xlsx', 'Tercera.xlsx']);
  const oculta = openpyxl(read(out.files[0].bytes));
  assert.deepEqual(oculta.sheets.map((s) => [s.name, s.state]), [['Oculta', 'visible']]);
  assert.ok(out.messages.some((m) => m.text === 'Every chosen sheet was hidden: sheet "Oculta" is shown, since a workbook needs at least one visible sheet.'));
});

test('extract-sheets: a formula referring to a sheet left out becomes its cached value, counted', async () => {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Base').getCell('A1').value = 10;
  const calc = wb.addWorksheet('Cálculo');
  calc.getCell('A1').value = { formula: 'Base!A1*2', result: 20 };
  calc.getCell('A2').value = { formula: "'Base'!A1+A1", result: 30 };
  calc.getCell('A3').value = { formula: 'A1+1', result: 21 };
  const out = await runTool(tool, [inputFile('libro.xlsx', new Uint8Array(await wb.xlsx.writeBuffer()))], { sheets: 'Cálculo' });
  const cells = openpyxl(read(out.files[0].bytes)).sheets[0].cells;
  assert.deepEqual([cells.A1[0], cells.A2[0], cells.A3[0]], [20, 30, '=A1+1']);
  assert.ok(out.messages.some((m) => m.level === 'warning' && m.text.startsWith('2 fórmula(s) usan hojas que no van en el mismo archivo')));
});

test('extract-sheets: an .ods gives an .ods by default; csv writes one sheet\'s values', async () => {
  const csv = await runTool(tool, [inputFile('informe.xlsx', await richWorkbook())], { sheets: 'datos', format: 'csv' });
  assert.deepEqual(csv.files.map((f) => f.name), ['informe-extraido.csv']);
  assert.ok(textOf(csv.files[0].bytes).includes('Ana,1234.5,2024-01-15,0.25,00123\r\n'));
  const ods = (await runTool(excelToOds, [inputFile('informe.xlsx', await richWorkbook())])).files[0].bytes;
  const fromOds = await runTool(tool, [inputFile('libro.ods', ods)], { sheets: '1' });
  assert.deepEqual(fromOds.files.map((f) => [f.name, f.contentType]), [['libro-extraido.ods', 'application/vnd.oasis.opendocument.spreadsheet']]);
  const back = ssconvertCsv(read(fromOds.files[0].bytes, 'ods'), mkdtempSync(join(dir, 'ss-')));
  assert.equal(back[0].split('\n')[1].trim(), 'Ana,1234.5,2024/01/15,0.25,00123');
});

test('extract-sheets: unknown, out of range, repeated sheets and csv with several sheets are invalid_option', async () => {
  const file = inputFile('informe.xlsx', await richWorkbook());
  await rejectsWith(runTool(tool, [file], { sheets: 'Nada' }), 'invalid_option', { option: 'sheets' });
  await rejectsWith(runTool(tool, [file], { sheets: '4' }), 'invalid_option', { option: 'sheets' });
  await rejectsWith(runTool(tool, [file], { sheets: '1-5' }), 'invalid_option', { option: 'sheets' });
  await rejectsWith(runTool(tool, [file], { sheets: 'Datos, 1' }), 'invalid_option', { option: 'sheets' });
  await rejectsWith(runTool(tool, [file], { sheets: '' }), 'invalid_option', { option: 'sheets' });
  await rejectsWith(runTool(tool, [file], { sheets: '1,2', format: 'csv' }), 'invalid_option', { option: 'format' });
  await rejectsWith(runTool(tool, [inputFile('a.csv', 'a\n1\n')], { sheets: '1' }), 'unsupported_format', { option: 'file' });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import tool from '../../../tools/merge-split/split-to-sheets.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { openpyxlTyped } from '../../helpers/openpyxl-typed.ts';

const sales = inputFile('ventas.csv', 'Id,Ciudad,Importe\n001,Madrid,1.5\n002,Ávila,2\n003, Madrid ,3\n004,,4\n005,madrid,5\n006,Co/ruña,6\n007,History,7\n');
const values = (rows: [string, string | null][][]) => rows.map((r) => r.map((c) => c[1]));

test('split-to-sheets: one sheet per value in order of appearance, outer spaces ignored, case counts, empty group, titles in each', async () => {
  const out = await runTool(tool, [sales], { column: 'Ciudad' });
  assert.equal(out.files[0].name, 'ventas-hojas.xlsx');
  const sheets = openpyxlTyped(out.files[0].bytes);
  assert.deepEqual(sheets.map((s) => s.name), ['Madrid', 'Ávila', '(vacío)', 'madrid (2)', 'Co_ruña', 'History_']);
  assert.deepEqual(values(sheets[0].rows), [['Id', 'Ciudad', 'Importe'], ['001', 'Madrid', '1.5'], ['003', ' Madrid ', '3']]);
  assert.deepEqual(sheets[0].rows[1].map((c) => c[0]), ['str', 'str', 'float'], 'CSV values typed, 001 stays text');
  assert.deepEqual(values(sheets[2].rows), [['Id', 'Ciudad', 'Importe'], ['004', null, '4']]);
  const info = out.messages.find((m) => m.text.includes('otro nombre de hoja'));
  assert.ok(info && info.text.includes('madrid → madrid (2)') && info.text.includes('Co/ruña → Co_ruña') && info.text.includes('History → History_'), JSON.stringify(out.messages));
  assert.deepEqual(out.preview?.columns, ['Id', 'Ciudad', 'Importe']);
  assert.equal(out.preview?.sheet, 'Madrid');
});

test('split-to-sheets: alphabetical in the language (empty last), include-column-in-name, keep-column=false, include-original first', async () => {
  const out = await runTool(tool, [sales], { column: 2, 'sheet-order': 'alphabetical', 'include-column-in-name': true, 'keep-column': false, 'include-original': true, language: 'en' });
  assert.equal(out.files[0].name, 'ventas-sheets.xlsx');
  const sheets = openpyxlTyped(out.files[0].bytes);
  assert.deepEqual(sheets.map((s) => s.name), ['Data', 'Ciudad-Ávila', 'Ciudad-Co_ruña', 'Ciudad-History', 'Ciudad-madrid', 'Ciudad-Madrid (2)', 'Ciudad-(empty)']);
  assert.equal(sheets[0].rows.length, 8, 'the whole table, unchanged');
  assert.deepEqual(values(sheets[0].rows)[0], ['Id', 'Ciudad', 'Importe']);
  assert.deepEqual(values(sheets[1].rows), [['Id', 'Importe'], ['002', '2']]);
  assert.equal(out.preview?.sheet, 'Ciudad-Ávila');
});

test('split-to-sheets: workbook values group by machine form (7 and "7" together, dates ISO); the original is named after its sheet', async () => {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Pedidos').addRows([['K', 'V'], [7, 'a'], ['7', 'b'], [new Date(Date.UTC(2024, 0, 15)), 'c'], [true, 'd']]);
  const file = inputFile('libro.xlsx', new Uint8Array(await wb.xlsx.writeBuffer()));
  const out = await runTool(tool, [file], { column: 'k', 'include-original': true });
  const sheets = openpyxlTyped(out.files[0].bytes);
  assert.deepEqual(sheets.map((s) => s.name), ['Pedidos', '7', '2024-01-15', 'true']);
  assert.deepEqual(values(sheets[1].rows), [['K', 'V'], ['7', 'a'], ['7', 'b']]);
  assert.deepEqual(sheets[1].rows.map((r) => r[0][0]), ['str', 'int', 'str'], 'each cell keeps its type');
});

test('split-to-sheets: more than 1,000 groups is refused naming column and suggesting split-by-column; unknown column', async () => {
  const many = inputFile('m.csv', `k\n${Array.from({ length: 1001 }, (_, i) => `v${i}`).join('\n')}\n`);
  await rejectsWith(runTool(tool, [many], { column: 'k' }), 'invalid_option', { option: 'column', params: { found: 1001 } });
  await rejectsWith(runTool(tool, [sales], { column: 'Zona' }), 'invalid_option', { option: 'column' });
  await rejectsWith(runTool(tool, [sales], { column: 'Ciudad', 'sheet-order': 'random' }), 'invalid_option', { option: 'sheet-order' });
});

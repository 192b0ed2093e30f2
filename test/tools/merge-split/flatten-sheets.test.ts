import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import tool from '../../../tools/merge-split/flatten-sheets.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { d, readXlsx } from '../../helpers/read-xlsx.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';

test('flatten-sheets: defaults join sheets by title, add the sheet column, and skip the empty sheet', async () => {
  const out = await runTool(tool, [fixture('dos-hojas.xlsx')]);
  assert.deepEqual(out.files.map((f) => f.name), ['unificado.xlsx']);
  const sheets = await readXlsx(out.files[0].bytes);
  assert.equal(sheets.length, 1);
  assert.deepEqual(sheets[0].rows, [
    ['Producto', 'Unidades', 'Fecha', 'Hoja'],
    ['Café', 10, d(2024, 1, 5), 'Enero'],
    ['Té', 5, d(2024, 1, 6), 'Enero'],
    ['Azúcar', 7, d(2024, 2, 7), 'Feb|Mar'],
  ]);
  assert.deepEqual(out.messages, [{ level: 'info', text: '«Vacía» está vacío: no aporta filas.' }]);
  assert.deepEqual(out.preview?.columns, ['Producto', 'Unidades', 'Fecha', 'Hoja']);
  assert.deepEqual(out.preview?.rows[2], ['Azúcar', 7, '2024-02-07', 'Feb|Mar']);
});

test('flatten-sheets: add-sheet-column false and sheet-column-name', async () => {
  const without = await runTool(tool, [fixture('dos-hojas.xlsx')], { 'add-sheet-column': false });
  assert.deepEqual((await readXlsx(without.files[0].bytes))[0].rows[0], ['Producto', 'Unidades', 'Fecha']);
  const named = await runTool(tool, [fixture('dos-hojas.xlsx')], { 'sheet-column-name': 'Mes' });
  assert.deepEqual((await readXlsx(named.files[0].bytes))[0].rows[0], ['Producto', 'Unidades', 'Fecha', 'Mes']);
});

test('flatten-sheets: has-header false joins by position, title rows included as data', async () => {
  const out = await runTool(tool, [fixture('dos-hojas.xlsx')], { 'has-header': false });
  assert.deepEqual((await readXlsx(out.files[0].bytes))[0].rows, [
    ['Producto', 'Unidades', 'Fecha', 'Enero'],
    ['Café', 10, d(2024, 1, 5), 'Enero'],
    ['Té', 5, d(2024, 1, 6), 'Enero'],
    ['Fecha', 'producto', 'Unidades', 'Feb|Mar'],
    [d(2024, 2, 7), 'Azúcar', 7, 'Feb|Mar'],
  ]);
});

test('flatten-sheets: sheets with different columns keep every cell, with warnings naming the columns (.xls)', async () => {
  const out = await runTool(tool, [fixture('ventas.xls')]);
  assert.deepEqual((await readXlsx(out.files[0].bytes))[0].rows, [
    ['Fecha', 'Ciudad', 'Código', 'Activo', 'Nota', 'Hoja'],
    [d(2024, 1, 15), 'Córdoba', '00123', true, null, 'Ciudades'],
    [d(2024, 2, 15, 12), 'Logroño', 42, false, null, 'Ciudades'],
    [null, null, null, null, 'ñandú', 'Otra'],
  ]);
  assert.deepEqual(out.messages.map((m) => m.text), [
    '«Otra» no tiene estas columnas de «Ciudades»: "Fecha", "Ciudad", "Código", "Activo"; sus celdas quedan vacías en las filas de «Otra».',
    '«Otra» tiene columnas que no están en «Ciudades»: "Nota"; se han añadido al final.',
  ]);
});

test('flatten-sheets: formula-looking text, leading zeros and long ids stay text', async () => {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('A').addRows([['id', 'nota'], ['00123', '=SUM(A1)']]);
  wb.addWorksheet('B').addRows([['nota', 'id'], ['+34 600 000 000', '4111111111111111']]);
  const out = await runTool(tool, [inputFile('ids.xlsx', new Uint8Array(await wb.xlsx.writeBuffer()))], { language: 'en' });
  assert.equal(out.files[0].name, 'flattened.xlsx');
  assert.deepEqual((await readXlsx(out.files[0].bytes))[0].rows, [
    ['id', 'nota', 'Sheet'],
    ['00123', '=SUM(A1)', 'A'],
    ['4111111111111111', '+34 600 000 000', 'B'],
  ]);
});

test('flatten-sheets: input and option errors', async () => {
  const book = fixture('dos-hojas.xlsx');
  await rejectsWith(runTool(tool, [fixture('ventas.csv')]), 'unsupported_format', { option: 'file', params: { name: 'ventas.csv' } });
  await rejectsWith(runTool(tool, [book, book]), 'too_many_files', { option: 'file' });
  await rejectsWith(runTool(tool, []), 'missing_file', { option: 'file' });
  await rejectsWith(runTool(tool, [book], { 'add-sheet-column': 'no' }), 'invalid_option', { option: 'add-sheet-column' });
  await rejectsWith(runTool(tool, [book], { 'sheet-column-name': 7 }), 'invalid_option', { option: 'sheet-column-name' });
  await rejectsWith(runTool(tool, [book], { 'match-by-name': true }), 'unknown_option', { option: 'match-by-name' });
  await rejectsWith(runTool(tool, [inputFile('x.xlsx', 'Producto;Unidades\n')]), 'invalid_file', { option: 'file', params: { name: 'x.xlsx', format: 'xlsx' } });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import tool from '../../../tools/merge-split/merge-sheets.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { d, readXlsx } from '../../helpers/read-xlsx.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';

test('merge-sheets: one sheet per file, named after the file, cells kept with their types', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx'), fixture('ventas-2.xlsx'), fixture('ventas.xls')]);
  assert.deepEqual(out.files.map((f) => f.name), ['combinado.xlsx']);
  const sheets = await readXlsx(out.files[0].bytes);
  assert.deepEqual(sheets.map((s) => s.name), ['ventas', 'ventas-2', 'ventas (2)']);
  assert.deepEqual(sheets[0].rows, [
    ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas'],
    [d(2024, 1, 15), 'Muñoz Peña', '00123', 1250.5, true, '=SUM(A1)'],
    [d(2024, 2, 29, 13, 45), 'Ángela Ibáñez', '4111111111111111', -3, false, '+34 600 000 000'],
    [d(2023, 12, 31), 'Çedille & Co', '007', 0.1, true, '@mención'],
    [null, 'Total', null, 2501, null, null],
  ]);
  assert.deepEqual(sheets[1].rows, [
    ['importe ', 'CLIENTE', 'Fecha', 'Código', 'Notas', 'Región'],
    [99.99, 'Zoë', d(2024, 3, 1), '0042', 'texto', 'Andalucía'],
  ]);
  assert.deepEqual(sheets[2].rows, [
    ['Fecha', 'Ciudad', 'Código', 'Activo'],
    [d(2024, 1, 15), 'Córdoba', '00123', true],
    [d(2024, 2, 15, 12), 'Logroño', 42, false],
  ]);
  assert.deepEqual(out.messages.map((m) => [m.level, m.text]), [
    ['warning', 'Del archivo «ventas-2.xlsx» solo se usa la primera hoja («Febrero»); no se han usado: "Resumen".'],
    ['warning', 'Del archivo «ventas.xls» solo se usa la primera hoja («Ciudades»); no se han usado: "Otra".'],
    ['info', 'La hoja de «ventas.xls» se llama «ventas (2)» en lugar de «ventas»: Excel no admite ese nombre o ya estaba usado.'],
  ]);
  assert.equal(out.preview?.sheet, 'ventas');
  assert.equal(out.preview?.totalRows, 4);
});

test('merge-sheets: keep-original-sheet-names keeps sheet names; a CSV, which has none, takes its file name', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx'), fixture('ventas-2.xlsx'), fixture('semicolon.csv')], { 'keep-original-sheet-names': true });
  const sheets = await readXlsx(out.files[0].bytes);
  assert.deepEqual(sheets.map((s) => s.name), ['Ventas', 'Febrero', 'semicolon']);
  assert.deepEqual(sheets[2].rows, [
    ['id', 'nombre', 'nota', 'importe', 'fecha'],
    ['00123', 'Pérez; Juan', 'línea 1\nlínea 2', 1.5, d(2024, 1, 31)],
    ['0042', 'Zoë', 'dice "hola"', 10, d(2023, 12, 31)],
  ]);
});

test('merge-sheets: file names that Excel does not accept as sheet names are fixed and reported', async () => {
  const long = 'informe de ventas del primer trimestre de 2024.csv';
  const out = await runTool(tool, [inputFile(long, 'a\n1\n'), inputFile('[borrador].csv', 'a\n2\n')]);
  const sheets = await readXlsx(out.files[0].bytes);
  assert.deepEqual(sheets.map((s) => s.name), ['informe de ventas del primer tr', '_borrador_']);
  assert.equal(out.messages.length, 2);
  assert.ok(out.messages.every((m) => m.level === 'info'));
});

test('merge-sheets: has-header false types the first row of a CSV too; true keeps it as titles', async () => {
  const files = [inputFile('a.csv', '2024,true\n1,false\n'), inputFile('b.csv', 'x\n')];
  const typed = await readXlsx((await runTool(tool, files, { 'has-header': false })).files[0].bytes);
  assert.deepEqual(typed[0].rows, [[2024, true], [1, false]]);
  const titled = await runTool(tool, files);
  assert.deepEqual((await readXlsx(titled.files[0].bytes))[0].rows, [['2024', 'true'], [1, false]]);
  assert.deepEqual(titled.preview?.columns, ['2024', 'true']);
});

test('merge-sheets: names in English', async () => {
  const out = await runTool(tool, [inputFile('a.csv', 'x\n1\n'), inputFile('b.csv', 'x\n2\n')], { language: 'en' });
  assert.equal(out.files[0].name, 'merged.xlsx');
  assert.deepEqual((await readXlsx(out.files[0].bytes)).map((s) => s.name), ['a', 'b']);
});

test('merge-sheets: file count, format and option errors', async () => {
  const one = inputFile('a.csv', 'x\n1\n');
  await rejectsWith(runTool(tool, [one]), 'too_few_files', { option: 'files', params: { min: 2 } });
  await rejectsWith(runTool(tool, new Array(21).fill(one)), 'too_many_files', { option: 'files', params: { max: 20 } });
  await rejectsWith(runTool(tool, [one, inputFile('b.ods', 'x')]), 'unsupported_format', { option: 'files', params: { name: 'b.ods' } });
  await rejectsWith(runTool(tool, [one, one], { 'keep-original-sheet-names': 1 }), 'invalid_option', { option: 'keep-original-sheet-names' });
  await rejectsWith(runTool(tool, [one, one], { 'sheet-name': 'x' }), 'unknown_option', { option: 'sheet-name' });
  await rejectsWith(runTool(tool, [one, inputFile('b.xls', 'not a workbook at all')]), 'invalid_file', { option: 'files', params: { name: 'b.xls' } });
});

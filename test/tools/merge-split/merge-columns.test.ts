import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import tool from '../../../tools/merge-split/merge-columns.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { textOf } from '../../helpers/typed-titles.ts';
import { openpyxlTyped } from '../../helpers/openpyxl-typed.ts';

const people = inputFile('gente.csv', 'Nombre;Apellido;Ciudad;Importe\nAna;Pérez;Madrid;1.234,5\n;;;\nBea;;Cádiz;007\n');
const csvRows = (bytes: Uint8Array) => textOf(bytes).replace(/^\uFEFF/, '').split('\r\n').filter((l) => l !== '');

const openpyxl = (bytes: Uint8Array) => openpyxlTyped(bytes)[0].rows;

test('merge-columns: joined with a space after the rightmost source; CSV fields as written; all-empty gives empty; delimiter kept', async () => {
  const out = await runTool(tool, [people], { columns: 'Nombre, apellido' });
  assert.equal(out.files[0].name, 'gente-columnas-unidas.csv');
  assert.deepEqual(csvRows(out.files[0].bytes), ['Nombre;Apellido;Nombre Apellido;Ciudad;Importe', 'Ana;Pérez;Ana Pérez;Madrid;1.234,5', ';;;;', 'Bea;;Bea;Cádiz;007']);
  assert.ok(out.messages.some((m) => m.level === 'info' && m.text.includes('2 columnas')));
});

test('merge-columns: skip-empty=false, separator keywords and literal, order given, keep-columns=false in the leftmost place, new name', async () => {
  const out = await runTool(tool, [people], { columns: ['Ciudad', 1, 'Apellido'], separator: 'dash', 'skip-empty': false, 'keep-columns': false, 'new-column-name': 'Todo' });
  assert.deepEqual(csvRows(out.files[0].bytes), ['Todo;Importe', 'Madrid - Ana - Pérez;1.234,5', ';', 'Cádiz - Bea - ;007']);
  const lit = await runTool(tool, [people], { columns: '1,2', separator: ' / ', 'new-column-name': 'Ciudad', language: 'en' });
  assert.equal(lit.files[0].name, 'gente-merged-columns.csv');
  assert.deepEqual(csvRows(lit.files[0].bytes).slice(0, 2), ['Nombre;Apellido;Ciudad (2);Ciudad;Importe', 'Ana;Pérez;Ana / Pérez;Madrid;1.234,5']);
  const nl = await runTool(tool, [people], { columns: '1,2', separator: 'newline' });
  assert.equal(csvRows(nl.files[0].bytes)[0], 'Nombre;Apellido;Nombre Apellido;Ciudad;Importe');
  assert.match(textOf(nl.files[0].bytes), /"Ana\nPérez"/);
  const kw = await runTool(tool, [people], { columns: '1,2', separator: 'none' });
  assert.equal(csvRows(kw.files[0].bytes)[1], 'Ana;Pérez;AnaPérez;Madrid;1.234,5');
});

test('merge-columns: workbook values in display form (es and en); the new cell is text; other cells keep their types (openpyxl)', async () => {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Datos').addRows([
    ['Fecha', 'Importe', 'Pagado', 'Código'],
    [new Date(Date.UTC(2024, 0, 15)), 1234.5, true, '00123'],
  ]);
  wb.addWorksheet('Otra').addRows([['x'], [1]]);
  const file = inputFile('libro.xlsx', new Uint8Array(await wb.xlsx.writeBuffer()));
  const es = await runTool(tool, [file], { columns: 'Fecha,Importe,Pagado,Código', separator: 'comma-space' });
  assert.equal(es.files[0].name, 'libro-columnas-unidas.xlsx');
  const rows = openpyxl(es.files[0].bytes);
  assert.deepEqual(rows[1][4], ['str', '15/01/2024, 1234,5, VERDADERO, 00123']);
  assert.deepEqual(rows[1].slice(0, 4).map((c) => c[0]), ['datetime', 'float', 'bool', 'str']);
  const en = await runTool(tool, [file], { columns: 'Fecha,Importe,Pagado', language: 'en' });
  assert.deepEqual(openpyxl(en.files[0].bytes)[1][3], ['str', '2024-01-15 1234.5 TRUE']);
});

test('merge-columns: CSV to xlsx types the other fields, and joins the fields as written', async () => {
  const out = await runTool(tool, [people], { columns: 'Nombre,Importe', format: 'xlsx' });
  const rows = openpyxl(out.files[0].bytes);
  assert.deepEqual(rows[1], [['str', 'Ana'], ['str', 'Pérez'], ['str', 'Madrid'], ['str', '1.234,5'], ['str', 'Ana 1.234,5']], 'a thousands mark is text for csv-to-excel too');
  assert.deepEqual(rows[3], [['str', 'Bea'], ['NoneType', null], ['str', 'Cádiz'], ['str', '007'], ['str', 'Bea 007']]);
  assert.deepEqual(rows[0].map((c) => c[1]), ['Nombre', 'Apellido', 'Ciudad', 'Importe', 'Nombre Importe']);
  const typed = await runTool(tool, [inputFile('t.csv', 'a;n;d\nx;1,5;15/01/2024\n')], { columns: 'a,n', format: 'xlsx' });
  assert.deepEqual(openpyxl(typed.files[0].bytes)[1], [['str', 'x'], ['float', '1.5'], ['str', 'x 1,5'], ['datetime', '2024-01-15 00:00:00']]);
});

test('merge-columns: errors', async () => {
  await rejectsWith(runTool(tool, [people], { columns: 'Nombre' }), 'invalid_option', { option: 'columns' });
  await rejectsWith(runTool(tool, [people], {}), 'invalid_option', { option: 'columns' });
  await rejectsWith(runTool(tool, [people], { columns: Array.from({ length: 51 }, () => 1) }), 'invalid_option', { option: 'columns' });
  await rejectsWith(runTool(tool, [people], { columns: 'Nombre,Zona' }), 'invalid_option', { option: 'columns' });
  await rejectsWith(runTool(tool, [people], { columns: '1,2', separator: 'x'.repeat(11) }), 'invalid_option', { option: 'separator' });
  await rejectsWith(runTool(tool, [people], { columns: '1,2', 'new-column-name': 'x'.repeat(256) }), 'invalid_option', { option: 'new-column-name' });
  const big = inputFile('big.csv', `a,b\n${'x'.repeat(20_000)},${'y'.repeat(20_000)}\n`);
  await rejectsWith(runTool(tool, [big], { columns: 'a,b', format: 'xlsx' }), 'format_limit_exceeded');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import tool from '../../../tools/merge-split/merge-by-key.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { readXlsx } from '../../helpers/read-xlsx.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { textOf } from '../../helpers/typed-titles.ts';

const orders = inputFile('pedidos.csv', 'Pedido,Cliente,Importe\nP1,007,10\nP2, 7 ,20\nP3,8,30\nP4,,40\nP5,9,50\n');
const clients = inputFile('clientes.csv', 'Cliente,Nombre,Ciudad\n7,Ana,Madrid\n007,Bea,Sevilla\n8,Carla,Cádiz\n8,Dora,Lugo\n10,Eva,Vigo\n');
const lookup = (f = clients) => ({ field: 'lookup-file', ...f });
const csvRows = (bytes: Uint8Array) =>
  textOf(bytes)
    .replace(/^\uFEFF/, '')
    .split('\r\n')
    .filter((l) => l !== '');

async function workbook(sheets: Record<string, unknown[][]>, name = 'libro.xlsx') {
  const wb = new ExcelJS.Workbook();
  for (const [sheet, rows] of Object.entries(sheets)) wb.addWorksheet(sheet).addRows(rows);
  return inputFile(name, new Uint8Array(await wb.xlsx.writeBuffer()));
}

test('merge-by-key: left join on text keys trimmed; 007 and 7 differ; first match; messages (CSV to CSV)', async () => {
  const out = await runTool(tool, [orders, lookup()], { key: 'Cliente' });
  assert.equal(out.files[0].name, 'pedidos-combinado.csv');
  assert.deepEqual(csvRows(out.files[0].bytes), [
    'Pedido,Cliente,Importe,Nombre,Ciudad',
    'P1,007,10,Bea,Sevilla',
    'P2, 7 ,20,Ana,Madrid',
    'P3,8,30,Carla,Cádiz',
    'P4,,40,,',
    'P5,9,50,,',
  ]);
  const texts = out.messages.map((m) => `${m.level}: ${m.text}`);
  assert.ok(texts.some((t) => t.startsWith('warning:') && t.includes('1 clave(s)') && t.includes('«8»')), texts.join('\n'));
  assert.ok(texts.some((t) => t.startsWith('info:') && t.includes('3 con coincidencia y 2 sin ella')), texts.join('\n'));
  assert.ok(texts.some((t) => t.startsWith('warning:') && t.includes('2 fila(s) sin coincidencia') && t.includes('fila 5')), texts.join('\n'));
});

test('merge-by-key: the number 7 matches the text 7, and 00123 does not match 123 (xlsx, typed keys)', async () => {
  const main = await workbook({ Datos: [['Id', 'Valor'], [7, 'a'], ['00123', 'b'], [123, 'c'], [new Date(Date.UTC(2024, 0, 15)), 'd'], [true, 'e']] });
  const lk = await workbook({ L: [['Id', 'Extra'], ['7', 'siete'], ['123', 'ciento'], ['2024-01-15', 'fecha'], ['true', 'verdad']] }, 'l.xlsx');
  const out = await runTool(tool, [main, { ...lk, field: 'lookup-file' }], { key: 'Id' });
  assert.equal(out.files[0].name, 'libro-combinado.xlsx');
  const [sheet] = await readXlsx(out.files[0].bytes);
  assert.deepEqual(
    sheet.rows.map((r) => r[2]),
    ['Extra', 'siete', null, 'ciento', 'fecha', 'verdad'],
  );
  assert.equal(sheet.rows[1][0], 7, 'the main key keeps its type');
});

test('merge-by-key: inner, full and all; a lookup key matched but unused by first is not appended', async () => {
  const inner = await runTool(tool, [orders, lookup()], { key: 'Cliente', 'join-type': 'inner', columns: 'Nombre' });
  assert.deepEqual(csvRows(inner.files[0].bytes), ['Pedido,Cliente,Importe,Nombre', 'P1,007,10,Bea', 'P2, 7 ,20,Ana', 'P3,8,30,Carla']);
  const all = await runTool(tool, [orders, lookup()], { key: 'Cliente', 'join-type': 'inner', 'multiple-matches': 'all', columns: ['Nombre'] });
  assert.deepEqual(csvRows(all.files[0].bytes), ['Pedido,Cliente,Importe,Nombre', 'P1,007,10,Bea', 'P2, 7 ,20,Ana', 'P3,8,30,Carla', 'P3,8,30,Dora']);
  assert.ok(!all.messages.some((m) => m.text.includes('se repiten')), 'no repeated-key warning with all');
  const full = await runTool(tool, [orders, lookup()], { key: 'Cliente', 'join-type': 'full', columns: '3, Nombre' });
  assert.deepEqual(csvRows(full.files[0].bytes), [
    'Pedido,Cliente,Importe,Ciudad,Nombre',
    'P1,007,10,Sevilla,Bea',
    'P2, 7 ,20,Madrid,Ana',
    'P3,8,30,Cádiz,Carla',
    'P4,,40,,',
    'P5,9,50,,',
    ',10,,Vigo,Eva',
  ]);
});

test('merge-by-key: ignore-case, not-found-value, lookup-key by position, titles already taken get (2)', async () => {
  const a = inputFile('a.csv', 'Code,Nombre\nabc,uno\nXYZ,dos\nq,tres\n');
  const b = inputFile('b.csv', 'Nombre,Clave\nAlfa,ABC\nZeta,xyz\n');
  const out = await runTool(tool, [a, { ...b, field: 'lookup-file' }], { key: 'code', 'lookup-key': '2', 'ignore-case': true, 'not-found-value': '#N/D', language: 'en' });
  assert.equal(out.files[0].name, 'a-merged.csv');
  assert.deepEqual(csvRows(out.files[0].bytes), ['Code,Nombre,Nombre (2)', 'abc,uno,Alfa', 'XYZ,dos,Zeta', 'q,tres,#N/D']);
  assert.ok(out.messages.some((m) => m.text.includes("\"Nombre → Nombre (2)\"")), JSON.stringify(out.messages));
  const strict = await runTool(tool, [a, { ...b, field: 'lookup-file' }], { key: 'code', 'lookup-key': 'Clave', language: 'en' });
  assert.ok(strict.messages.some((m) => m.level === 'warning' && m.text.startsWith('No row matched')), JSON.stringify(strict.messages));
});

test('merge-by-key: has-header=false matches by positions and writes no title row', async () => {
  const a = inputFile('a.csv', '1,x\n2,y\n');
  const b = inputFile('b.csv', '2,dos,II\n1,uno,I\n');
  const out = await runTool(tool, [a, { ...b, field: 'lookup-file' }], { key: 1, 'has-header': false, columns: '3' });
  assert.deepEqual(csvRows(out.files[0].bytes), ['1,x,I', '2,y,II']);
});

test('merge-by-key: other sheets of the main workbook are kept in their places; csv leaves them out with an info', async () => {
  const main = await workbook({ Datos: [['K', 'V'], ['a', 1], ['b', 2]], Notas: [['libre'], [42]] });
  const lk = await workbook({ L: [['K', 'W'], ['b', 'bee']] }, 'l.xlsx');
  const out = await runTool(tool, [main, { ...lk, field: 'lookup-file' }], { key: 'K' });
  const sheets = await readXlsx(out.files[0].bytes);
  assert.deepEqual(sheets.map((s) => s.name), ['Datos', 'Notas']);
  assert.deepEqual(sheets[0].rows, [['K', 'V', 'W'], ['a', 1, null], ['b', 2, 'bee']]);
  assert.deepEqual(sheets[1].rows, [['libre'], [42]]);
  assert.deepEqual(out.preview?.columns, ['K', 'V', 'W']);
  const csv = await runTool(tool, [main, { ...lk, field: 'lookup-file' }], { key: 'K', format: 'csv' });
  assert.equal(csv.files[0].name, 'libro-combinado.csv');
  assert.deepEqual(csvRows(csv.files[0].bytes), ['K,V,W', 'a,1,', 'b,2,bee']);
  assert.ok(csv.messages.some((m) => m.level === 'info' && m.text.includes('"Notas"')));
});

test('merge-by-key: a hash join (linear): 50,000 × 50,000 rows join correctly', async () => {
  const n = 50_000;
  const main = ['id,v', ...Array.from({ length: n }, (_, i) => `${n - i},${i}`)].join('\n');
  const lk = ['id,w', ...Array.from({ length: n }, (_, i) => `${i + 1},w${i + 1}`)].join('\n');
  const out = await runTool(tool, [inputFile('m.csv', main), { ...inputFile('l.csv', lk), field: 'lookup-file' }], { key: 'id' });
  const lines = csvRows(out.files[0].bytes);
  assert.equal(lines.length, n + 1);
  assert.equal(lines[1], `${n},0,w${n}`);
  assert.equal(lines[n], `1,${n - 1},w1`);
});

test('merge-by-key: errors name their option', async () => {
  await rejectsWith(runTool(tool, [orders], { key: 'Cliente' }), 'missing_file', { option: 'lookup-file' });
  await rejectsWith(runTool(tool, [orders, lookup(inputFile('c.json', '[]'))], { key: 'Cliente' }), 'unsupported_format', { option: 'lookup-file' });
  await rejectsWith(runTool(tool, [orders, lookup(inputFile('c.xlsx', 'no es un libro'))], { key: 'Cliente' }), 'invalid_file', { option: 'lookup-file' });
  // The same name for both files: the unreadable one is still told apart.
  await rejectsWith(runTool(tool, [inputFile('x.xlsx', 'roto'), lookup(inputFile('x.xlsx', 'roto'))], { key: 'a' }), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [orders, lookup()], { key: 'Nope' }), 'invalid_option', { option: 'key' });
  await rejectsWith(runTool(tool, [orders, lookup()], { key: 'Pedido' }), 'invalid_option', { option: 'lookup-key' });
  await rejectsWith(runTool(tool, [orders, lookup()], { key: 'Cliente', 'lookup-key': 'X' }), 'invalid_option', { option: 'lookup-key' });
  await rejectsWith(runTool(tool, [orders, lookup()], { key: 'Cliente', columns: 'Nombre,Zona' }), 'invalid_option', { option: 'columns' });
  await rejectsWith(runTool(tool, [orders, lookup()], { key: 'Cliente', columns: 'Nombre,nombre' }), 'invalid_option', { option: 'columns' });
  await rejectsWith(runTool(tool, [orders, lookup()], { key: 'Cliente', 'join-type': 'right' }), 'invalid_option', { option: 'join-type' });
  const wide = inputFile('w.csv', `Cliente,${Array.from({ length: 1001 }, (_, i) => `c${i}`).join(',')}\n7,${'x,'.repeat(1000)}x\n`);
  await rejectsWith(runTool(tool, [orders, lookup(wide)], { key: 'Cliente' }), 'invalid_option', { option: 'columns', params: { found: 1001 } });
  await rejectsWith(runTool(tool, [orders, lookup()], { key: 'Cliente', 'not-found-value': 'x'.repeat(1001) }), 'invalid_option', { option: 'not-found-value' });
});

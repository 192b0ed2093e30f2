import { test } from 'node:test';
import assert from 'node:assert/strict';
import tool from '../../../tools/merge-split/split-by-column.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { textOf, typedTitles } from '../../helpers/typed-titles.ts';
import { d, readXlsx } from '../../helpers/read-xlsx.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';

const ciudades = inputFile('c.csv', 'Id,Ciudad,Importe\n001,Madrid,1.5\n002,Sevilla,2\n003,Madrid,3\n004,,4\n005,Málaga,5\n');
const sheetRows = async (bytes: Uint8Array) => (await readXlsx(bytes))[0].rows;

test('split-by-column: one xlsx per value in first-seen order, empty cells in their own group, titles in each', async () => {
  const out = await runTool(tool, [ciudades], { column: 'ciudad ' });
  assert.deepEqual(out.files.map((f) => f.name), ['Madrid.xlsx', 'Sevilla.xlsx', 'vacío.xlsx', 'Málaga.xlsx']);
  assert.deepEqual(await sheetRows(out.files[0].bytes), [['Id', 'Ciudad', 'Importe'], ['001', 'Madrid', 1.5], ['003', 'Madrid', 3]]);
  assert.deepEqual(await sheetRows(out.files[2].bytes), [['Id', 'Ciudad', 'Importe'], ['004', null, 4]]);
  assert.deepEqual((await readXlsx(out.files[3].bytes))[0].name, 'Málaga');
  assert.equal(out.preview?.totalRows, 2);
  assert.deepEqual(out.messages, []);
});

test('split-by-column: a 1-based position when no title matches', async () => {
  const out = await runTool(tool, [ciudades], { column: '2' });
  assert.deepEqual(out.files.map((f) => f.name), ['Madrid.xlsx', 'Sevilla.xlsx', 'vacío.xlsx', 'Málaga.xlsx']);
});

test('split-by-column: a title that is a number wins over the position', async () => {
  const f = inputFile('n.csv', 'a,1\nx,p\ny,q\n');
  const out = await runTool(tool, [f], { column: '1', format: 'csv' });
  assert.deepEqual(out.files.map((x) => x.name), ['p.csv', 'q.csv']);
  const pos = await runTool(tool, [f], { column: '2', format: 'csv' });
  assert.deepEqual(pos.files.map((x) => x.name), ['p.csv', 'q.csv']);
});

test('split-by-column: include-column-in-name and keep-column false', async () => {
  const out = await runTool(tool, [ciudades], { column: 'Ciudad', 'include-column-in-name': true, 'keep-column': false });
  assert.deepEqual(out.files.map((f) => f.name), ['Ciudad-Madrid.xlsx', 'Ciudad-Sevilla.xlsx', 'Ciudad-vacío.xlsx', 'Ciudad-Málaga.xlsx']);
  assert.deepEqual(await sheetRows(out.files[0].bytes), [['Id', 'Importe'], ['001', 1.5], ['003', 3]]);
  assert.deepEqual(out.preview?.columns, ['Id', 'Importe']);
});

test('split-by-column: CSV to CSV keeps the text of every value exactly, and the input delimiter (tools.md §2.5)', async () => {
  const out = await runTool(tool, [fixture('latin1.csv')], { column: 'Ciudad', format: 'csv' });
  assert.deepEqual(out.files.map((f) => [f.name, textOf(f.bytes)]), [
    ['Málaga.csv', '\uFEFFAño;Ciudad;Importe\r\n2024;Málaga;1,5\r\n'],
    ['Cáceres.csv', '\uFEFFAño;Ciudad;Importe\r\n2023;Cáceres;-2,25\r\n'],
  ]);
});

test('split-by-column: workbook values keep their types; dates, numbers and booleans name groups plainly', async () => {
  const byDate = await runTool(tool, [fixture('ventas.xlsx')], { column: 'Fecha' });
  assert.deepEqual(byDate.files.map((f) => f.name), ['2024-01-15.xlsx', '2024-02-29T13_45_00.xlsx', '2023-12-31.xlsx', 'vacío.xlsx']);
  assert.deepEqual(await sheetRows(byDate.files[1].bytes), [
    ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas'],
    [d(2024, 2, 29, 13, 45), 'Ángela Ibáñez', '4111111111111111', -3, false, '+34 600 000 000'],
  ]);
  const byBool = await runTool(tool, [fixture('ventas.xlsx')], { column: 'Pagado', format: 'csv' });
  assert.deepEqual(byBool.files.map((f) => f.name), ['true.csv', 'false.csv', 'vacío.csv']);
  const byNumber = await runTool(tool, [fixture('ventas.xlsx')], { column: 'importe', format: 'csv' });
  assert.deepEqual(byNumber.files.map((f) => f.name), ['1250.5.csv', '-3.csv', '0.1.csv', '2501.csv']);
  const byText = await runTool(tool, [fixture('ventas.xlsx')], { column: 'Notas', format: 'csv' });
  assert.deepEqual(byText.files.map((f) => f.name), ['=SUM(A1).csv', '+34 600 000 000.csv', '@mención.csv', 'vacío.csv']);
  assert.equal(textOf(byText.files[0].bytes).split('\r\n')[1], '2024-01-15,Muñoz Peña,00123,1250.5,true,=SUM(A1)');
});

test('split-by-column: values that are not safe file names are sanitized and kept apart', async () => {
  const f = inputFile('s.csv', 'k,v\na/b,1\nMadrid,2\nmadrid,3\n../x,4\n');
  const out = await runTool(tool, [f], { column: 'k', format: 'csv' });
  assert.deepEqual(out.files.map((x) => x.name), ['a_b.csv', 'Madrid.csv', 'madrid (2).csv', 'x.csv']);
  assert.equal(textOf(out.files[2].bytes), '\uFEFFk,v\r\nmadrid,3\r\n');
});

test('split-by-column: names in English', async () => {
  const out = await runTool(tool, [ciudades], { column: 'Ciudad', format: 'csv', language: 'en' });
  assert.deepEqual(out.files.map((f) => f.name), ['Madrid.csv', 'Sevilla.csv', 'empty.csv', 'Málaga.csv']);
});

test('split-by-column: a column that does not exist is invalid_option, listing the titles', async () => {
  await rejectsWith(runTool(tool, [ciudades], { column: 'Provincia' }), 'invalid_option', {
    option: 'column',
    params: { option: 'column', received: 'Provincia', expected: 'el título de una columna ("Id", "Ciudad", "Importe") o su posición, de 1 a 3' },
  });
  await rejectsWith(runTool(tool, [ciudades], { column: '4', language: 'en' }), 'invalid_option', {
    option: 'column',
    params: { expected: 'a column title ("Id", "Ciudad", "Importe") or its position, 1 to 3' },
  });
  await rejectsWith(runTool(tool, [ciudades], { column: '0' }), 'invalid_option', { option: 'column' });
});

test('split-by-column: option and input errors', async () => {
  await rejectsWith(runTool(tool, [ciudades], {}), 'invalid_option', { option: 'column' });
  await rejectsWith(runTool(tool, [ciudades], { column: '' }), 'invalid_option', { option: 'column' });
  await rejectsWith(runTool(tool, [ciudades], { column: 2 }), 'invalid_option', { option: 'column' });
  await rejectsWith(runTool(tool, [ciudades], { column: 'Ciudad', 'keep-column': 'no' }), 'invalid_option', { option: 'keep-column' });
  await rejectsWith(runTool(tool, [ciudades], { column: 'Ciudad', 'has-header': false }), 'unknown_option', { option: 'has-header' });
  await rejectsWith(runTool(tool, [inputFile('c.pdf', 'x')], { column: 'x' }), 'unsupported_format', { option: 'file' });
});

test('split-by-column: a title row of numbers and dates keeps its types, also without the split column', async () => {
  const out = await runTool(tool, [await typedTitles()], { column: '2024', 'keep-column': false });
  assert.deepEqual(out.files.map((f) => f.name), ['1.xlsx', '3.xlsx']);
  assert.deepEqual((await readXlsx(out.files[0].bytes))[0].rows, [['Zona', d(2024, 1, 1)], ['Norte', 2]]);
});

// CSV to CSV copies records without a table (tools/formats/csv/write.ts): papaparse, a reader independent of
// our writer, reads the groups back, and every cell must be the input's.
import Papa from 'papaparse';

test('split-by-column: CSV to CSV keeps quoted newlines, quotes, delimiters, mixed line ends and ragged rows cell for cell', async () => {
  const cells = [
    ['id', 'grupo', 'texto'],
    ['1', 'a;b', 'línea 1\nlínea 2'],
    ['2', '"q"', 'dice "hola"'],
    ['3', 'a;b', ''],
    ['4', '', 'fin\r\nde línea', 'extra'],
    ['5', '"q"'],
  ];
  const field = (s: string, i: number) => (/[";\r\n]/.test(s) || i % 2 === 0 ? `"${s.replaceAll('"', '""')}"` : s);
  const text = '\uFEFF' + cells.map((r, i) => r.map(field).join(';') + ['\n', '\r\n', '\r'][i % 3]).join('');
  const read = (b: Uint8Array) => Papa.parse<string[]>(textOf(b).replace(/^\uFEFF/, ''), { delimiter: ';', newline: '\r\n' }).data.filter((r) => r.length > 1 || r[0] !== '');
  const pad = (r: string[]) => [...r, '', '', ''].slice(0, 4);
  const out = await runTool(tool, [inputFile('g.csv', text)], { column: 'grupo', format: 'csv' });
  assert.deepEqual(out.files.map((f) => f.name), ['a;b.csv', 'q_.csv', 'vacío.csv']);
  const title = pad(cells[0]);
  assert.deepEqual(out.files.map((f) => read(f.bytes)), [
    [title, pad(cells[1]), pad(cells[3])],
    [title, pad(cells[2]), pad(cells[5])],
    [title, pad(cells[4])],
  ]);
  const dropped = await runTool(tool, [inputFile('g.csv', text)], { column: 'grupo', format: 'csv', 'keep-column': false });
  const without = (r: string[]) => pad(r).filter((_, i) => i !== 1);
  assert.deepEqual(dropped.files.map((f) => read(f.bytes)), [
    [without(cells[0]), without(cells[1]), without(cells[3])],
    [without(cells[0]), without(cells[2]), without(cells[5])],
    [without(cells[0]), without(cells[4])],
  ]);
  assert.deepEqual(dropped.preview?.columns, ['id', 'texto', '']);
  assert.equal(dropped.preview?.totalRows, 2);
});

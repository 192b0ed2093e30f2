import { test } from 'node:test';
import assert from 'node:assert/strict';
import tool from '../../../tools/merge-split/split-rows.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { textOf, typedTitles } from '../../helpers/typed-titles.ts';
import { d, readXlsx } from '../../helpers/read-xlsx.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';

const csvRows = (n: number) => 'id,valor\n' + Array.from({ length: n }, (_, i) => `${i + 1},v${i + 1}\n`).join('');

test('split-rows: rows-per-file defaults to 1000; the last part holds the rest; titles in every part', async () => {
  const out = await runTool(tool, [inputFile('big.csv', csvRows(2500))]);
  assert.deepEqual(out.files.map((f) => f.name), ['parte-001.xlsx', 'parte-002.xlsx', 'parte-003.xlsx']);
  const parts = await Promise.all(out.files.map(async (f) => (await readXlsx(f.bytes))[0]));
  assert.deepEqual(parts.map((p) => p.rows.length), [1001, 1001, 501]);
  assert.deepEqual(parts.map((p) => p.rows[0]), [['id', 'valor'], ['id', 'valor'], ['id', 'valor']]);
  assert.deepEqual(parts[1].rows[1], [1001, 'v1001']);
  assert.deepEqual(parts[2].rows[500], [2500, 'v2500']);
  assert.deepEqual(parts.map((p) => p.name), ['parte-001', 'parte-002', 'parte-003']);
  assert.equal(out.preview?.totalRows, 1000);
});

test('split-rows: an xlsx keeps every cell and type across parts', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')], { 'rows-per-file': 3 });
  assert.deepEqual(out.files.map((f) => f.name), ['parte-001.xlsx', 'parte-002.xlsx']);
  const title = ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas'];
  assert.deepEqual((await readXlsx(out.files[0].bytes))[0].rows, [
    title,
    [d(2024, 1, 15), 'Muñoz Peña', '00123', 1250.5, true, '=SUM(A1)'],
    [d(2024, 2, 29, 13, 45), 'Ángela Ibáñez', '4111111111111111', -3, false, '+34 600 000 000'],
    [d(2023, 12, 31), 'Çedille & Co', '007', 0.1, true, '@mención'],
  ]);
  assert.deepEqual((await readXlsx(out.files[1].bytes))[0].rows, [title, [null, 'Total', null, 2501, null, null]]);
});

test('split-rows: repeat-header false puts the titles in the first part only', async () => {
  const out = await runTool(tool, [inputFile('t.csv', csvRows(3))], { 'rows-per-file': 2, 'repeat-header': false, format: 'csv' });
  assert.deepEqual(out.files.map((f) => textOf(f.bytes)), ['\uFEFFid,valor\r\n1,v1\r\n2,v2\r\n', '\uFEFF3,v3\r\n']);
});

test('split-rows: has-header false counts the first row as data', async () => {
  const out = await runTool(tool, [inputFile('t.csv', csvRows(3))], { 'rows-per-file': 2, 'has-header': false, format: 'csv' });
  assert.deepEqual(out.files.map((f) => textOf(f.bytes)), ['\uFEFFid,valor\r\n1,v1\r\n', '\uFEFF2,v2\r\n3,v3\r\n']);
});

test('split-rows: CSV to CSV keeps every value\'s text exactly (decimal commas, dates, ids, quotes, newlines)', async () => {
  const out = await runTool(tool, [fixture('semicolon.csv')], { 'rows-per-file': 1, format: 'csv' });
  assert.deepEqual(out.files.map((f) => [f.name, textOf(f.bytes)]), [
    // The input's semicolon is kept (tools.md §2.5): a Spanish CSV stays one Spanish Excel opens.
    ['parte-001.csv', '\uFEFFid;nombre;nota;importe;fecha\r\n00123;"Pérez; Juan";"línea 1\nlínea 2";1,5;2024-01-31\r\n'],
    ['parte-002.csv', '\uFEFFid;nombre;nota;importe;fecha\r\n0042;Zoë;"dice ""hola""";10;31/12/2023\r\n'],
  ]);
  const latin = await runTool(tool, [fixture('latin1.csv')], { format: 'csv' });
  assert.equal(textOf(latin.files[0].bytes), '\uFEFFAño;Ciudad;Importe\r\n2024;Málaga;1,5\r\n2023;Cáceres;-2,25\r\n');
  assert.deepEqual(latin.messages.map((m) => m.level), ['info']);
});

test('split-rows: CSV to xlsx types the values; xlsx to CSV writes them plainly', async () => {
  const toXlsx = await runTool(tool, [fixture('semicolon.csv')]);
  assert.deepEqual((await readXlsx(toXlsx.files[0].bytes))[0].rows, [
    ['id', 'nombre', 'nota', 'importe', 'fecha'],
    ['00123', 'Pérez; Juan', 'línea 1\nlínea 2', 1.5, d(2024, 1, 31)],
    ['0042', 'Zoë', 'dice "hola"', 10, d(2023, 12, 31)],
  ]);
  const toCsv = await runTool(tool, [fixture('ventas.xls')], { format: 'csv' });
  assert.equal(textOf(toCsv.files[0].bytes), '\uFEFFFecha,Ciudad,Código,Activo\r\n2024-01-15,Córdoba,00123,true\r\n2024-02-15T12:00:00,Logroño,42,false\r\n');
  assert.match(toCsv.messages[0].text, /«ventas\.xls».*"Otra"/);
});

test('split-rows: part numbers grow past three digits when needed', async () => {
  const out = await runTool(tool, [inputFile('t.csv', csvRows(1001))], { 'rows-per-file': 1, format: 'csv' });
  assert.equal(out.files.length, 1001);
  assert.equal(out.files[0].name, 'parte-0001.csv');
  assert.equal(out.files[1000].name, 'parte-1001.csv');
});

test('split-rows: a table without data rows gives one part with the titles', async () => {
  const out = await runTool(tool, [inputFile('t.csv', 'a,b\n')], { format: 'csv', language: 'en' });
  assert.deepEqual(out.files.map((f) => [f.name, textOf(f.bytes)]), [['part-001.csv', '\uFEFFa,b\r\n']]);
});

test('split-rows: names in English', async () => {
  const out = await runTool(tool, [inputFile('t.csv', csvRows(3))], { 'rows-per-file': 2, language: 'en' });
  assert.deepEqual(out.files.map((f) => f.name), ['part-001.xlsx', 'part-002.xlsx']);
});

test('split-rows: rows-per-file bounds and option errors', async () => {
  const f = inputFile('t.csv', csvRows(3));
  for (const bad of [0, -1, 1_000_001, 1.5, '10', null]) {
    await rejectsWith(runTool(tool, [f], { 'rows-per-file': bad }), 'invalid_option', { option: 'rows-per-file' });
  }
  const ok = await runTool(tool, [f], { 'rows-per-file': 1_000_000, format: 'csv' });
  assert.equal(ok.files.length, 1);
  await rejectsWith(runTool(tool, [f], { format: 'xls' }), 'invalid_option', { option: 'format' });
  await rejectsWith(runTool(tool, [f], { 'repeat-header': 'true' }), 'invalid_option', { option: 'repeat-header' });
  await rejectsWith(runTool(tool, [f], { rows: 10 }), 'unknown_option', { option: 'rows' });
  await rejectsWith(runTool(tool, [inputFile('t.json', '{}')]), 'unsupported_format', { option: 'file' });
  await rejectsWith(runTool(tool, [f, f]), 'too_many_files', { option: 'file' });
});

test('split-rows: a title row of numbers and dates keeps its types in every part', async () => {
  const out = await runTool(tool, [await typedTitles()], { 'rows-per-file': 1 });
  const parts = await Promise.all(out.files.map(async (f) => (await readXlsx(f.bytes))[0].rows));
  assert.deepEqual(parts, [
    [['Zona', 2024, d(2024, 1, 1)], ['Norte', 1, 2]],
    [['Zona', 2024, d(2024, 1, 1)], ['Sur', 3, 4]],
  ]);
});

// CSV to CSV copies records without a table (tools/formats/csv/write.ts): papaparse, a reader independent of
// our writer, reads the parts back, and every cell must be the input's, rows padded to the widest.
import Papa from 'papaparse';

const hardCells = [
  ['id', 'texto', 'nota'],
  ['1', 'línea 1\nlínea 2', 'dice "hola"'],
  ['2', 'a,b', ''],
  ['3', 'fin\r\nde línea'],
  ['', '', ''],
  ['5', '"', 'x"y', 'extra'],
  ['6', ' espacios ', '€😀'],
];
/** The cells as a CSV with a BOM, mixed CR/LF/CRLF line ends, needed quotes and a few needless ones. */
function hardCsv(delim: string): string {
  const field = (s: string, i: number) => (/[",;\r\n]/.test(s) || s.includes(delim) || i % 3 === 0 ? `"${s.replaceAll('"', '""')}"` : s);
  return '\uFEFF' + hardCells.map((r, i) => r.map(field).join(delim) + ['\n', '\r\n', '\r'][i % 3]).join('');
}
const papaRows = (bytes: Uint8Array, delimiter: string) => Papa.parse<string[]>(textOf(bytes).replace(/^\uFEFF/, ''), { delimiter, newline: '\r\n' }).data.filter((r) => r.length > 1 || r[0] !== '');
const padded = (rows: string[][]) => rows.map((r) => [...r, '', '', '', ''].slice(0, 4));

test('split-rows: CSV to CSV keeps quoted newlines, quotes, delimiters, mixed line ends and ragged rows cell for cell', async () => {
  for (const delim of [',', ';']) {
    const out = await runTool(tool, [inputFile('duro.csv', hardCsv(delim))], { 'rows-per-file': 2, format: 'csv' });
    assert.equal(out.files.length, 3);
    const parts = out.files.map((f) => papaRows(f.bytes, delim));
    const [title, ...data] = padded(hardCells);
    assert.deepEqual(parts, [[title, ...data.slice(0, 2)], [title, ...data.slice(2, 4)], [title, ...data.slice(4)]]);
    assert.equal(out.preview?.totalRows, 2);
    assert.deepEqual(out.preview?.rows[0], ['1', 'línea 1\nlínea 2', 'dice "hola"', null]);
    assert.deepEqual(out.messages.map((m) => m.level), ['warning']);
  }
});

// excel-to-json: exact bytes against golden files in test/golden/excel-to-json/ (each read and checked by hand),
// JSON.parse of every result, and the layout compared with what JSON.stringify writes for the parsed value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import tool from '../../../tools/convert/excel-to-json.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { d } from '../../helpers/read-xlsx.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { textOf } from '../../helpers/typed-titles.ts';
import { golden } from '../../helpers/golden.ts';


const matchesGolden = golden('excel-to-json');

/** The parsed result, after checking that the text is exactly JSON.stringify's layout of it (and no BOM). */
function json(bytes: Uint8Array, pretty: boolean): unknown {
  const text = textOf(bytes);
  const value = JSON.parse(text);
  assert.equal(text, JSON.stringify(value, null, pretty ? 2 : undefined) + '\n');
  return value;
}

async function workbook(name: string, rows: unknown[][]): Promise<ReturnType<typeof inputFile>> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Hoja1');
  for (const r of rows) ws.addRow(r);
  ws.eachRow((row) =>
    row.eachCell((cell) => {
      if (cell.value instanceof Date) cell.numFmt = cell.value.getUTCFullYear() === 1899 ? 'hh:mm' : 'dd/mm/yyyy hh:mm';
    }),
  );
  return inputFile(name, new Uint8Array(await wb.xlsx.writeBuffer()));
}

const VENTAS = [
  { Fecha: '2024-01-15', Cliente: 'Muñoz Peña', Código: '00123', Importe: 1250.5, Pagado: true, Notas: '=SUM(A1)' },
  { Fecha: '2024-02-29T13:45:00', Cliente: 'Ángela Ibáñez', Código: '4111111111111111', Importe: -3, Pagado: false, Notas: '+34 600 000 000' },
  { Fecha: '2023-12-31', Cliente: 'Çedille & Co', Código: '007', Importe: 0.1, Pagado: true, Notas: '@mención' },
  { Fecha: null, Cliente: 'Total', Código: null, Importe: 2501, Pagado: null, Notas: null },
];

test('excel-to-json: defaults give pretty objects keyed by the titles; numbers, booleans, ISO dates, nulls', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')]);
  assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['ventas.json', 'application/json; charset=utf-8']]);
  matchesGolden('ventas.json', out.files[0].bytes);
  assert.deepEqual(json(out.files[0].bytes, true), VENTAS);
  assert.ok(out.textPreview?.startsWith('[\n  {\n    "Fecha": "2024-01-15",'));
  assert.equal(out.preview?.totalRows, 4);
  assert.deepEqual(out.messages, [{ level: 'info', text: 'Hoja «Ventas» → «ventas.json»: 4 objeto(s) con 6 propiedad(es).' }]);
});

test('excel-to-json: pretty=false is compact, on one line', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')], { pretty: false });
  matchesGolden('ventas-compact.json', out.files[0].bytes);
  assert.deepEqual(json(out.files[0].bytes, false), VENTAS);
  assert.equal(textOf(out.files[0].bytes).split('\n').length, 2);
});

test('excel-to-json: shape=arrays is a list of lists, the titles row first', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')], { shape: 'arrays' });
  matchesGolden('ventas-arrays.json', out.files[0].bytes);
  const rows = json(out.files[0].bytes, true) as unknown[][];
  assert.deepEqual(rows[0], ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas']);
  assert.deepEqual(rows.slice(1), VENTAS.map((o) => Object.values(o)));
  assert.match(out.messages[0].text, /4 fila\(s\) de datos de 6 valor\(es\)/);
});

test('excel-to-json: shape=arrays with has-header=false has no titles row', async () => {
  const out = await runTool(tool, [fixture('ventas.csv')], { shape: 'arrays', 'has-header': false, pretty: false });
  matchesGolden('ventas-csv-arrays-no-header.json', out.files[0].bytes);
  assert.deepEqual(json(out.files[0].bytes, false), [
    ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas'],
    ['2024-03-10', 'Íñigo', '000789', 12.5, false, '=1+1'],
    ['2024-03-11', 'Ana', 15, 7, true, null],
  ]);
});

test('excel-to-json: skip-empty-values leaves out the keys of empty cells', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')], { 'skip-empty-values': true });
  matchesGolden('ventas-skip-empty.json', out.files[0].bytes);
  const objects = json(out.files[0].bytes, true) as Record<string, unknown>[];
  assert.deepEqual(objects[3], { Cliente: 'Total', Importe: 2501 });
  assert.deepEqual(objects.slice(0, 3), VENTAS.slice(0, 3));
});

test('excel-to-json: skip-empty-values keeps the nulls of lists (positions), and says so', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')], { 'skip-empty-values': true, shape: 'arrays', pretty: false });
  const rows = json(out.files[0].bytes, false) as unknown[][];
  assert.deepEqual(rows[4], [null, 'Total', null, 2501, null, null]);
  assert.equal(out.messages[0].level, 'info');
  assert.match(out.messages[0].text, /solo se aplica con shape=objects/);
});

test('excel-to-json: a CSV is typed by the detect-types rules: ids and long digits stay strings', async () => {
  const out = await runTool(tool, [inputFile('t.csv', 'id;importe;fecha;ok;tel\n00123;1,5;31/12/2023;verdadero;+34 600 000 000\n1234567890123456;-2;2024-01-31 08:30;FALSO;\n')]);
  matchesGolden('tipos-csv.json', out.files[0].bytes);
  assert.deepEqual(json(out.files[0].bytes, true), [
    { id: '00123', importe: 1.5, fecha: '2023-12-31', ok: true, tel: '+34 600 000 000' },
    { id: '1234567890123456', importe: -2, fecha: '2024-01-31T08:30:00', ok: false, tel: null },
  ]);
});

test('excel-to-json: has-header=false names the keys Columna N (Column N in English)', async () => {
  const es = await runTool(tool, [fixture('ventas.xls')], { 'has-header': false, pretty: false });
  const objects = json(es.files[0].bytes, false) as Record<string, unknown>[];
  assert.deepEqual(Object.keys(objects[0]), ['Columna 1', 'Columna 2', 'Columna 3', 'Columna 4']);
  assert.deepEqual(objects[1], { 'Columna 1': '2024-01-15', 'Columna 2': 'Córdoba', 'Columna 3': '00123', 'Columna 4': true });
  const en = await runTool(tool, [fixture('ventas.xls')], { 'has-header': false, pretty: false, language: 'en' });
  matchesGolden('ventas-xls-no-header-en.json', en.files[0].bytes);
  assert.deepEqual(Object.keys((json(en.files[0].bytes, false) as object[])[0]), ['Column 1', 'Column 2', 'Column 3', 'Column 4']);
  assert.match(en.messages.at(-1)!.text, /^Sheet "Ciudades" → "ventas\.json": 3 object\(s\) with 4 key\(s\)\.$/);
  assert.match(en.messages[0].text, /^Only the first sheet/);
});

test('excel-to-json: empty titles are generated and repeated ones get _2, _3, with an info message', async () => {
  const input = await workbook('dup.xlsx', [
    ['Total', 'total', 'Total', null, 'Columna 4', 'Total'],
    [1, 2, 3, 4, 5, 6],
  ]);
  const out = await runTool(tool, [input], { pretty: false });
  const [first] = json(out.files[0].bytes, false) as Record<string, unknown>[];
  assert.deepEqual(Object.entries(first), [
    ['Total', 1],
    ['total', 2],
    ['Total_2', 3],
    ['Columna 4', 4],
    ['Columna 4_2', 5],
    ['Total_3', 6],
  ]);
  assert.equal(out.messages[0].text, 'Hay títulos repetidos; para que cada propiedad sea única, sus repeticiones llevan _2, _3…: "Total", "Columna 4".');
});

test('excel-to-json: __proto__, constructor and prototype are ordinary keys, and Object.prototype is untouched', async () => {
  const before = Object.getOwnPropertyNames(Object.prototype).sort();
  const input = await workbook('proto.xlsx', [
    ['__proto__', 'constructor', 'prototype', 'toString'],
    ['{"polluted":true}', 'x', 'y', 'z'],
  ]);
  const out = await runTool(tool, [input], { pretty: false });
  assert.equal(textOf(out.files[0].bytes), '[{"__proto__":"{\\"polluted\\":true}","constructor":"x","prototype":"y","toString":"z"}]\n');
  const [obj] = JSON.parse(textOf(out.files[0].bytes)) as Record<string, unknown>[];
  assert.ok(Object.hasOwn(obj, '__proto__'));
  assert.equal(Object.getPrototypeOf(obj), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('excel-to-json: times, date-times and text escapes', async () => {
  const input = await workbook('esc.xlsx', [
    ['Hora', 'Momento', 'Texto'],
    [d(1899, 12, 30, 7, 5), d(2024, 6, 1, 23, 59), 'comillas " barra \\ salto\nfin\ttab'],
  ]);
  const out = await runTool(tool, [input]);
  matchesGolden('escapes.json', out.files[0].bytes);
  assert.deepEqual(json(out.files[0].bytes, true), [{ Hora: '07:05:00', Momento: '2024-06-01T23:59:00', Texto: 'comillas " barra \\ salto\nfin\ttab' }]);
});

test('excel-to-json: a sheet with titles and no rows gives an empty list; an empty workbook is invalid_file', async () => {
  const titlesOnly = await runTool(tool, [inputFile('t.csv', 'a,b\n')]);
  assert.equal(textOf(titlesOnly.files[0].bytes), '[]\n');
  await rejectsWith(runTool(tool, [await workbook('vacio.xlsx', [])]), 'invalid_file', { option: 'file' });
});

test('excel-to-json: refuses other formats and options outside their set', async () => {
  await rejectsWith(runTool(tool, [inputFile('x.json', '[]')]), 'unsupported_format', { option: 'file' });
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { shape: 'rows' }), 'invalid_option', { option: 'shape' });
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { pretty: 2 }), 'invalid_option', { option: 'pretty' });
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { 'skip-empty': true }), 'unknown_option', { option: 'skip-empty' });
});

// A CSV is written from its records one at a time (no table): the values must be the typed table's, with
// JSON.stringify's escapes, in every layout.
import { readCsv } from '../../../tools/formats/csv/read.ts';
import { csvText } from '../../../tools/formats/csv/write.ts';

test('excel-to-json: a CSV gives the typed table as JSON.stringify writes it (escapes, dates, ragged rows, every layout)', async () => {
  const text =
    'id;texto;fecha;importe;ok\n' +
    '1;"comillas "" barra \\ tab\t";2024-02-29;1,5;verdadero\r\n' +
    '2;"control \u0001 y \u2028 y 😀";31/12/2023 10:30;-0,25;FALSE\r' +
    '3;"salto\nde línea";1899-12-30 07:05;00123\n' +
    ';;;;\n' +
    '5;__proto__;;12345678901234567;x;extra\n';
  const file = inputFile('t.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]));
  const { table } = readCsv(file, { hasHeader: true, detectTypes: true });
  const plain = (c: unknown) => (c instanceof Date ? csvText(c) : c);
  const width = table.header!.length;
  const keys = table.header!.map((t, i) => t || `Columna ${i + 1}`);
  for (const pretty of [true, false]) {
    const arrays = await runTool(tool, [file], { shape: 'arrays', pretty });
    assert.deepEqual(json(arrays.files[0].bytes, pretty), [table.header, ...table.rows.map((r) => r.map(plain))]);
    for (const skip of [false, true]) {
      const objects = await runTool(tool, [file], { pretty, 'skip-empty-values': skip });
      const expected = table.rows.map((r) => {
        const o: Record<string, unknown> = {};
        for (let i = 0; i < width; i++) if (r[i] !== null || !skip) Object.defineProperty(o, keys[i], { value: plain(r[i]), enumerable: true });
        return o;
      });
      assert.deepEqual(textOf(objects.files[0].bytes), JSON.stringify(expected, null, pretty ? 2 : undefined) + '\n');
      assert.equal(objects.preview?.totalRows, 5);
      assert.deepEqual(objects.messages.map((m) => m.level), ['warning', 'info']);
    }
  }
});

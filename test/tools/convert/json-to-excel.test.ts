// json-to-excel: xlsx results read back with exceljs (cell types included), CSV results against golden files in
// test/golden/json-to-excel/ (each read and checked by hand); every refusal asserts its code, option and the
// location it names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import tool from '../../../tools/convert/json-to-excel.ts';
import { execute } from '../../../tools/core/execute.ts';
import type { AnyTool } from '../../../tools/core/define.ts';
import { errorBody } from '../../../tools/core/wire.ts';
import type { ToolError } from '../../../tools/core/errors.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { readXlsx } from '../../helpers/read-xlsx.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { textOf } from '../../helpers/typed-titles.ts';
import { golden } from '../../helpers/golden.ts';


const matchesGolden = golden('json-to-excel');

const json = (name: string, value: unknown) => inputFile(name, JSON.stringify(value, null, 2));

async function sheetOf(out: { files: { bytes: Uint8Array }[] }) {
  const sheets = await readXlsx(out.files[0].bytes);
  assert.equal(sheets.length, 1);
  return sheets[0];
}

/** The localized message of a refusal, as the caller would read it. */
async function refusal(p: Promise<unknown>, lang: 'es' | 'en' = 'es'): Promise<{ code: string; option: string | null; message: string }> {
  try {
    await p;
  } catch (err) {
    const body = errorBody(err as ToolError, lang);
    return { code: body.error, option: body.option, message: body.message };
  }
  throw new Error('expected a refusal');
}

const CLIENTES = [
  { id: '00123', nombre: 'Muñoz Peña', alta: '2024-01-15', saldo: 1250.5, activo: true, dirección: { ciudad: 'Málaga', cp: '29001' } },
  { id: '4111111111111111', nombre: 'Ángela', saldo: -3, activo: false, etiquetas: ['vip', 2], nota: '=SUM(A1)', extra: null },
  { nombre: 'Sin id', dirección: { ciudad: 'Cádiz', geo: { lat: 36.5, lon: -6.3 } }, vacío: {}, texto: 'true', lista: ['', null, 'x'], blanco: '' },
];

test('json-to-excel: one row per object, the union of keys in first-seen order, nested objects flattened', async () => {
  const out = await runTool(tool, [json('clientes.json', CLIENTES)]);
  assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['clientes.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']]);
  const sheet = await sheetOf(out);
  assert.equal(sheet.name, 'clientes');
  assert.deepEqual(sheet.rows, [
    ['id', 'nombre', 'alta', 'saldo', 'activo', 'dirección.ciudad', 'dirección.cp', 'etiquetas', 'nota', 'extra', 'dirección.geo.lat', 'dirección.geo.lon', 'vacío', 'texto', 'lista', 'blanco'],
    ['00123', 'Muñoz Peña', '2024-01-15', 1250.5, true, 'Málaga', '29001', null, null, null, null, null, null, null, null, null],
    ['4111111111111111', 'Ángela', null, -3, false, null, null, '["vip",2]', '=SUM(A1)', null, null, null, null, null, null, null],
    [null, 'Sin id', null, null, null, 'Cádiz', null, null, null, null, 36.5, -6.3, '{}', 'true', '["",null,"x"]', null],
  ]);
  // Strings stay text: no date, number or boolean is guessed from them.
  assert.equal(sheet.formats[1][2], 'General');
  assert.deepEqual(out.messages.map((m) => m.level), ['info', 'info']);
  assert.equal(out.messages[0].text, '3 valor(es) que son listas u objetos vacíos se han escrito como texto JSON (el primero: elemento 2, «etiquetas»).');
  assert.equal(out.messages[1].text, '«clientes.json» → «clientes.xlsx»: 3 fila(s) (una por objeto) y 16 columna(s).');
  assert.equal(out.preview?.totalRows, 3);
});

test('json-to-excel: format=csv writes the same table as excel-to-csv would (BOM, comma, CRLF, quoting)', async () => {
  const out = await runTool(tool, [json('clientes.json', CLIENTES)], { format: 'csv' });
  assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['clientes.csv', 'text/csv; charset=utf-8']]);
  matchesGolden('clientes.csv', out.files[0].bytes);
  assert.ok(out.textPreview?.startsWith('id,nombre,alta,'));
});

test('json-to-excel: sheet-name names the sheet, made valid for Excel with a message; empty means the file name', async () => {
  const named = await runTool(tool, [json('c.json', [{ a: 1 }])], { 'sheet-name': 'Clientes 2024' });
  assert.equal((await sheetOf(named)).name, 'Clientes 2024');
  const fixed = await runTool(tool, [json('c.json', [{ a: 1 }])], { 'sheet-name': "'a*b?'", language: 'en' });
  assert.equal((await sheetOf(fixed)).name, 'a_b_');
  assert.equal(fixed.messages[0].text, 'The sheet of "c.json" is named "a_b_" instead of "\'a*b?\'": Excel does not accept that name or it was already taken.');
  const fallback = await runTool(tool, [json("''.json", [{ a: 1 }])], { language: 'en' });
  assert.equal((await sheetOf(fallback)).name, 'Sheet');
});

test('json-to-excel: __proto__, constructor and prototype are plain columns and pollute nothing', async () => {
  const before = Object.getOwnPropertyNames(Object.prototype).sort();
  const text = '[{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": 1}}, "prototype": "p"}, {"__proto__": 5}]';
  const out = await runTool(tool, [inputFile('proto.json', text)]);
  assert.deepEqual((await sheetOf(out)).rows, [
    ['__proto__.polluted', 'constructor.prototype.polluted', 'prototype', '__proto__'],
    [true, 1, 'p', null],
    [null, null, null, 5],
  ]);
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('json-to-excel: numbers a double cannot hold exactly are kept as text, with a warning', async () => {
  const text = '[{"tarjeta": 4111111111111111111, "pi": 3.141592653589793, "grande": 1e400, "e": 1.5E3, "cero": -0, "2^53": 9007199254740992, "2^53+1": 9007199254740993}]';
  const out = await runTool(tool, [inputFile('n.json', text)]);
  assert.deepEqual((await sheetOf(out)).rows[1], ['4111111111111111111', 3.141592653589793, '1e400', 1500, 0, 9007199254740992, '9007199254740993']);
  assert.equal(out.messages[0].level, 'warning');
  assert.match(out.messages[0].text, /^3 número\(s\).*elemento 1, «tarjeta»: 4111111111111111111\)\.$/);
});

test('json-to-excel: a repeated property keeps its last value, with a warning; equal dotted names get (2)', async () => {
  const out = await runTool(tool, [inputFile('d.json', '[{"a": 1, "a": 2}, {"b.c": 3, "b": {"c": 4}}]')], { format: 'csv' });
  assert.equal(textOf(out.files[0].bytes), '\uFEFFa,b.c,b.c (2)\r\n2,,\r\n,3,4\r\n');
  assert.deepEqual(out.messages.map((m) => [m.level, m.text]), [
    ['warning', 'En «d.json», 1 objeto(s) repiten una propiedad; se ha usado su último valor (el primero: elemento 1, «a»).'],
    ['info', 'Varias propiedades dan el mismo nombre de columna; las repeticiones llevan « (2)», « (3)»…: "b.c".'],
    ['info', '«d.json» → «d.csv»: 2 fila(s) (una por objeto) y 3 columna(s).'],
  ]);
});

test('json-to-excel: the text encoding is detected: UTF-8 with a BOM, UTF-16 with a BOM, Windows-1252', async () => {
  const text = '[{"ciudad": "Málaga", "precio": "5€"}]';
  const inputs = [
    inputFile('bom.json', new Uint8Array(Buffer.from('\uFEFF' + text, 'utf8'))),
    inputFile('u16.json', new Uint8Array(Buffer.from('\uFEFF' + text, 'utf16le'))),
    inputFile('cp.json', new Uint8Array([...Buffer.from(text.replace('€', '\u0000'), 'latin1')].map((b) => (b === 0 ? 0x80 : b)))),
  ];
  for (const input of inputs) {
    const out = await runTool(tool, [input]);
    assert.deepEqual((await sheetOf(out)).rows[1], ['Málaga', '5€'], input.name);
  }
});

test('json-to-excel: anything but a list of objects is invalid_file with a precise message', async () => {
  const cases: [string, string][] = [
    ['{"datos": [{"a": 1}]}', 'El archivo «x.json» debe contener una lista de objetos ([{…}, {…}]), pero contiene un objeto.'],
    ['"texto"', 'El archivo «x.json» debe contener una lista de objetos ([{…}, {…}]), pero contiene un texto.'],
    ['42', 'El archivo «x.json» debe contener una lista de objetos ([{…}, {…}]), pero contiene un número.'],
    ['[{"a": 1},\n 7]', 'El elemento 2 de la lista de «x.json» (línea 2) es un número, no un objeto: cada elemento debe ser un objeto {…} con las columnas de una fila.'],
    ['[{"a": 1}, [1, 2]]', 'El elemento 2 de la lista de «x.json» (línea 1) es una lista, no un objeto: cada elemento debe ser un objeto {…} con las columnas de una fila.'],
    ['[null]', 'El elemento 1 de la lista de «x.json» (línea 1) es null, no un objeto: cada elemento debe ser un objeto {…} con las columnas de una fila.'],
    ['[\n  {"a": 1},\n  {"a": 2,}\n]', 'El archivo «x.json» no es JSON válido: error de sintaxis en la línea 3, columna 11 (se encontró "}").'],
    ['[{"a": tru}]', 'El archivo «x.json» no es JSON válido: error de sintaxis en la línea 1, columna 8 (se encontró "t").'],
    ['[{"a": "sin cerrar}]', 'El archivo «x.json» no es JSON válido: error de sintaxis en la línea 1, columna 21 (se encontró el final del archivo).'],
    ['[{"a": 01}]', 'El archivo «x.json» no es JSON válido: error de sintaxis en la línea 1, columna 9 (se encontró "1").'],
    ["[{'a': 1}]", 'El archivo «x.json» no es JSON válido: error de sintaxis en la línea 1, columna 3 (se encontró "\'").'],
    ['[{"a": 1}] []', 'El archivo «x.json» no es JSON válido: error de sintaxis en la línea 1, columna 12 (se encontró "[").'],
    ['   \n ', 'El archivo «x.json» está vacío: no contiene ninguna fila de datos.'],
    ['[]', 'El archivo «x.json» está vacío: no contiene ninguna fila de datos.'],
    ['[{}, {}]', 'El archivo «x.json» está vacío: no contiene ninguna fila de datos.'],
  ];
  for (const [text, message] of cases) {
    assert.deepEqual(await refusal(runTool(tool, [inputFile('x.json', text)])), { code: 'invalid_file', option: 'file', message }, text);
  }
  assert.deepEqual(await refusal(runTool(tool, [inputFile('x.json', '[1]')], { language: 'en' }), 'en'), {
    code: 'invalid_file',
    option: 'file',
    message: 'Item 1 of the list in "x.json" (line 1) is a number, not an object: every item must be an object {…} holding the columns of one row.',
  });
  await rejectsWith(runTool(tool, [inputFile('bin.json', new Uint8Array([0x5b, 0x7b, 0x00, 0x7d, 0x5d]))]), 'invalid_file', { option: 'file' });
});

test('json-to-excel: nesting is bounded at 256 levels, without recursion on deeper input', async () => {
  const nested = (levels: number) => '[' + '{"a":'.repeat(levels - 1) + '1' + '}'.repeat(levels - 1) + ']';
  const ok = await runTool(tool, [inputFile('deep.json', nested(256))], { format: 'csv' });
  assert.equal(textOf(ok.files[0].bytes).split('\r\n')[0], '\uFEFF' + Array(255).fill('a').join('.'));
  // Level 257 is the 256th `{`, at column 1 + 1 + 5 × 255 = 1277.
  const tooDeep = await refusal(runTool(tool, [inputFile('deep.json', nested(257))]));
  assert.deepEqual(tooDeep, { code: 'invalid_file', option: 'file', message: 'El archivo «deep.json» anida más de 256 niveles de listas u objetos (línea 1, columna 1277).' });
  const huge = await refusal(runTool(tool, [inputFile('huge.json', '['.repeat(1_000_000))]));
  assert.equal(huge.code, 'invalid_file');
  assert.match(huge.message, /más de 256 niveles/);
});

test('json-to-excel: a table past MAX_CELLS (rows × columns) is too_complex, before it is written', async () => {
  const rows = Array.from({ length: 30 }, (_, i) => ({ [`k${i}`]: i }));
  const run = (maxCells: number) =>
    execute(tool as unknown as AnyTool, [json('m.json', rows)], { format: 'csv', 'sheet-name': '' }, { lang: 'es', download: false, limits: { maxCells, pdfMaxRows: 1 } });
  await rejectsWith(run(29 * 30), 'too_complex');
  await rejectsWith(run(20), 'too_complex');
  const fits = await run(30 * 30);
  assert.equal(textOf(fits.files[0].bytes).split('\r\n').length, 32);
});

test('json-to-excel: refuses other formats and options outside their set', async () => {
  await rejectsWith(runTool(tool, [inputFile('x.csv', 'a\n1\n')]), 'unsupported_format', { option: 'file' });
  await rejectsWith(runTool(tool, [json('x.json', [{ a: 1 }])], { format: 'ods' }), 'invalid_option', { option: 'format' });
  await rejectsWith(runTool(tool, [json('x.json', [{ a: 1 }])], { 'sheet-name': 3 }), 'invalid_option', { option: 'sheet-name' });
  await rejectsWith(runTool(tool, [json('x.json', [{ a: 1 }])], { shape: 'objects' }), 'unknown_option', { option: 'shape' });
});

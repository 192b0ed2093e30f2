// csv-to-excel: every result is read back with exceljs (not the SheetJS the service reads with), cell types
// included: a date is a Date with a date format, `00123` a string, a number a number.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tool from '../../../tools/convert/csv-to-excel.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { d, readXlsx } from '../../helpers/read-xlsx.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';

async function sheetOf(out: { files: { bytes: Uint8Array }[] }) {
  const sheets = await readXlsx(out.files[0].bytes);
  assert.equal(sheets.length, 1);
  return sheets[0];
}

const utf16 = (text: string, order: 'le' | 'be') => {
  const le = Buffer.from('\uFEFF' + text, 'utf16le');
  return new Uint8Array(order === 'le' ? le : Buffer.from(le).swap16());
};

test('csv-to-excel: a semicolon file with a BOM, decimal commas, quoted newlines and both date forms', async () => {
  const out = await runTool(tool, [fixture('semicolon.csv')]);
  assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['semicolon.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']]);
  const sheet = await sheetOf(out);
  assert.equal(sheet.name, 'semicolon');
  assert.deepEqual(sheet.rows, [
    ['id', 'nombre', 'nota', 'importe', 'fecha'],
    ['00123', 'Pérez; Juan', 'línea 1\nlínea 2', 1.5, d(2024, 1, 31)],
    ['0042', 'Zoë', 'dice "hola"', 10, d(2023, 12, 31)],
  ]);
  assert.deepEqual(sheet.formats[1], ['General', 'General', 'General', 'General', 'yyyy-mm-dd']);
  assert.deepEqual(out.messages, [
    { level: 'info', text: '«semicolon.csv» (UTF-8, delimitador: punto y coma (;)) → hoja «semicolon»: 2 fila(s) de datos y 5 columna(s).' },
  ]);
  assert.deepEqual(out.preview?.columns, ['id', 'nombre', 'nota', 'importe', 'fecha']);
});

test('csv-to-excel: UTF-8 without BOM, comma: ids stay text, formula-looking text stays text, booleans typed', async () => {
  const sheet = await sheetOf(await runTool(tool, [fixture('ventas.csv')]));
  assert.deepEqual(sheet.rows, [
    ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas'],
    [d(2024, 3, 10), 'Íñigo', '000789', 12.5, false, '=1+1'],
    [d(2024, 3, 11), 'Ana', 15, 7, true, null],
  ]);
});

test('csv-to-excel: Windows-1252 from a Spanish Excel is detected, and said', async () => {
  const out = await runTool(tool, [fixture('latin1.csv')], { language: 'en' });
  assert.deepEqual((await sheetOf(out)).rows, [
    ['Año', 'Ciudad', 'Importe'],
    [2024, 'Málaga', 1.5],
    [2023, 'Cáceres', -2.25],
  ]);
  assert.deepEqual(out.messages.map((m) => m.text), [
    'The file "latin1.csv" is not UTF-8: it was read as Windows-1252.',
    '"latin1.csv" (Windows-1252, delimiter: semicolon (;)) → sheet "latin1": 2 data row(s) and 3 column(s).',
  ]);
  // € is 0x80 in Windows-1252, not a C1 control.
  const euro = await runTool(tool, [inputFile('e.csv', Buffer.from([0x50, 0x72, 0x65, 0x63, 0x69, 0x6f, 0x0a, 0x35, 0x80, 0x0a]))]);
  assert.deepEqual((await sheetOf(euro)).rows, [['Precio'], ['5€']]);
});

test('csv-to-excel: UTF-16 LE and BE with a BOM', async () => {
  for (const order of ['le', 'be'] as const) {
    const out = await runTool(tool, [inputFile(`u16${order}.csv`, utf16('Ciudad\tHabitantes\r\nMóstoles\t210000\r\n', order))]);
    assert.deepEqual((await sheetOf(out)).rows, [['Ciudad', 'Habitantes'], ['Móstoles', 210000]], order);
    assert.match(out.messages[0].text, new RegExp(`UTF-16${order.toUpperCase()}, delimitador: tabulador`));
  }
});

test('csv-to-excel: delimiter auto detects tab and pipe; a named delimiter is obeyed', async () => {
  const pipe = await runTool(tool, [inputFile('p.csv', 'a|b,c\n1|2,5\n')]);
  // With a delimiter other than the comma, a comma is the decimal mark.
  assert.deepEqual((await sheetOf(pipe)).rows, [['a', 'b,c'], [1, 2.5]]);
  const asComma = await runTool(tool, [inputFile('p.csv', 'a|b,c\n1|2,5\n')], { delimiter: 'comma' });
  assert.deepEqual((await sheetOf(asComma)).rows, [['a|b', 'c'], ['1|2', 5]]);
  const asSemicolon = await runTool(tool, [inputFile('s.csv', 'a;b,c\n1;2,5\n')], { delimiter: 'semicolon' });
  assert.deepEqual((await sheetOf(asSemicolon)).rows, [['a', 'b,c'], [1, 2.5]]);
  const asTab = await runTool(tool, [inputFile('t.csv', 'a\tb;c\n1\t2\n')], { delimiter: 'tab' });
  assert.deepEqual((await sheetOf(asTab)).rows, [['a', 'b;c'], [1, 2]]);
  const asPipe = await runTool(tool, [inputFile('q.csv', 'a|b;c\n1|2;3\n')], { delimiter: 'pipe' });
  assert.deepEqual((await sheetOf(asPipe)).rows, [['a', 'b;c'], [1, '2;3']]);
});

test('csv-to-excel: semicolons with decimal commas are detected as semicolon, not comma', async () => {
  const out = await runTool(tool, [inputFile('dec.csv', 'precio;peso\n1,5;2,25\n10,75;0,5\n')]);
  assert.deepEqual((await sheetOf(out)).rows, [['precio', 'peso'], [1.5, 2.25], [10.75, 0.5]]);
  assert.match(out.messages[0].text, /punto y coma/);
});

test('csv-to-excel: quoted fields with newlines and any mix of CRLF, LF and CR line ends', async () => {
  const out = await runTool(tool, [inputFile('mix.csv', 'a,b\r\n1,"x\r\ny"\n2,z\r3,"w,v"\r\n')]);
  assert.deepEqual((await sheetOf(out)).rows, [['a', 'b'], [1, 'x\r\ny'], [2, 'z'], [3, 'w,v']]);
});

test('csv-to-excel: ragged rows keep every cell and get a warning', async () => {
  const out = await runTool(tool, [inputFile('rag.csv', 'a,b\n1\n2,3,4\n')]);
  assert.deepEqual((await sheetOf(out)).rows, [['a', 'b', null], [1, null, null], [2, 3, 4]]);
  assert.equal(out.messages[0].level, 'warning');
  assert.match(out.messages[0].text, /2 fila\(s\).*fila 2 tiene 1.*3 columnas/);
});

test('csv-to-excel: detect-types recognizes numbers, dates and booleans, and never ids, long digits or phones', async () => {
  const csv = [
    'valor;esperado',
    '42;entero',
    '-7,25;decimal con coma',
    '2024-02-29;fecha ISO',
    '2024-02-29 13:45:30;fecha y hora',
    '31/12/2023;dd/mm/yyyy',
    'VERDADERO;booleano',
    'falso;booleano',
    'true;booleano',
    '00123;id',
    '1234567890123456;16 cifras',
    '+34 600 000 000;teléfono',
    '31/02/2024;fecha imposible',
    ' 42;espacio delante',
    '1e5;exponente',
    '1.234,5;miles',
  ].join('\n');
  const sheet = await sheetOf(await runTool(tool, [inputFile('tipos.csv', csv)]));
  assert.deepEqual(sheet.rows.slice(1).map((r) => r[0]), [
    42,
    -7.25,
    d(2024, 2, 29),
    d(2024, 2, 29, 13, 45, 30),
    d(2023, 12, 31),
    true,
    false,
    true,
    '00123',
    '1234567890123456',
    '+34 600 000 000',
    '31/02/2024',
    ' 42',
    '1e5',
    '1.234,5',
  ]);
  assert.equal(sheet.formats[4][0], 'yyyy-mm-dd hh:mm:ss');
});

test('csv-to-excel: detect-types=false keeps every cell as text', async () => {
  const sheet = await sheetOf(await runTool(tool, [fixture('ventas.csv')], { 'detect-types': false }));
  assert.deepEqual(sheet.rows[1], ['2024-03-10', 'Íñigo', '000789', '12.5', 'false', '=1+1']);
  assert.deepEqual(sheet.rows[2], ['2024-03-11', 'Ana', '15', '7', 'true', null]);
});

test('csv-to-excel: has-header=false writes the first row as typed data', async () => {
  const out = await runTool(tool, [inputFile('n.csv', '2024,1\n2025,2\n')], { 'has-header': false });
  assert.deepEqual((await sheetOf(out)).rows, [[2024, 1], [2025, 2]]);
  assert.deepEqual(out.preview?.columns, ['A', 'B']);
  const titled = await runTool(tool, [inputFile('n.csv', '2024,1\n2025,2\n')]);
  assert.deepEqual((await sheetOf(titled)).rows, [['2024', '1'], [2025, 2]]);
});

test('csv-to-excel: sheet-name names the sheet; empty means the file name; Excel-invalid names are fixed and said', async () => {
  const named = await runTool(tool, [fixture('ventas.csv')], { 'sheet-name': 'Marzo 2024' });
  assert.equal((await sheetOf(named)).name, 'Marzo 2024');
  assert.equal(named.files[0].name, 'ventas.xlsx');
  assert.equal((await sheetOf(await runTool(tool, [fixture('ventas.csv')], { 'sheet-name': '' }))).name, 'ventas');
  const fixed = await runTool(tool, [fixture('ventas.csv')], { 'sheet-name': 'Ventas: 1/2 [borrador]' });
  assert.equal((await sheetOf(fixed)).name, 'Ventas_ 1_2 _borrador_');
  assert.match(fixed.messages[0].text, /«Ventas_ 1_2 _borrador_» en lugar de «Ventas: 1\/2 \[borrador\]»/);
  const long = await runTool(tool, [inputFile('informe-de-ventas-del-primer-trimestre.csv', 'a\n1\n')]);
  assert.equal((await sheetOf(long)).name, 'informe-de-ventas-del-primer-tr');
  const history = await runTool(tool, [inputFile('x.csv', 'a\n1\n')], { 'sheet-name': 'History', language: 'en' });
  assert.equal((await sheetOf(history)).name, 'History_');
  assert.match(history.messages[0].text, /is named "History_" instead of "History"/);
});

test('csv-to-excel: refuses other formats, an empty file and options outside their set', async () => {
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')]), 'unsupported_format', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('vacio.csv', '\uFEFF\r\n\r\n')]), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [fixture('ventas.csv')], { delimiter: 'space' }), 'invalid_option', { option: 'delimiter' });
  await rejectsWith(runTool(tool, [fixture('ventas.csv')], { delimiter: ';' }), 'invalid_option', { option: 'delimiter' });
  await rejectsWith(runTool(tool, [fixture('ventas.csv')], { 'detect-types': 'no' }), 'invalid_option', { option: 'detect-types' });
  await rejectsWith(runTool(tool, [fixture('ventas.csv')], { 'sheet-name': 'x'.repeat(256) }), 'invalid_option', { option: 'sheet-name' });
});

test('csv-to-excel: UTF-32 LE and BE with a BOM are read as UTF-32, not as UTF-16 with NULs (issue 16)', async () => {
  const text = 'Ciudad;Nota\r\nMóstoles;😀 €\r\n';
  const cps = [0xfeff, ...[...text].map((c) => c.codePointAt(0)!)];
  for (const little of [true, false]) {
    const bytes = new Uint8Array(cps.length * 4);
    const view = new DataView(bytes.buffer);
    cps.forEach((cp, i) => view.setUint32(i * 4, cp, little));
    const out = await runTool(tool, [inputFile('u32.csv', bytes)], { language: 'en' });
    assert.deepEqual((await sheetOf(out)).rows, [['Ciudad', 'Nota'], ['Móstoles', '😀 €']]);
    assert.match(out.messages[0].text, new RegExp(`UTF-32${little ? 'LE' : 'BE'}, delimiter: semicolon`));
  }
});

test('csv-to-excel: a CR LF inside a quoted field is kept as CR LF (issue 16); openpyxl reads it back so', async () => {
  const out = await runTool(tool, [inputFile('saltos.csv', 'id,nota\r\n1,"línea 1\r\nlínea 2"\r\n2,"solo\nLF"\r\n')]);
  assert.deepEqual((await sheetOf(out)).rows, [['id', 'nota'], [1, 'línea 1\r\nlínea 2'], [2, 'solo\nLF']]);
  const dir = mkdtempSync(join(tmpdir(), 'csv-crlf-'));
  try {
    writeFileSync(join(dir, 'x.xlsx'), out.files[0].bytes);
    const py = 'import json,sys,openpyxl; print(json.dumps([c.value for c in openpyxl.load_workbook(sys.argv[1]).active["B"]]))';
    assert.deepEqual(JSON.parse(execFileSync('/usr/bin/python3', ['-c', py, join(dir, 'x.xlsx')], { encoding: 'utf8' })), ['nota', 'línea 1\r\nlínea 2', 'solo\nLF']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

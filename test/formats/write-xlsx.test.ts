import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync, strFromU8 } from 'fflate';
import { sheetNames, writeXlsx, XLSX_MAX_ROWS } from '../../tools/formats/xlsx/write.ts';
import { mapped, readTables } from '../helpers/read-tables.ts';
import { createContext } from '../../tools/core/execute.ts';
import { CellError, FullCell, type AnyCell, type TableData } from '../../tools/formats/model.ts';
import ExcelJS from 'exceljs';
import { d, readXlsx } from '../helpers/read-xlsx.ts';

const ctx = createContext('es', new AbortController().signal, []);
const en = createContext('en', new AbortController().signal, []);

const table: TableData = {
  name: 'Datos',
  header: ['Texto', 'Número', 'Fecha', 'Bool', 'Hora'],
  rows: [
    ['=SUM(A1)', 1.5, d(2024, 1, 31), true, new Date(Date.UTC(1899, 11, 30, 10, 30))],
    ['+34 600 000 000', -0.1, d(2024, 2, 29, 13, 45, 30), false, null],
    ['@x', 123456789012345, null, null, null],
    ['00123', 0, new Date(Date.UTC(1850, 0, 1)), null, null],
    ['  espacios  ', null, null, null, null],
    ['línea 1\r\nlínea 2\ttab', null, null, null, 'ñ€ 😀'],
  ],
};

test('writeXlsx: exceljs reads back every value with its type, and no formula', async () => {
  const [sheet] = await readXlsx(writeXlsx([table], ctx));
  assert.equal(sheet.name, 'Datos');
  assert.deepEqual(sheet.rows, [
    ['Texto', 'Número', 'Fecha', 'Bool', 'Hora'],
    ['=SUM(A1)', 1.5, d(2024, 1, 31), true, new Date(Date.UTC(1899, 11, 30, 10, 30))],
    ['+34 600 000 000', -0.1, d(2024, 2, 29, 13, 45, 30), false, null],
    ['@x', 123456789012345, null, null, null],
    ['00123', 0, '1850-01-01', null, null],
    ['  espacios  ', null, null, null, null],
    ['línea 1\r\nlínea 2\ttab', null, null, null, 'ñ€ 😀'],
  ]);
  assert.deepEqual(sheet.formats[1].slice(2, 5), ['yyyy-mm-dd', 'General', 'hh:mm:ss']);
  assert.equal(sheet.formats[2][2], 'yyyy-mm-dd hh:mm:ss');
});

test('writeXlsx: the sheet XML holds no formula, dates as serial numbers, and is compressed', () => {
  const files = unzipSync(writeXlsx([table], ctx));
  const xml = strFromU8(files['xl/worksheets/sheet1.xml']);
  assert.doesNotMatch(xml, /<f[ >]/);
  assert.match(xml, /<c r="C2" s="\d+"><v>45322<\/v><\/c>/);
  // Compression method of the first ZIP entry: 8 is deflate, 0 would be stored.
  assert.equal(Buffer.from(writeXlsx([table], ctx)).readUInt16LE(8), 8);
});

test('writeXlsx: our own reader gets the same table back', () => {
  const bytes = writeXlsx([table], ctx);
  const { tables } = readTables({ name: 'r.xlsx', bytes }, { hasHeader: true, sheets: 'all', detectTypes: true });
  // A CR LF inside a cell comes back as CR LF, as exceljs above and Excel read it (issue 16).
  const expected = table.rows.map((r) => r.map((c) => (c instanceof Date && c.getUTCFullYear() === 1850 ? '1850-01-01' : c)));
  assert.deepEqual(tables[0], { ...table, titleCells: table.header, rows: expected });
});

test('writeXlsx: literal _xHHHH_ survives a reader that decodes OOXML escapes; what XML cannot hold is removed (tools.md §2.6)', () => {
  const odd: TableData = { name: 'S', header: null, rows: [['_x0041_ literal', 'ctl\u0001\u001fx\u0000', 'a & <b> "c"', '\ud800 lone']] };
  const { tables } = readTables({ name: 'o.xlsx', bytes: writeXlsx([odd], ctx) }, { hasHeader: false, sheets: 'all', detectTypes: true });
  assert.deepEqual(tables[0].rows, [['_x0041_ literal', 'ctlx', 'a & <b> "c"', ' lone']]);
});

test('writeXlsx: typed title cells are written as they are (a year stays a number, a date a date)', async () => {
  const t = { name: 'S', header: ['Zona', '2024', '2024-01-01'], titleCells: ['Zona', 2024, d(2024, 1, 1)], rows: [['N', 1, 2]] };
  const [sheet] = await readXlsx(writeXlsx([t], ctx));
  assert.deepEqual(sheet.rows, [['Zona', 2024, d(2024, 1, 1)], ['N', 1, 2]]);
  const stale = { ...t, header: ['Zona'] };
  assert.deepEqual((await readXlsx(writeXlsx([stale], ctx)))[0].rows[0], ['Zona', null, null]);
});

test('writeXlsx: the title row is bold, columns are sized, the dimension is set', () => {
  const xml = strFromU8(unzipSync(writeXlsx([table], ctx))['xl/worksheets/sheet1.xml']);
  assert.match(xml, /<dimension ref="A1:E7"\/>/);
  assert.match(xml, /<c r="A1" s="1" t="inlineStr">/);
  assert.match(xml, /<col min="3" max="3" width="21" customWidth="1"\/>/);
});

test('writeXlsx: several tables are several sheets, names made valid and unique', async () => {
  const t = (name: string): TableData => ({ name, header: null, rows: [[name]] });
  const sheets = await readXlsx(writeXlsx([t('a/b'), t('A_B'), t(''), t('x'.repeat(40)), t("'quoted'")], ctx));
  assert.deepEqual(sheets.map((s) => s.name), ['a_b', 'A_B (2)', 'Hoja', 'x'.repeat(31), 'quoted']);
  assert.deepEqual(sheets[0].rows, [['a/b']]);
});

test('sheetNames: Excel rules', () => {
  assert.deepEqual(sheetNames(['Ventas', 'ventas', 'VENTAS', 'a[1]:*?', 'History', ' ', 'y'.repeat(31), 'Y'.repeat(31)], 'Sheet'), [
    'Ventas',
    'ventas (2)',
    'VENTAS (3)',
    'a_1____',
    'History_',
    'Sheet',
    'y'.repeat(31),
    'Y'.repeat(27) + ' (2)',
  ]);
});

test('writeXlsx: an empty table or no table still gives a valid workbook', async () => {
  assert.deepEqual(await readXlsx(writeXlsx([{ name: 'Vacía', header: null, rows: [] }], ctx)), [{ name: 'Vacía', rows: [], formats: [] }]);
  assert.equal((await readXlsx(writeXlsx([], en)))[0].name, 'Sheet');
});

test('writeXlsx: too many rows or columns is format_limit_exceeded, never cut', () => {
  const many: TableData = { name: 'x', header: ['a'], rows: new Array(XLSX_MAX_ROWS).fill([1]) };
  assert.throws(() => mapped({}, () => writeXlsx([many], ctx)), { code: 'format_limit_exceeded', detail: { params: { format: 'xlsx', max: 1048576, unit: 'filas' } } });
  const wide: TableData = { name: 'x', header: null, rows: [new Array(16_385).fill(1)] };
  assert.throws(() => mapped({}, () => writeXlsx([wide], en)), { code: 'format_limit_exceeded', detail: { params: { format: 'xlsx', max: 16384, unit: 'columns' } } });
  const long: TableData = { name: 'x', header: null, rows: [['x'.repeat(32_768)]] };
  assert.throws(() => mapped({}, () => writeXlsx([long], en)), { code: 'format_limit_exceeded', detail: { params: { format: 'xlsx', max: 32767, unit: 'characters per cell' } } });
});

test('writeXlsx: an error cell is written as an error cell, a full cell with its formula and cached value (workbook fidelity)', async () => {
  const t: TableData<AnyCell> = {
    name: 'F',
    header: ['n', 'f', 'e', 't'],
    rows: [
      [1, new FullCell(2, null, 'A2+1'), new CellError('#N/A'), new FullCell('X', null, 'UPPER("x")')],
      [new FullCell(true, null, 'TRUE()'), new FullCell(new CellError('#DIV/0!'), null, '1/0'), null, new FullCell(d(2024, 1, 2), null, 'DATE(2024,1,2)')],
    ],
  };
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(Buffer.from(writeXlsx([t], ctx)) as unknown as ArrayBuffer);
  const ws = wb.worksheets[0];
  assert.deepEqual(ws.getCell('B2').value, { formula: 'A2+1', result: 2 });
  assert.deepEqual(ws.getCell('C2').value, { error: '#N/A' });
  assert.deepEqual(ws.getCell('D2').value, { formula: 'UPPER("x")', result: 'X' });
  assert.deepEqual(ws.getCell('A3').value, { formula: 'TRUE()', result: true });
  assert.deepEqual(ws.getCell('B3').value, { formula: '1/0', result: { error: '#DIV/0!' } });
  assert.deepEqual(ws.getCell('D3').value, { formula: 'DATE(2024,1,2)', result: d(2024, 1, 2) });
  // Read back by this service's reader, which gives values: the cached ones, and errors as their text.
  const [back] = readTables({ name: 'f.xlsx', bytes: writeXlsx([t], ctx) }, { hasHeader: true, sheets: 'all', detectTypes: true }).tables;
  assert.deepEqual(back.rows, [[1, 2, '#N/A', 'X'], [true, '#DIV/0!', null, d(2024, 1, 2)]]);
});

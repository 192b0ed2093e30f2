import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import ExcelJS from 'exceljs';
import * as XLSX from 'xlsx';
import { zipSync } from 'fflate';
import { readFirstTable, readTables } from '../helpers/read-tables.ts';
import { fixture, inputFile } from '../helpers/run-tool.ts';
import { d } from '../helpers/read-xlsx.ts';
import type { InputFile } from '../../tools/core/files.ts';

type Msg = { level: string; key: string; params?: Record<string, string | number> };
function collector() {
  const msgs: Msg[] = [];
  return { msgs, report: (level: string, key: string, params?: Record<string, string | number>) => void msgs.push({ level, key, params }) };
}

async function exceljsFile(name: string, build: (wb: ExcelJS.Workbook) => void): Promise<InputFile> {
  const wb = new ExcelJS.Workbook();
  build(wb);
  return inputFile(name, new Uint8Array(await wb.xlsx.writeBuffer()));
}

const all = (file: InputFile, hasHeader = true, report?: ReturnType<typeof collector>['report']) => {
  const res = readTables(file, { hasHeader, sheets: 'all', detectTypes: true, report });
  // The typed title row is checked in its own test; elsewhere tables are compared as plain tables.
  return { ...res, tables: res.tables.map(({ titleCells: _, ...t }) => t) };
};

test('readTables: an xlsx written by exceljs keeps every type (dates, text ids, accents, booleans, formula results)', () => {
  const { tables, sheetNames } = all(fixture('ventas.xlsx'));
  assert.deepEqual(sheetNames, ['Ventas']);
  assert.deepEqual(tables, [
    {
      name: 'Ventas',
      header: ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas'],
      rows: [
        [d(2024, 1, 15), 'Muñoz Peña', '00123', 1250.5, true, '=SUM(A1)'],
        [d(2024, 2, 29, 13, 45), 'Ángela Ibáñez', '4111111111111111', -3, false, '+34 600 000 000'],
        [d(2023, 12, 31), 'Çedille & Co', '007', 0.1, true, '@mención'],
        [null, 'Total', null, 2501, null, null],
      ],
    },
  ]);
});

test('readTables: a workbook\'s title row keeps its typed cells next to the text titles', async () => {
  const file = await exceljsFile('t.xlsx', (wb) => {
    const ws = wb.addWorksheet('S');
    ws.addRow(['Zona', 2024, d(2024, 1, 1)]);
    ws.getCell('C1').numFmt = 'yyyy-mm-dd';
    ws.addRow(['N', 1, 2]);
  });
  const [t] = readTables(file, { hasHeader: true, sheets: 'first', detectTypes: true }).tables;
  assert.deepEqual(t.header, ['Zona', '2024', '2024-01-01']);
  assert.deepEqual(t.titleCells, ['Zona', 2024, d(2024, 1, 1)]);
  assert.equal(readTables(fixture('ventas.csv'), { hasHeader: true, sheets: 'first', detectTypes: true }).tables[0].titleCells, undefined);
});

test('readTables: has-header false keeps the title row as data', () => {
  const [t] = all(fixture('ventas.xlsx'), false).tables;
  assert.equal(t.header, null);
  assert.deepEqual(t.rows[0], ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas']);
  assert.equal(t.rows.length, 5);
});

test('readTables: all sheets, including an empty one; first sheet only reads one', () => {
  const res = all(fixture('dos-hojas.xlsx'));
  assert.deepEqual(res.sheetNames, ['Enero', 'Vacía', 'Feb|Mar']);
  assert.deepEqual(res.tables.map((t) => [t.name, t.header, t.rows.length]), [
    ['Enero', ['Producto', 'Unidades', 'Fecha'], 2],
    ['Vacía', [], 0],
    ['Feb|Mar', ['Fecha', 'producto', 'Unidades'], 1],
  ]);
  const first = readTables(fixture('dos-hojas.xlsx'), { hasHeader: true, sheets: 'first', detectTypes: true });
  assert.deepEqual(first.sheetNames, ['Enero', 'Vacía', 'Feb|Mar']);
  assert.deepEqual(first.tables.map((t) => t.name), ['Enero']);
});

test('readFirstTable: warns about the sheets it does not use; a CSV has none to warn about', () => {
  const c = collector();
  const t = readFirstTable(fixture('dos-hojas.xlsx'), { hasHeader: true, detectTypes: true, report: c.report });
  assert.equal(t.name, 'Enero');
  assert.deepEqual(c.msgs, [{ level: 'warning', key: 'sheets_unused', params: { name: 'dos-hojas.xlsx', sheet: 'Enero', sheets: '"Vacía", "Feb|Mar"' } }]);
  const c2 = collector();
  readFirstTable(fixture('ventas.csv'), { hasHeader: true, detectTypes: true, report: c2.report });
  assert.deepEqual(c2.msgs, []);
});

test('readTables: a BIFF8 .xls keeps accents, dates with time, text ids and booleans', () => {
  const { tables } = all(fixture('ventas.xls'));
  assert.deepEqual(tables[0], {
    name: 'Ciudades',
    header: ['Fecha', 'Ciudad', 'Código', 'Activo'],
    rows: [
      [d(2024, 1, 15), 'Córdoba', '00123', true],
      [d(2024, 2, 15, 12), 'Logroño', 42, false],
    ],
  });
  assert.deepEqual(tables[1].rows, [['ñandú']]);
});

test('readTables: a BIFF5 .xls in a legacy code page (1251) is decoded with it', () => {
  const ws = XLSX.utils.aoa_to_sheet([['XYZ'], ['ok']]);
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, ws, 'Hoja');
  const buf = Buffer.from(XLSX.write(wb, { type: 'array', bookType: 'biff5' }) as ArrayBuffer);
  const at = buf.indexOf('XYZ', 0, 'latin1');
  buf.set([0xcf, 0xf0, 0xe8], at); // "При" in Windows-1251
  for (let i = 0; i < buf.length - 6; i++) {
    if (buf[i] === 0x42 && buf[i + 1] === 0 && buf[i + 2] === 2 && buf[i + 3] === 0 && buf.readUInt16LE(i + 4) === 1252) buf.writeUInt16LE(1251, i + 4);
  }
  const { tables } = all(inputFile('cp.xls', new Uint8Array(buf)));
  assert.deepEqual(tables[0].header, ['При']);
});

test('readTables: an .ods file', () => {
  const ws = XLSX.utils.aoa_to_sheet([['Año', 'Ciudad'], [1, 'Logroño']]);
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, ws, 'Hoja');
  const bytes = new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'ods' }) as ArrayBuffer);
  assert.deepEqual(all(inputFile('x.ods', bytes)).tables[0], { name: 'Hoja', header: ['Año', 'Ciudad'], rows: [[1, 'Logroño']] });
});

test('readTables: the 1904 date system, times alone, and durations that stay numbers', async () => {
  const file = await exceljsFile('1904.xlsx', (wb) => {
    wb.properties.date1904 = true;
    const ws = wb.addWorksheet('S');
    ws.addRow(['fecha', 'hora', 'duración']);
    ws.addRow([d(2024, 1, 2, 6), 0.4375, 1.5]);
    ws.getCell('A2').numFmt = 'yyyy-mm-dd hh:mm';
    ws.getCell('B2').numFmt = 'hh:mm';
    ws.getCell('C2').numFmt = '[h]:mm:ss';
  });
  assert.deepEqual(all(file).tables[0].rows, [[d(2024, 1, 2, 6), new Date(Date.UTC(1899, 11, 30, 10, 30)), 1.5]]);
});

test('readTables: error cells become their text with a warning; formulas without a saved result are reported', async () => {
  const file = await exceljsFile('err.xlsx', (wb) => {
    const ws = wb.addWorksheet('Datos');
    ws.addRow(['a', 'b', 'c']);
    ws.addRow([1, { error: '#N/A' }, { formula: 'A2' }]);
    ws.addRow([{ error: '#DIV/0!' }, 2, 3]);
  });
  const c = collector();
  const [t] = all(file, true, c.report).tables;
  assert.deepEqual(t.rows, [[1, '#N/A', null], ['#DIV/0!', 2, 3]]);
  assert.deepEqual(c.msgs, [
    { level: 'warning', key: 'error_cells', params: { name: 'err.xlsx', sheet: 'Datos', count: 2, first: 'B2 #N/A' } },
    { level: 'warning', key: 'formulas_without_value', params: { name: 'err.xlsx', sheet: 'Datos', count: 1 } },
  ]);
});

test('readTables: the table starts at its first used cell; inner empty rows stay, trailing ones go', async () => {
  const file = await exceljsFile('off.xlsx', (wb) => {
    const ws = wb.addWorksheet('S');
    ws.getCell('C3').value = 'x';
    ws.getCell('D3').value = 'y';
    ws.getCell('C4').value = 1;
    ws.getCell('D6').value = 2;
    ws.getCell('C9').style = { font: { bold: true } }; // styled, empty: not data
  });
  assert.deepEqual(all(file).tables[0], { name: 'S', header: ['x', 'y'], rows: [[1, null], [null, null], [null, 2]] });
});

test('readTables: files that are not what their extension says are invalid_file, naming the file', () => {
  const cases: [string, Uint8Array][] = [
    ['texto.xlsx', new TextEncoder().encode('a,b\n1,2\n')],
    ['ruido.xls', new Uint8Array(256).map((_, i) => (i * 7919 + 13) % 256)],
    ['vacio.xlsx', new Uint8Array(0)],
    ['doc.xlsx', zipSync({ 'word/document.xml': new TextEncoder().encode('<w/>') })],
    ['cortado.xlsx', fixture('ventas.xlsx').bytes.slice(0, 600)],
    ['raro.pdf', new TextEncoder().encode('x')],
  ];
  for (const [name, bytes] of cases) {
    assert.throws(
      () => readTables(inputFile(name, bytes), { hasHeader: true, sheets: 'all', detectTypes: true, option: 'files' }),
      (err: { code: string; detail: { option: string; params: Record<string, string> } }) => {
        assert.equal(err.code, 'invalid_file', name);
        assert.equal(err.detail.option, 'files');
        assert.deepEqual(err.detail.params, { name, format: name.split('.').pop() });
        return true;
      },
    );
  }
});

test('readTables: dates do not depend on the process time zone', () => {
  const script = `
    import { readTables } from './test/helpers/read-tables.ts';
    import { readFileSync } from 'node:fs';
    const r = readTables({ name: 'v.xlsx', bytes: readFileSync('test/fixtures/ventas.xlsx') }, { hasHeader: true, sheets: 'all', detectTypes: true });
    const c = readTables({ name: 's.csv', bytes: readFileSync('test/fixtures/semicolon.csv') }, { hasHeader: true, sheets: 'all', detectTypes: true });
    console.log(JSON.stringify([r.tables, c.tables]));`;
  const run = (TZ: string) =>
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, TZ }, cwd: new URL('../../', import.meta.url) }).toString();
  const east = run('Pacific/Kiritimati');
  assert.equal(run('America/Adak'), east);
  assert.match(east, /"2024-02-29T13:45:00.000Z"/);
  assert.match(east, /"2024-01-31T00:00:00.000Z"/);
});

test('read-table: one table means the first visible sheet, in xlsx (fast path) and xls (SheetJS); the warning names the others', async () => {
  const wb = new ExcelJS.Workbook();
  const hiddenSheet = wb.addWorksheet('Oculta', { state: 'hidden' });
  hiddenSheet.addRows([['secreto'], [1]]);
  wb.addWorksheet('Datos').addRows([['visible'], [2]]);
  const xlsx = inputFile('libro.xlsx', new Uint8Array(await wb.xlsx.writeBuffer()));
  const sjs = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(sjs, XLSX.utils.aoa_to_sheet([['secreto'], [1]]), 'Oculta');
  XLSX.utils.book_append_sheet(sjs, XLSX.utils.aoa_to_sheet([['visible'], [2]]), 'Datos');
  sjs.Workbook = { Sheets: [{ Hidden: 1 }, { Hidden: 0 }] };
  const xls = inputFile('libro.xls', new Uint8Array(XLSX.write(sjs, { type: 'array', bookType: 'biff8' })));
  for (const file of [xlsx, xls]) {
    const messages: string[] = [];
    const table = readFirstTable(file, { hasHeader: true, detectTypes: true, report: (_l, key, p) => messages.push(`${key}:${p?.sheet}:${p?.sheets}`) });
    assert.equal(table.name, 'Datos', file.name);
    assert.deepEqual([table.header, table.rows], [['visible'], [[2]]], file.name);
    assert.deepEqual(messages, ['sheets_unused:Datos:"Oculta"'], file.name);
    // Reading every sheet still includes the hidden one, in tab order.
    assert.deepEqual(readTables(file, { hasHeader: true, detectTypes: true, sheets: 'all' }).tables.map((t) => t.name), ['Oculta', 'Datos']);
  }
});

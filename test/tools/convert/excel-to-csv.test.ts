// excel-to-csv: exact bytes against golden files in test/golden/excel-to-csv/ (each read and checked by hand),
// and the quoting read back with papaparse, a CSV parser independent of the writer. Inputs are workbooks
// written by exceljs (or the BIFF8 fixture).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { unzipSync } from 'fflate';
import tool from '../../../tools/convert/excel-to-csv.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { d } from '../../helpers/read-xlsx.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { textOf, typedTitles } from '../../helpers/typed-titles.ts';
import { golden } from '../../helpers/golden.ts';
import { row, xlsxPackage } from '../../helpers/xlsx-package.ts';
import { t } from '../../../locales/index.ts';


const matchesGolden = golden('excel-to-csv');

async function workbook(name: string, sheets: Record<string, unknown[][]>): Promise<ReturnType<typeof inputFile>> {
  const wb = new ExcelJS.Workbook();
  for (const [sheet, rows] of Object.entries(sheets)) {
    const ws = wb.addWorksheet(sheet);
    for (const r of rows) ws.addRow(r);
    ws.eachRow((row) =>
      row.eachCell((cell) => {
        if (cell.value instanceof Date) cell.numFmt = cell.value.getUTCFullYear() === 1899 ? 'hh:mm:ss' : 'yyyy-mm-dd hh:mm';
      }),
    );
  }
  return inputFile(name, new Uint8Array(await wb.xlsx.writeBuffer()));
}

// Text that needs quoting under one delimiter or another: every delimiter, a quote, line ends, outer spaces.
const tricky = () =>
  workbook('comillas.xlsx', {
    Datos: [
      ['Nombre', 'Nota', 'Importe'],
      ['Pérez, Juan', 'dice "hola"', 1.5],
      ['a;b', 'línea 1\nlínea 2', -2],
      ['x|y', 'tab\there', 3],
      ['con espacio', ' delante', 4],
      ['#almohadilla', 'dos\n\nsaltos', 5],
    ],
  });

const TRICKY_CELLS = [
  ['Nombre', 'Nota', 'Importe'],
  ['Pérez, Juan', 'dice "hola"', '1.5'],
  ['a;b', 'línea 1\nlínea 2', '-2'],
  ['x|y', 'tab\there', '3'],
  ['con espacio', ' delante', '4'],
  ['#almohadilla', 'dos\n\nsaltos', '5'],
];

/** Cells as papaparse reads them (BOM removed, CRLF records). */
function parsed(bytes: Uint8Array, delimiter: string): string[][] {
  const res = Papa.parse<string[]>(textOf(bytes).replace(/^\uFEFF/, ''), { delimiter, newline: '\r\n', skipEmptyLines: false });
  assert.deepEqual(res.errors, []);
  const rows = res.data;
  if (rows.length > 0 && rows.at(-1)!.length === 1 && rows.at(-1)![0] === '') rows.pop();
  return rows;
}

test('excel-to-csv: defaults are comma, titles, UTF-8 BOM, CRLF; values plain, dates ISO, formula-looking text verbatim', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')]);
  assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['ventas.csv', 'text/csv; charset=utf-8']]);
  matchesGolden('ventas.csv', out.files[0].bytes);
  assert.equal(
    textOf(out.files[0].bytes).split('\r\n')[1],
    '2024-01-15,Muñoz Peña,00123,1250.5,true,=SUM(A1)',
  );
  assert.ok(out.textPreview?.startsWith('Fecha,Cliente,'));
  assert.deepEqual(out.preview?.columns, ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas']);
  assert.deepEqual(out.messages, [{ level: 'info', text: 'Hoja «Ventas» → «ventas.csv»: 4 fila(s) de datos y 6 columna(s).' }]);
});

for (const [name, char] of [
  ['comma', ','],
  ['semicolon', ';'],
  ['tab', '\t'],
  ['pipe', '|'],
  ['space', ' '],
] as const) {
  test(`excel-to-csv: delimiter=${name} quotes exactly the fields that need it (RFC 4180)`, async () => {
    const out = await runTool(tool, [await tricky()], { delimiter: name });
    matchesGolden(`delimiter-${name}.csv`, out.files[0].bytes);
    assert.deepEqual(parsed(out.files[0].bytes, char), TRICKY_CELLS);
  });
}

test('excel-to-csv: a single literal character is a delimiter too', async () => {
  const out = await runTool(tool, [await tricky()], { delimiter: '#' });
  matchesGolden('delimiter-literal-hash.csv', out.files[0].bytes);
  assert.deepEqual(parsed(out.files[0].bytes, '#'), TRICKY_CELLS);
  const same = await runTool(tool, [await tricky()], { delimiter: ';' });
  const named = await runTool(tool, [await tricky()], { delimiter: 'semicolon' });
  assert.deepEqual(same.files[0].bytes, named.files[0].bytes);
});

test('excel-to-csv: a quote, a line end, two characters or an unknown name is not a delimiter', async () => {
  for (const delimiter of ['"', '\r', '\n', ';;', '', 'Comma', 'coma', '\ud83d\ude00']) {
    await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { delimiter }), 'invalid_option', { option: 'delimiter' });
  }
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { delimiter: 44 }), 'invalid_option', { option: 'delimiter' });
});

test('excel-to-csv: bom=false writes no byte-order mark', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')], { bom: false });
  matchesGolden('ventas-no-bom.csv', out.files[0].bytes);
  assert.deepEqual([...out.files[0].bytes.subarray(0, 5)], [...Buffer.from('Fecha')]);
});

test('excel-to-csv: include-header=false leaves the titles out', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')], { 'include-header': false });
  matchesGolden('ventas-no-header.csv', out.files[0].bytes);
  assert.equal(parsed(out.files[0].bytes, ',').length, 4);
});

test('excel-to-csv: has-header=false makes the first row data, so it is written whatever include-header says', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')], { 'has-header': false, 'include-header': false });
  const withTitles = await runTool(tool, [fixture('ventas.xlsx')]);
  assert.deepEqual(out.files[0].bytes, withTitles.files[0].bytes);
  assert.deepEqual(out.preview?.columns, ['A', 'B', 'C', 'D', 'E', 'F']);
  assert.equal(out.preview?.totalRows, 5);
  assert.match(out.messages[0].text, /5 fila\(s\) de datos/);
});

test('excel-to-csv: numbers plain with a point and no exponent, dates ISO with time when there is one', async () => {
  const input = await workbook('valores.xlsx', {
    Valores: [
      ['Número', 'Fecha', 'Booleano'],
      [1e21, d(2024, 2, 29), true],
      [1e-7, d(2024, 2, 29, 13, 45, 30), false],
      [123456789012345, d(1899, 12, 30, 8, 5, 0), null],
      [0.1 + 0.2, null, null],
      [-1234567.891, null, null],
      [-0.5, null, null],
    ],
  });
  const out = await runTool(tool, [input], { bom: false });
  matchesGolden('values.csv', out.files[0].bytes);
  assert.deepEqual(parsed(out.files[0].bytes, ',').map((r) => r[0]), [
    'Número',
    '1000000000000000000000',
    '0.0000001',
    '123456789012345',
    '0.30000000000000004',
    '-1234567.891',
    '-0.5',
  ]);
});

test('excel-to-csv: a typed title row (a year, a month) is written as the data would be', async () => {
  const out = await runTool(tool, [await typedTitles()], { bom: false });
  assert.equal(textOf(out.files[0].bytes), 'Zona,2024,2024-01-01\r\nNorte,1,2\r\nSur,3,4\r\n');
});

test('excel-to-csv: all-sheets writes one CSV per sheet in tab order, named after the sheet; an empty one with a warning', async () => {
  const out = await runTool(tool, [fixture('dos-hojas.xlsx')], { 'all-sheets': true });
  assert.deepEqual(out.files.map((f) => f.name), ['Enero.csv', 'Vacía.csv', 'Feb_Mar.csv']);
  matchesGolden('dos-hojas-Enero.csv', out.files[0].bytes);
  matchesGolden('dos-hojas-Vacia.csv', out.files[1].bytes);
  matchesGolden('dos-hojas-Feb_Mar.csv', out.files[2].bytes);
  assert.deepEqual(out.messages.map((m) => m.level), ['info', 'warning', 'info']);
  assert.match(out.messages[1].text, /«Vacía».*vacía/);
  assert.match(out.messages[2].text, /«Feb\|Mar» → «Feb_Mar\.csv»/);
});

test('excel-to-csv: all-sheets with download=true comes as one ZIP, named in English with language=en', async () => {
  const out = await runTool(tool, [fixture('dos-hojas.xlsx')], { 'all-sheets': true, language: 'en' }, { download: true });
  assert.deepEqual(out.files.map((f) => f.name), ['result.zip']);
  const entries = unzipSync(out.files[0].bytes);
  assert.deepEqual(Object.keys(entries), ['Enero.csv', 'Vacía.csv', 'Feb_Mar.csv']);
  assert.equal(textOf(entries['Feb_Mar.csv']), '\uFEFFFecha,producto,Unidades\r\n2024-02-07,Azúcar,7\r\n');
  assert.equal(out.messages[1].text, 'The sheet "Vacía" of "dos-hojas.xlsx" is empty: its result has no rows.');
});

test('excel-to-csv: without all-sheets only the first sheet is converted, and a warning names the others', async () => {
  const out = await runTool(tool, [fixture('dos-hojas.xlsx')], { language: 'en' });
  assert.deepEqual(out.files.map((f) => f.name), ['dos-hojas.csv']);
  assert.equal(textOf(out.files[0].bytes), '\uFEFFProducto,Unidades,Fecha\r\nCafé,10,2024-01-05\r\nTé,5,2024-01-06\r\n');
  assert.deepEqual(out.messages[0], {
    level: 'warning',
    text: 'Only the first sheet of "dos-hojas.xlsx" ("Enero") was converted; with all-sheets=true these are converted too: "Vacía", "Feb|Mar".',
  });
});

test('excel-to-csv: an .xls (BIFF8) converts like an .xlsx', async () => {
  const out = await runTool(tool, [fixture('ventas.xls')], { 'all-sheets': true, delimiter: 'semicolon' });
  assert.deepEqual(out.files.map((f) => f.name), ['Ciudades.csv', 'Otra.csv']);
  matchesGolden('ventas-xls-Ciudades.csv', out.files[0].bytes);
  assert.equal(textOf(out.files[1].bytes), '\uFEFFNota\r\nñandú\r\n');
});

test('excel-to-csv: a workbook with no data is invalid_file', async () => {
  const empty = await workbook('vacio.xlsx', { Hoja1: [] });
  await rejectsWith(runTool(tool, [empty]), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [empty], { 'all-sheets': true }), 'invalid_file', { option: 'file' });
});

test('excel-to-csv: refuses other formats, files that are not workbooks, unknown options', async () => {
  await rejectsWith(runTool(tool, [fixture('ventas.csv')]), 'unsupported_format', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('texto.xlsx', 'a,b\n1,2\n')]), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { delimeter: 'tab' }), 'unknown_option', { option: 'delimeter' });
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { bom: 'yes' }), 'invalid_option', { option: 'bom' });
});

// A reference outside Excel's grid is a broken file, refused naming it: it was 413 too_complex (delete stray
// cells), a table of a million empty rows, or a cell lost without a word. XFD1048576 itself is in the grid.
test('excel-to-csv: a cell or row outside the grid (XFE1, ZZZZ5, row 1048577, row 0, cells past XFD) is invalid_file naming it, in es and en', async () => {
  const sheet = (xml: string) => inputFile('roto.xlsx', xlsxPackage({ sheets: [{ name: 'Datos', xml: row(1, '<c r="A1"><v>1</v></c>') + xml }] }));
  const noRefs = (n: number) => `<row r="2">${'<c><v>1</v></c>'.repeat(n)}</row>`;
  const cases: [string, string][] = [
    ['<row r="2"><c r="XFE2"><v>2</v></c></row>', 'XFE2'],
    ['<row r="5"><c r="ZZZZ5"><v>2</v></c></row>', 'ZZZZ5'],
    ['<row r="1048577"><c r="A1048577"><v>2</v></c></row>', '1048577:1048577'],
    ['<row><c r="B1048577"><v>2</v></c></row>', 'B1048577'],
    ['<row r="0"><c><v>2</v></c></row>', '0:0'],
    ['<row r="3"><c r="A0"><v>2</v></c></row>', 'A0'],
    [noRefs(16_385), 'XFE2'],
    // Read by SheetJS (a cell type the fast reader does not know), which keeps the cell where the file says.
    ['<row r="2"><c r="A2" t="q"><v>1</v></c><c r="XFE2"><v>2</v></c></row>', 'XFE2'],
  ];
  for (const [xml, ref] of cases) {
    await rejectsWith(runTool(tool, [sheet(xml)]), 'invalid_file', { option: 'file', params: { ref, sheet: 'Datos', name: 'roto.xlsx' } });
  }
  const err = await runTool(tool, [sheet(cases[0][0])]).catch((e: { detail: { messageKey: string; params: Record<string, string> } }) => e.detail);
  assert.ok(err && 'messageKey' in err);
  assert.equal(t('es', err.messageKey, err.params), '«roto.xlsx» está dañado: la referencia XFE2 de la hoja «Datos» cae fuera de la cuadrícula de una hoja de cálculo (A1:XFD1048576). Ábrelo y guárdalo de nuevo con Excel o LibreOffice, que lo reparan, y vuelve a enviarlo.');
  assert.equal(t('en', err.messageKey, err.params), '"roto.xlsx" is damaged: reference XFE2 in sheet "Datos" lies outside a spreadsheet\'s grid (A1:XFD1048576). Open it and save it again with Excel or LibreOffice, which repair it, and send it again.');
  // The grid's last column is a column like any other.
  const edge = await runTool(tool, [sheet('<row r="2"><c r="XFD2"><v>2</v></c></row>')]);
  assert.equal(textOf(edge.files[0].bytes).split('\r\n')[1], ','.repeat(16_383) + '2');
});

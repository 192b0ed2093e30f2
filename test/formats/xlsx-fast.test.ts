// The xlsx fast path (tools/formats/xlsx/) against SheetJS: the same file read both ways gives the same tables
// (names, titles, typed title cells, rows with their types) and the same messages. The fast path is made to
// prove it read each file itself (readXlsx throws NeedsFallback otherwise); SheetJS reads the same bytes when
// openWorkbook is asked for it (`reader: 'sheetjs'`), after the container guards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import { unzipSync, zipSync } from 'fflate';
import * as XLSX from 'xlsx';
import { readFirstTable, readTables } from '../helpers/read-tables.ts';
import { writeXlsx } from '../../tools/formats/xlsx/write.ts';
import { readXlsx } from '../../tools/formats/xlsx/read.ts';
import { NeedsFallback } from '../../tools/formats/errors.ts';
import { d } from '../helpers/read-xlsx.ts';
import { assertSameBothWays, readAll } from '../helpers/both-readers.ts';
import { fixture, inputFile } from '../helpers/run-tool.ts';
import { row, worksheet, xlsxPackage, type PackageSpec } from '../helpers/xlsx-package.ts';

/** Asserts that the fast path reads `bytes` itself and gives exactly what SheetJS gives; returns the tables. */
function sameBothWays(bytes: Uint8Array, label: string) {
  assertSameBothWays(() => readXlsx(bytes, { sheets: 'all', maxCells: 1e7, file: 'x', report: () => {} }), bytes, label, 'libro.xlsx');
  return readAll('libro.xlsx', bytes, true);
}

const cells = (xs: string[]) => xs.join('');
const str = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const num = (ref: string, v: string | number, s?: number) => `<c r="${ref}"${s === undefined ? '' : ` s="${s}"`}><v>${v}</v></c>`;

test('fast path = SheetJS: every committed xlsx fixture', () => {
  for (const name of ['ventas.xlsx', 'ventas-2.xlsx', 'dos-hojas.xlsx']) sameBothWays(fixture(name).bytes, name);
});

// CR LF kept from `_x000D_` and `&#13;` (where SheetJS makes an LF) is in test/formats/xlsx-cells.test.ts.
test('fast path = SheetJS: shared strings (entities, references, escapes, spaces, rich text, phonetic runs)', () => {
  const shared = [
    '<t>Muñoz Peña</t>',
    '<t xml:space="preserve">  con espacios  </t>',
    '<t>&lt;b&gt; &amp; &quot;x&quot; &apos;y&apos;</t>',
    '<t>&#233;t&#xE9; &#8364;</t>',
    '<t>_x005F_x0041_ es literal</t>',
    '<t/>',
    '<r><rPr><b/></rPr><t>Ne</t></r><r><t xml:space="preserve">gri ta</t></r>',
    '<t>東京</t><rPh sb="0" eb="2"><t>トウキョウ</t></rPh><phoneticPr fontId="1"/>',
    '<r><t>大</t></r><r><t>阪</t></r><rPh sb="0" eb="2"><t>オオサカ</t></rPh>',
    '<t>00123</t>',
  ];
  const rows = shared.map((_, i) => row(i + 1, `<c r="A${i + 1}" t="s"><v>${i}</v></c><c r="B${i + 1}">${`<v>${i}</v>`}</c>`));
  const { all } = sameBothWays(xlsxPackage({ sheets: [{ name: 'Textos', xml: cells(rows) }], sharedStrings: shared }), 'shared strings');
  const t = all.tables[0];
  assert.deepEqual(t.header, ['Muñoz Peña', '0']);
  assert.deepEqual(
    t.rows.map((r) => r[0]),
    ['  con espacios  ', '<b> & "x" \'y\'', 'été €', '_x0041_ es literal', null, 'Negri ta', '東京', '大阪', '00123'],
  );
});

test('fast path = SheetJS: inline strings, plain and rich', () => {
  const xml = cells([
    row(1, str('A1', 'Ciudad') + str('B1', 'Año')),
    row(2, str('A2', 'Logroño') + '<c r="B2" t="inlineStr"><is><r><t>dos </t></r><r><rPr><i/></rPr><t>partes</t></r></is></c>'),
    row(3, str('A3', '=SUM(A1)') + str('B3', '')),
  ]);
  const { all } = sameBothWays(xlsxPackage({ sheets: [{ name: 'S', xml }] }), 'inline strings');
  assert.deepEqual(all.tables[0].rows, [
    ['Logroño', 'dos partes'],
    ['=SUM(A1)', null],
  ]);
});

test('fast path = SheetJS: dates by built-in and custom formats, times, durations, 1900 and 1904 systems', () => {
  const styles = {
    numFmts: { 164: 'yyyy-mm-dd', 165: '[h]:mm:ss', 166: '0.00 "d"', 167: '[$-409]mmmm d, yyyy;@', 168: 'hh:mm' },
    // s: 0 General, 1 m/d/yy, 2 m/d/yy h:mm, 3 h:mm, 4 yyyy-mm-dd, 5 [h]:mm:ss, 6 0.00 "d", 7 locale date, 8 hh:mm, 9 0.00
    cellXfs: [0, 14, 22, 20, 164, 165, 166, 167, 168, 2],
  };
  const data = cells([
    row(1, str('A1', 'fecha') + str('B1', 'fecha hora') + str('C1', 'hora') + str('D1', 'duración') + str('E1', 'no fecha') + str('F1', 'larga') + str('G1', 'negativa')),
    row(2, num('A2', 45306, 1) + num('B2', 45351.5729166667, 2) + num('C2', 0.4375, 3) + num('D2', 1.5, 5) + num('E2', 45306, 6) + num('F2', 45306, 7) + num('G2', -1, 4)),
    row(3, num('A3', 60, 4) + num('B3', 61, 4) + num('C3', 0.75, 8) + num('D3', 2.25, 9) + num('E3', 1, 0) + num('F3', 0, 4)),
  ]);
  const d1900 = sameBothWays(xlsxPackage({ sheets: [{ name: 'D', xml: data }], styles }), '1900 dates').all.tables[0].rows;
  assert.deepEqual(d1900, [
    [d(2024, 1, 15), new Date(Date.UTC(2024, 1, 29, 13, 45)), new Date(Date.UTC(1899, 11, 30, 10, 30)), 1.5, 45306, d(2024, 1, 15), -1],
    [d(1900, 2, 28), d(1900, 3, 1), new Date(Date.UTC(1899, 11, 30, 18)), 2.25, 1, new Date(Date.UTC(1899, 11, 30)), null],
  ]);
  const d1904 = sameBothWays(xlsxPackage({ sheets: [{ name: 'D', xml: data }], styles, date1904: true }), '1904 dates').all.tables[0].rows;
  assert.deepEqual(d1904[0].slice(0, 3), [d(2028, 1, 16), new Date(Date.UTC(2028, 2, 1, 13, 45)), new Date(Date.UTC(1899, 11, 30, 10, 30))]);
});

test('fast path = SheetJS: many dates, repeated and distinct, a date and a time of the same serial (shared Date objects)', () => {
  // The fast path shares one Date between cells of the same date (a small table of recent ones): repeated days,
  // thousands of distinct date-times that collide in that table, and one serial read as a date and as a time.
  const styles = { cellXfs: [0, 14, 22, 20] };
  const rows = Array.from({ length: 3000 }, (_, i) =>
    row(i + 1, num(`A${i + 1}`, 40000 + (i % 50), 1) + num(`B${i + 1}`, 40000 + i / 7, 2) + num(`C${i + 1}`, 0.25, 3) + num(`D${i + 1}`, 0.25, 1) + num(`E${i + 1}`, 40000 + (i % 50), 0)),
  ).join('');
  for (const date1904 of [false, true]) {
    const t = sameBothWays(xlsxPackage({ sheets: [{ name: 'F', xml: rows }], styles, date1904 }), `dates, 1904 ${date1904}`).all.tables[0];
    const base = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 30);
    t.rows.forEach((r, k) => {
      const i = k + 1;
      assert.equal((r[0] as Date).getTime(), base + (40000 + (i % 50)) * 86_400_000, `A${i + 1}`);
      assert.equal((r[1] as Date).getTime(), base + Math.round(((40000 + i / 7) * 86_400_000)), `B${i + 1}`);
      assert.equal(r[4], 40000 + (i % 50));
    });
    assert.deepEqual([t.rows[0][2], t.rows[0][3]], [new Date(Date.UTC(1899, 11, 30, 6)), new Date(date1904 ? Date.UTC(1904, 0, 1, 6) : Date.UTC(1899, 11, 30, 6))]);
  }
});

test('fast path = SheetJS: inline and formula texts, repeated and distinct, per column (one string per repeated text)', () => {
  // The fast path keeps one string per repeated text of a column until the column proves to hold mostly
  // distinct ones: a 5-value column, a column of 3,000 distinct texts, long texts, empty texts, formula results.
  const long = 'x'.repeat(150);
  const rows = Array.from({ length: 3000 }, (_, i) =>
    row(
      i + 1,
      str(`A${i + 1}`, ['Madrid', 'Vigo', 'Gijón', 'A Coruña', '&amp; &lt;'][i % 5]) +
        str(`B${i + 1}`, `correo${i}@ejemplo.es`) +
        str(`C${i + 1}`, i % 2 ? long : `${long}${i}`) +
        (i % 7 ? str(`D${i + 1}`, '') : '') +
        `<c r="E${i + 1}" t="str"><f>A${i + 1}</f><v>${['sí', 'no'][i % 2]}</v></c>`,
    ),
  ).join('');
  const t = sameBothWays(xlsxPackage({ sheets: [{ name: 'T', xml: rows }] }), 'texts').all.tables[0];
  assert.deepEqual(t.titleCells, ['Madrid', 'correo0@ejemplo.es', `${long}0`, null, 'sí']);
  assert.deepEqual(t.rows[2997], ['A Coruña', 'correo2998@ejemplo.es', `${long}2998`, null, 'sí']);
  assert.equal(t.rows[3][0], '& <');
  assert.equal(new Set(t.rows.map((r) => r[1])).size, 2999);
});

test('fast path = SheetJS: rows of changing widths (narrow after wide, a lone far cell) are padded to the table', () => {
  const widths = [12, 1, 12, 3, 3, 200, 3, 3, 12, 1, 1];
  const xml = widths
    .map((w, k) => row(k + 1, w === 200 ? num(`GR${k + 1}`, k) : Array.from({ length: w }, (_, c) => num(`${String.fromCharCode(65 + c)}${k + 1}`, k * 100 + c)).join('')))
    .join('');
  const t = sameBothWays(xlsxPackage({ sheets: [{ name: 'W', xml }] }), 'widths').all.tables[0];
  for (const r of [t.titleCells!, ...t.rows]) assert.equal(r.length, 200);
  assert.deepEqual(t.rows[0].slice(0, 2), [100, null]);
  assert.equal(t.rows[4][199], 5);
  assert.deepEqual(t.rows[5].slice(0, 4), [600, 601, 602, null]);
});

test('fast path = SheetJS: a number past 9999-12-31 in a date format stays a number (Excel shows #####)', () => {
  const xml = row(1, num('A1', 2958465, 1) + num('B1', 2958466, 1) + num('C1', 1e15, 1) + num('D1', 2957003, 1) + num('E1', 2957004, 1));
  const styles = { cellXfs: [0, 14] };
  const r1900 = sameBothWays(xlsxPackage({ sheets: [{ name: 'S', xml }], styles }), 'far dates').all.tables[0].titleCells;
  assert.deepEqual(r1900, [d(9999, 12, 31), 2958466, 1e15, d(9995, 12, 30), d(9995, 12, 31)]);
  const r1904 = sameBothWays(xlsxPackage({ sheets: [{ name: 'S', xml }], styles, date1904: true }), 'far dates 1904').all.tables[0].titleCells;
  assert.deepEqual(r1904, [2958465, 2958466, 1e15, d(9999, 12, 31), 2957004]);
});

test('fast path = SheetJS: booleans, errors, formulas with and without cached values', () => {
  const shared = ['<t>texto</t>'];
  const xml = cells([
    row(1, str('A1', 'a') + str('B1', 'b') + str('C1', 'c') + str('D1', 'd') + str('E1', 'e')),
    row(2, '<c r="A2" t="b"><v>1</v></c><c r="B2" t="b"><v>0</v></c><c r="C2" t="e"><v>#N/A</v></c><c r="D2" t="e"><f>1/0</f><v>#DIV/0!</v></c><c r="E2"><f>1+1</f><v>2</v></c>'),
    row(3, '<c r="A3"><f>A2</f></c><c r="B3" t="str"><f>"x"&amp;"y"</f><v>x &amp; y</v></c><c r="C3" t="str"><f>""</f><v></v></c><c r="D3" t="s"><f>A1</f></c><c r="E3" t="n"><f>B2</f></c>'),
    row(4, '<c r="A4" t="s"><v>0</v></c><c r="B4" t="str"><f>A4</f><v>ñ_x000D_</v></c><c r="C4" t="e"><v>#REF!</v></c>'),
  ]);
  const { all, msgs } = sameBothWays(xlsxPackage({ sheets: [{ name: 'Fórmulas', xml }], sharedStrings: shared }), 'formulas');
  assert.deepEqual(all.tables[0].rows, [
    [true, false, '#N/A', '#DIV/0!', 2],
    [null, 'x & y', null, null, null],
    ['texto', 'ñ\r', '#REF!', null, null],
  ]);
  assert.deepEqual(
    msgs.filter((m) => m.level === 'warning' && m.key !== 'sheets_unused').slice(0, 2),
    [
      { level: 'warning', key: 'error_cells', params: { name: '<file>', sheet: 'Fórmulas', count: 3, first: 'C2 #N/A' } },
      { level: 'warning', key: 'formulas_without_value', params: { name: '<file>', sheet: 'Fórmulas', count: 3 } },
    ],
  );
});

test('fast path = SheetJS: the extent follows the cells, never the declared dimension', () => {
  // Leading empty rows and columns, inner empty rows and columns, columns past Z, cells without `r`.
  const inner = cells([
    row(3, num('C3', 1) + num('E3', 2)),
    row(6, num('C6', 3) + num('AA6', 4)),
    row(7, '<c><v>5</v></c><c><v>6</v></c>'),
    row(null, `<c r="D8"><v>7</v></c><c><v>8</v></c>`),
    row(null, '<c t="inlineStr"><is><t>sin r</t></is></c>'),
  ]);
  for (const dimension of [undefined, 'A1:B2', 'A1:XFD1048576']) {
    const { all } = sameBothWays(xlsxPackage({ sheets: [{ name: 'S', xml: worksheet(inner, { dimension }) }] }), `dimension ${dimension}`);
    const t = all.tables[0];
    assert.equal(t.header!.length, 27, 'A (cells without r in row 7 start there) to AA');
    assert.deepEqual(t.header!.slice(0, 5), ['', '', '1', '', '2']);
    assert.equal(t.rows.length, 6, 'rows 4 to 9');
    assert.deepEqual(t.rows[0], new Array(27).fill(null), 'an empty row inside the extent');
    assert.deepEqual([t.rows[2][2], t.rows[2][26]], [3, 4]);
    assert.deepEqual(t.rows[3].slice(0, 3), [5, 6, null]);
    assert.deepEqual(t.rows[4].slice(2, 6), [null, 7, 8, null], 'a cell without r follows the one before it');
    assert.equal(t.rows[5][0], 'sin r');
    assert.ok([t.header!, ...t.rows].every((r) => r[5] === '' || (r[5] === null && r.length === 27)), 'an empty column (F) inside the extent');
  }
});

test('fast path = SheetJS: far columns (AA, XFD) and a lone cell at the grid corner', () => {
  const wide = cells([row(1, num('A1', 1) + num('AA1', 2)), row(2, num('XFD2', 3))]);
  const t = sameBothWays(xlsxPackage({ sheets: [{ name: 'Ancha', xml: wide }] }), 'XFD').all.tables[0];
  assert.equal(t.header!.length, 16384);
  assert.deepEqual([t.header![0], t.header![26], t.rows[0][16383]], ['1', '2', 3]);
  const corner = sameBothWays(xlsxPackage({ sheets: [{ name: 'Esquina', xml: row(1048576, num('XFD1048576', 9)) }] }), 'corner');
  assert.deepEqual(corner.all.tables[0], { name: 'Esquina', header: ['9'], rows: [], titleCells: [9] });
});

test('fast path = SheetJS: hidden sheets keep their place in tab order; many sheets', () => {
  const sheets: PackageSpec['sheets'] = [
    { name: 'Oculta', xml: row(1, str('A1', 'x')), state: 'hidden' },
    { name: 'Visible & <1>', xml: row(1, str('A1', 'y')) },
    { name: 'Muy oculta', xml: row(1, str('A1', 'z')), state: 'veryHidden' },
    ...Array.from({ length: 40 }, (_, i) => ({ name: `Hoja ${i + 1}`, xml: row(1, num('A1', i)) })),
  ];
  const { all, first, msgs } = sameBothWays(xlsxPackage({ sheets }), 'sheets');
  assert.equal(all.sheetNames.length, 43);
  assert.deepEqual(all.sheetNames.slice(0, 3), ['Oculta', 'Visible & <1>', 'Muy oculta']);
  // One table is the first VISIBLE sheet (tools.md §2.3), on both paths.
  assert.equal(first.name, 'Visible & <1>');
  assert.equal(msgs.filter((m) => m.key === 'sheets_unused').length, 1);
});

test('fast path = SheetJS: namespace prefixes, comments, processing instructions and indentation', () => {
  const x = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const xml =
    `<?xml version="1.0" encoding="UTF-8"?>\n<x:worksheet xmlns:x="${x}">\n  <x:sheetData>\n` +
    `    <x:row r="1">\n      <!-- títulos -->\n      <x:c r="A1" t="inlineStr"><x:is><x:t>id</x:t></x:is></x:c>\n      <x:c r="B1" t="s"><x:v>0</x:v></x:c>\n    </x:row>\n` +
    `    <?proceso x?>\n    <x:row r="2"><x:c r="A2"><x:v>7</x:v></x:c><x:c r="B2" t="b"><x:v>1</x:v></x:c></x:row>\n  </x:sheetData>\n</x:worksheet>`;
  const { all } = sameBothWays(xlsxPackage({ sheets: [{ name: 'P', xml }], sharedStrings: ['<t>nombre</t>'] }), 'prefixes');
  assert.deepEqual(all.tables[0], { name: 'P', header: ['id', 'nombre'], rows: [[7, true]], titleCells: ['id', 'nombre'] });
});

test('fast path = SheetJS: workbooks written by exceljs, by SheetJS and by this service', async () => {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Datos');
  ws.addRow(['id', 'fecha', 'importe', 'ok', 'nota']);
  ws.addRow(['007', d(2024, 3, 1, 8, 30), 12.5, true, { richText: [{ text: 'rico ' }, { text: 'texto', font: { bold: true } }] }]);
  ws.addRow([null, d(2024, 3, 2), { formula: 'C2*2', result: 25 }, false, 'Ñandú']);
  ws.getCell('B2').numFmt = 'dd/mm/yyyy hh:mm';
  ws.getCell('B3').numFmt = 'dd/mm/yyyy';
  wb.addWorksheet('Vacía');
  sameBothWays(new Uint8Array(await wb.xlsx.writeBuffer()), 'exceljs');

  const aoa = [['id', 'fecha', 'n'], ['00123', new Date(Date.UTC(2024, 0, 15)), 0.1], ['x', null, -3]];
  for (const bookSST of [false, true]) {
    const book = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(aoa, { cellDates: true }), 'Hoja');
    sameBothWays(new Uint8Array(XLSX.write(book, { type: 'array', bookType: 'xlsx', bookSST }) as ArrayBuffer), `SheetJS bookSST ${bookSST}`);
  }

  const ctx = { t: (k: string) => k, name: (k: string) => k };
  const own = writeXlsx([{ name: 'Mía', header: ['a', 'b', 'c'], rows: [['_x0041_ & <', d(2024, 5, 6, 7, 8, 9), new Date(Date.UTC(1899, 11, 30, 12))], [1e21, 'x\ny', true]] }], ctx);
  const { all } = sameBothWays(own, 'writeXlsx');
  assert.deepEqual(all.tables[0].rows, [['_x0041_ & <', d(2024, 5, 6, 7, 8, 9), new Date(Date.UTC(1899, 11, 30, 12))], [1e21, 'x\ny', true]]);
});

test('fast path: what it does not read goes to SheetJS, which reads it (detection is explicit)', () => {
  const base = (over: Partial<PackageSpec>): PackageSpec => ({ sheets: [{ name: 'S', xml: row(1, str('A1', 'a')) }], ...over });
  const chart = base({
    parts: {
      'xl/_rels/workbook.xml.rels':
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/chartsheet" Target="worksheets/sheet1.xml"/></Relationships>',
    },
  });
  const cases: [string, PackageSpec][] = [
    ['an unknown cell type', base({ sheets: [{ name: 'S', xml: row(1, '<c r="A1" t="q"><v>1</v></c>') }] })],
    ['a tab that is a chartsheet', chart],
    ['no relationships for the workbook', base({ parts: { 'xl/_rels/workbook.xml.rels': undefined } })],
  ];
  for (const [label, spec] of cases) {
    const bytes = xlsxPackage(spec);
    assert.throws(() => readXlsx(bytes, { sheets: 'all', maxCells: 1e6, file: 'x', report: () => {} }), NeedsFallback, label);
    const res = readTables(inputFile('x.xlsx', bytes), { hasHeader: false, sheets: 'all', detectTypes: true });
    assert.deepEqual([res.sheetNames, res.tables.length], [['S'], 1], label);
  }
  // An .ods named .xlsx has no [Content_Types].xml: SheetJS reads it.
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['Año'], [2024]]), 'Hoja');
  const ods = new Uint8Array(XLSX.write(book, { type: 'array', bookType: 'ods' }) as ArrayBuffer);
  assert.deepEqual(readFirstTable(inputFile('odf.xlsx', ods), { hasHeader: true, detectTypes: true }).rows, [[2024]]);
});

test('fast path: a sheet handed to SheetJS halfway reports its messages once', () => {
  const bytes = xlsxPackage({
    sheets: [
      { name: 'Errores', xml: row(1, '<c r="A1" t="e"><v>#N/A</v></c>') },
      { name: 'Desconocido', xml: row(1, '<c r="A1" t="q"><v>1</v></c>') },
    ],
  });
  const msgs: string[] = [];
  readTables(inputFile('x.xlsx', bytes), { hasHeader: false, sheets: 'all', detectTypes: true, report: (_l, key) => void msgs.push(key) });
  assert.deepEqual(msgs, ['error_cells']);
});

test('fast path: entities are the five predefined and numeric references only; text is decoded once', () => {
  const xml = row(
    1,
    str('A1', '&custom; &amp;lt; &#x1F600; &#128512;') + '<c r="B1" t="str"><f>A1</f><v>&amp;lt;</v></c>' + str('C1', '<![CDATA[a <b> & c]]>'),
  );
  const [t] = readTables(inputFile('x.xlsx', xlsxPackage({ sheets: [{ name: 'S', xml }] })), { hasHeader: false, sheets: 'first', detectTypes: true }).tables;
  // SheetJS decodes a formula's text result twice (`&amp;lt;` → `<`) and splits characters past U+FFFF; the
  // fast path reads what the file says.
  assert.deepEqual(t.rows, [['&custom; &lt; 😀 😀', '&lt;', 'a <b> & c']]);
});

test('fast path: a DTD anywhere in the parts it reads is invalid_file, and nothing is expanded', () => {
  const dtd = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "AAAA"><!ENTITY b "&a;&a;&a;&a;">]>';
  const sheet = `${dtd}<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${row(1, str('A1', '&b;'))}</sheetData></worksheet>`;
  const packages: [string, Uint8Array][] = [
    ['sheet', xlsxPackage({ sheets: [{ name: 'S', xml: sheet }] })],
    ['shared strings', xlsxPackage({ sheets: [{ name: 'S', xml: row(1, '<c r="A1" t="s"><v>0</v></c>') }], sharedStrings: ['<t>x</t>'], parts: { 'xl/sharedStrings.xml': `${dtd}<sst xmlns="x"><si><t>&b;</t></si></sst>` } })],
    ['workbook', xlsxPackage({ sheets: [{ name: 'S', xml: row(1, str('A1', 'x')) }], parts: { 'xl/workbook.xml': `${dtd}<workbook/>` } })],
  ];
  for (const [label, bytes] of packages) {
    for (const name of ['x.xlsx', 'x.xls']) {
      assert.throws(
        () => readTables(inputFile(name, bytes), { hasHeader: true, sheets: 'all', detectTypes: true }),
        (err: { code: string; detail: { messageKey?: string; params: Record<string, unknown> } }) => {
          assert.equal(err.code, 'invalid_file', `${label} ${name}`);
          assert.equal(err.detail.messageKey, 'error-details.xml-dtd');
          assert.equal(err.detail.params.name, name);
          return true;
        },
      );
    }
  }
});

test('an .ods may carry a DTD (ODF allows it, OpenOffice wrote one in every manifest): SheetJS reads it, expanding nothing', () => {
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['Año'], [2024]]), 'Hoja');
  const parts = unzipSync(new Uint8Array(XLSX.write(book, { type: 'array', bookType: 'ods' }) as ArrayBuffer));
  const manifest = new TextDecoder().decode(parts['META-INF/manifest.xml']);
  parts['META-INF/manifest.xml'] = new TextEncoder().encode(
    manifest.replace(/<manifest:manifest/, '<!DOCTYPE manifest:manifest PUBLIC "-//OpenOffice.org//DTD Manifest 1.0//EN" "Manifest.dtd">\n$&'),
  );
  assert.match(new TextDecoder().decode(parts['META-INF/manifest.xml']), /<!DOCTYPE manifest:manifest/);
  assert.deepEqual(readFirstTable(inputFile('viejo.ods', zipSync(parts)), { hasHeader: true, detectTypes: true }).rows, [[2024]]);
});

test('fast path: broken XML and dangling shared-string indexes are invalid_file, never a partial table', () => {
  const cases: [string, PackageSpec][] = [
    ['cut sheet', { sheets: [{ name: 'S', xml: `<worksheet><sheetData><row r="1"><c r="A1"><v>1</v></c><c r="B1" t="inlineStr"><is><t>abc` }] }],
    ['index past the table', { sheets: [{ name: 'S', xml: row(1, '<c r="A1" t="s"><v>5</v></c>') }], sharedStrings: ['<t>a</t>'] }],
    ['nesting past 256', { sheets: [{ name: 'S', xml: row(1, '<c r="A1"><v>1</v></c>') + '<x>'.repeat(300) + '</x>'.repeat(300) }] }],
  ];
  for (const [label, spec] of cases) {
    assert.throws(() => readTables(inputFile('x.xlsx', xlsxPackage(spec)), { hasHeader: true, sheets: 'all', detectTypes: true }), { code: 'invalid_file' }, label);
  }
});

test('cell limit: refused as soon as it is passed, in every reader, naming the limit', () => {
  const over = (file: ReturnType<typeof inputFile>, maxCells: number) =>
    assert.throws(
      () => readTables(file, { hasHeader: true, sheets: 'all', detectTypes: true, maxCells, option: 'files' }),
      (err: { code: string; detail: { option: string; messageKey: string; params: Record<string, unknown> } }) => {
        assert.equal(err.code, 'too_complex', file.name);
        assert.equal(err.detail.option, 'files');
        assert.equal(err.detail.messageKey, 'error-details.cells');
        assert.equal(err.detail.params.max, maxCells);
        return true;
      },
    );
  // 11 values, then XML that would be invalid_file if it were read: the limit stops the read first.
  const eleven = cells(Array.from({ length: 11 }, (_, i) => row(i + 1, num(`A${i + 1}`, i))));
  const bytes = xlsxPackage({ sheets: [{ name: 'S', xml: worksheet(eleven).replace('</sheetData>', '<row r="12"><c r="A12"><v>1</v><<<</c></row></sheetData>') }] });
  over(inputFile('big.xlsx', bytes), 10);
  // Counted across sheets.
  const two = xlsxPackage({ sheets: [{ name: 'A', xml: eleven }, { name: 'B', xml: eleven }] });
  assert.equal(readTables(inputFile('two.xlsx', two), { hasHeader: true, sheets: 'all', detectTypes: true, maxCells: 22 }).tables.length, 2);
  over(inputFile('two.xlsx', two), 21);
  // SheetJS (xls, ods) and CSV.
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(Array.from({ length: 11 }, (_, i) => [i])), 'S');
  over(inputFile('big.xls', new Uint8Array(XLSX.write(book, { type: 'array', bookType: 'biff8' }) as ArrayBuffer)), 10);
  over(inputFile('big.ods', new Uint8Array(XLSX.write(book, { type: 'array', bookType: 'ods' }) as ArrayBuffer)), 10);
  over(inputFile('big.csv', Array.from({ length: 11 }, (_, i) => `${i}`).join('\n')), 10);
  assert.equal(readTables(inputFile('ok.csv', 'a,b\n1,\n'), { hasHeader: true, sheets: 'all', detectTypes: true, maxCells: 3 }).tables.length, 1);
});

test('cell limit: two stray cells far apart cannot make a table of billions of empty cells', () => {
  const bytes = xlsxPackage({ sheets: [{ name: 'Lejos', xml: row(1, num('A1', 1)) + row(1048576, num('XFD1048576', 2)) }] });
  for (const name of ['lejos.xlsx', 'lejos.xls']) {
    assert.throws(
      () => readTables(inputFile(name, bytes), { hasHeader: true, sheets: 'all', detectTypes: true }),
      (err: { code: string; detail: { messageKey: string; params: Record<string, unknown> } }) => {
        assert.equal(err.code, 'too_complex');
        assert.equal(err.detail.messageKey, 'error-details.sheet-extent');
        assert.deepEqual([err.detail.params.sheet, err.detail.params.rows, err.detail.params.columns], ['Lejos', 1048576, 16384]);
        return true;
      },
    );
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync } from 'fflate';
import tool from '../../../tools/merge-split/split-sheets.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { textOf, typedTitles } from '../../helpers/typed-titles.ts';
import { d, readXlsx } from '../../helpers/read-xlsx.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';


test('split-sheets: one xlsx per sheet, named after it, every cell kept', async () => {
  const out = await runTool(tool, [fixture('dos-hojas.xlsx')]);
  assert.deepEqual(out.files.map((f) => f.name), ['Enero.xlsx', 'Vacía.xlsx', 'Feb_Mar.xlsx']);
  const enero = await readXlsx(out.files[0].bytes);
  assert.deepEqual(enero.map((s) => s.name), ['Enero']);
  assert.deepEqual(enero[0].rows, [
    ['Producto', 'Unidades', 'Fecha'],
    ['Café', 10, d(2024, 1, 5)],
    ['Té', 5, d(2024, 1, 6)],
  ]);
  assert.deepEqual((await readXlsx(out.files[1].bytes))[0].rows, []);
  const feb = await readXlsx(out.files[2].bytes);
  assert.deepEqual(feb[0], { name: 'Feb|Mar', rows: [['Fecha', 'producto', 'Unidades'], [d(2024, 2, 7), 'Azúcar', 7]], formats: feb[0].formats });
  assert.equal(out.preview?.sheet, 'Enero');
});

test('split-sheets: format csv gives one CSV per sheet (comma, BOM, CRLF, titles, ISO dates)', async () => {
  const out = await runTool(tool, [fixture('ventas.xls')], { format: 'csv' });
  assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['Ciudades.csv', 'text/csv; charset=utf-8'], ['Otra.csv', 'text/csv; charset=utf-8']]);
  assert.deepEqual([...out.files[0].bytes.slice(0, 3)], [0xef, 0xbb, 0xbf]);
  assert.equal(textOf(out.files[0].bytes), '\uFEFFFecha,Ciudad,Código,Activo\r\n2024-01-15,Córdoba,00123,true\r\n2024-02-15T12:00:00,Logroño,42,false\r\n');
  assert.equal(textOf(out.files[1].bytes), '\uFEFFNota\r\nñandú\r\n');
  assert.equal(out.textPreview, 'Fecha,Ciudad,Código,Activo\r\n2024-01-15,Córdoba,00123,true\r\n2024-02-15T12:00:00,Logroño,42,false\r\n');
});

test('split-sheets: CSV keeps formula-looking text, ids and decimals exactly', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')], { format: 'csv' });
  assert.equal(
    textOf(out.files[0].bytes),
    '\uFEFFFecha,Cliente,Código,Importe,Pagado,Notas\r\n' +
      '2024-01-15,Muñoz Peña,00123,1250.5,true,=SUM(A1)\r\n' +
      '2024-02-29T13:45:00,Ángela Ibáñez,4111111111111111,-3,false,+34 600 000 000\r\n' +
      '2023-12-31,Çedille & Co,007,0.1,true,@mención\r\n' +
      ',Total,,2501,,\r\n',
  );
});

test('split-sheets: has-header false only changes the preview, never the files', async () => {
  const a = await runTool(tool, [fixture('dos-hojas.xlsx')], { 'has-header': false, format: 'csv' });
  const b = await runTool(tool, [fixture('dos-hojas.xlsx')], { format: 'csv' });
  assert.deepEqual(a.files.map((f) => textOf(f.bytes)), b.files.map((f) => textOf(f.bytes)));
  assert.deepEqual(a.preview?.columns, ['A', 'B', 'C']);
  assert.deepEqual(a.preview?.rows[0], ['Producto', 'Unidades', 'Fecha']);
});

test('split-sheets: download zips the files under the localized name', async () => {
  const es = await runTool(tool, [fixture('dos-hojas.xlsx')], {}, { download: true });
  assert.deepEqual(es.files.map((f) => f.name), ['resultado.zip']);
  assert.deepEqual(Object.keys(unzipSync(es.files[0].bytes)), ['Enero.xlsx', 'Vacía.xlsx', 'Feb_Mar.xlsx']);
  const en = await runTool(tool, [fixture('dos-hojas.xlsx')], { language: 'en' }, { download: true });
  assert.deepEqual(en.files.map((f) => f.name), ['result.zip']);
});

test('split-sheets: input and option errors', async () => {
  const book = fixture('dos-hojas.xlsx');
  await rejectsWith(runTool(tool, [fixture('ventas.csv')]), 'unsupported_format', { option: 'file' });
  await rejectsWith(runTool(tool, [book], { format: 'pdf' }), 'invalid_option', { option: 'format' });
  await rejectsWith(runTool(tool, [book], { 'all-sheets': true }), 'unknown_option', { option: 'all-sheets' });
  await rejectsWith(runTool(tool, [inputFile('x.xls', new Uint8Array(512))]), 'invalid_file', { option: 'file', params: { name: 'x.xls', format: 'xls' } });
});

test('split-sheets: a title row of numbers and dates keeps its types', async () => {
  const out = await runTool(tool, [await typedTitles()]);
  assert.deepEqual((await readXlsx(out.files[0].bytes))[0].rows, [['Zona', 2024, d(2024, 1, 1)], ['Norte', 1, 2], ['Sur', 3, 4]]);
  assert.deepEqual(out.preview?.columns, ['Zona', '2024', '2024-01-01']);
});

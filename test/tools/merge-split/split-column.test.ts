import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import tool from '../../../tools/merge-split/split-column.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { textOf } from '../../helpers/typed-titles.ts';
import { openpyxlTyped } from '../../helpers/openpyxl-typed.ts';

const csvRows = (bytes: Uint8Array) => textOf(bytes).replace(/^\uFEFF/, '').split('\r\n').filter((l) => l !== '');
const names = inputFile('n.csv', 'Id,Nombre,Tags\n1,  Ana   María  Pérez ,a;b;;c\n2,Bea,00123\n3,,\n');

test('split-column: space splits at runs of spaces, outer spaces ignored; new columns after the original; parts are text', async () => {
  const out = await runTool(tool, [names], { column: 'Nombre' });
  assert.equal(out.files[0].name, 'n-columna-dividida.csv');
  assert.deepEqual(csvRows(out.files[0].bytes), ['Id,Nombre,Nombre 1,Nombre 2,Nombre 3,Tags', '1,  Ana   María  Pérez ,Ana,María,Pérez,a;b;;c', '2,Bea,Bea,,,00123', '3,,,,,']);
});

test('split-column: other delimiters split at every occurrence (empty parts keep their place); max-parts keeps the rest; names; keep-column=false', async () => {
  const out = await runTool(tool, [names], { column: 3, delimiter: 'semicolon', 'keep-column': false, 'new-column-names': 'T1,T2' });
  assert.deepEqual(csvRows(out.files[0].bytes), ['Id,Nombre,T1,T2,Tags 3,Tags 4', '1,  Ana   María  Pérez ,a,b,,c', '2,Bea,00123,,,', '3,,,,,']);
  const capped = await runTool(tool, [names], { column: 'Tags', delimiter: ';', 'max-parts': 2, language: 'en' });
  assert.equal(capped.files[0].name, 'n-split-column.csv');
  assert.deepEqual(csvRows(capped.files[0].bytes), ['Id,Nombre,Tags,Tags 1,Tags 2', '1,  Ana   María  Pérez ,a;b;;c,a,b;;c', '2,Bea,00123,00123,', '3,,,,']);
  const spaced = await runTool(tool, [names], { column: 'Nombre', 'max-parts': 2 });
  assert.deepEqual(csvRows(spaced.files[0].bytes)[1], '1,  Ana   María  Pérez ,Ana,María  Pérez,a;b;;c');
  const more = await runTool(tool, [names], { column: 'Tags', delimiter: ';', 'new-column-names': ['A', 'B', 'C', 'D', 'E', 'Id'] });
  assert.equal(csvRows(more.files[0].bytes)[0], 'Id,Nombre,Tags,A,B,C,D,E,Id (2)', 'more names than parts add columns; a taken title gets (2)');
  const untrimmed = await runTool(tool, [inputFile('t.csv', 'a,b\n x | y ,1\n')], { column: 'a', delimiter: 'pipe', 'trim-parts': false, 'keep-column': false });
  assert.deepEqual(csvRows(untrimmed.files[0].bytes), ['a 1,a 2,b', ' x , y ,1']);
  const trimmed = await runTool(tool, [inputFile('t.csv', 'a,b\n x | y ,1\n')], { column: 'a', delimiter: 'pipe', 'keep-column': false });
  assert.deepEqual(csvRows(trimmed.files[0].bytes), ['a 1,a 2,b', 'x,y,1']);
});

test('split-column: into=rows repeats the other cells; an empty cell keeps its row once', async () => {
  const out = await runTool(tool, [names], { column: 'Tags', delimiter: 'semicolon', into: 'rows' });
  assert.deepEqual(csvRows(out.files[0].bytes), ['Id,Nombre,Tags', '1,  Ana   María  Pérez ,a', '1,  Ana   María  Pérez ,b', '1,  Ana   María  Pérez ,', '1,  Ana   María  Pérez ,c', '2,Bea,00123', '3,,']);
  assert.ok(out.messages.some((m) => m.text.includes('pasaron a ser 6')));
});

test('split-column: regex on RE2 (linear time), empty matches never split; newline; invalid pattern and long literal refused', async () => {
  const f = inputFile('r.csv', 'v\n"a1b22c\nd"\n');
  const re = await runTool(tool, [f], { column: 'v', delimiter: '[0-9]+', regex: true, 'keep-column': false });
  assert.deepEqual(csvRows(re.files[0].bytes).slice(0, 1), ['v 1,v 2,v 3']);
  assert.match(textOf(re.files[0].bytes), /a,b,"c\nd"/);
  const empty = await runTool(tool, [f], { column: 'v', delimiter: 'x*', regex: true, 'keep-column': false });
  assert.equal(csvRows(empty.files[0].bytes)[0], 'v 1', 'a pattern that matches only empty text does not split');
  const nl = await runTool(tool, [f], { column: 'v', delimiter: 'newline', 'keep-column': false });
  assert.match(textOf(nl.files[0].bytes), /v 1,v 2\r\na1b22c,d\r\n/);
  // A pattern that backtracks exponentially elsewhere runs in linear time here.
  const evil = inputFile('e.csv', `v\n${'a'.repeat(5000)}!\n`);
  const safe = await runTool(tool, [evil], { column: 'v', delimiter: '(a+)+b', regex: true });
  assert.equal(csvRows(safe.files[0].bytes).length, 2);
  await rejectsWith(runTool(tool, [f], { column: 'v', delimiter: '(a)\\1', regex: true }), 'invalid_option', { option: 'delimiter' });
  await rejectsWith(runTool(tool, [f], { column: 'v', delimiter: '(?=a)', regex: true }), 'invalid_option', { option: 'delimiter' });
  await rejectsWith(runTool(tool, [f], { column: 'v', delimiter: 'abcdefghijk' }), 'invalid_option', { option: 'delimiter' });
  await rejectsWith(runTool(tool, [f], { column: 'v', delimiter: 'x'.repeat(1001), regex: true }), 'invalid_option', { option: 'delimiter' });
});

test('split-column: non-text cells split in display form; parts stay text (openpyxl); other cells keep their types', async () => {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Datos').addRows([
    ['Importe', 'Fecha'],
    [1234.5, new Date(Date.UTC(2024, 0, 15))],
  ]);
  const file = inputFile('libro.xlsx', new Uint8Array(await wb.xlsx.writeBuffer()));
  const out = await runTool(tool, [file], { column: 'Importe', delimiter: 'comma' });
  const [sheet] = openpyxlTyped(out.files[0].bytes);
  assert.deepEqual(sheet.rows[1], [['float', '1234.5'], ['str', '1234'], ['str', '5'], ['datetime', '2024-01-15 00:00:00']]);
  const byDate = await runTool(tool, [file], { column: 'Fecha', delimiter: '/', 'keep-column': false });
  assert.deepEqual(openpyxlTyped(byDate.files[0].bytes)[0].rows[1], [['float', '1234.5'], ['str', '15'], ['str', '01'], ['str', '2024']]);
});

test('split-column: more than 100 parts with max-parts=0 is refused naming max-parts; into=rows takes them', async () => {
  const f = inputFile('m.csv', `v\n${Array.from({ length: 150 }, (_, i) => i).join(' ')}\n`);
  await rejectsWith(runTool(tool, [f], { column: 'v' }), 'invalid_option', { option: 'max-parts', params: { found: 150 } });
  const rows = await runTool(tool, [f], { column: 'v', into: 'rows' });
  assert.equal(csvRows(rows.files[0].bytes).length, 151);
  const capped = await runTool(tool, [f], { column: 'v', 'max-parts': 100 });
  assert.equal(csvRows(capped.files[0].bytes)[0].split(',').length, 101);
  await rejectsWith(runTool(tool, [f], { column: 'v', 'max-parts': 101 }), 'invalid_option', { option: 'max-parts' });
  await rejectsWith(runTool(tool, [f], { column: 'w' }), 'invalid_option', { option: 'column' });
  await rejectsWith(runTool(tool, [f], { column: 'v', into: 'both' }), 'invalid_option', { option: 'into' });
  await rejectsWith(runTool(tool, [f], { column: 'v', 'new-column-names': ['a', ''] }), 'invalid_option', { option: 'new-column-names' });
});

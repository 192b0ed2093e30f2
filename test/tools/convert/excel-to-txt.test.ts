// excel-to-txt: every line checked by its length in characters and its fields by position; windows-1252 output
// decoded by iconv, not by the encoder that wrote it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import ExcelJS from 'exceljs';
import tool from '../../../tools/convert/excel-to-txt.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const lines = (b: Uint8Array, end = '\r\n') => {
  const t = text(b);
  assert.ok(t.endsWith(end), 'every line ends with the line ending');
  return t.slice(0, -end.length).split(end);
};
const chars = (s: string) => [...s].length;

test('excel-to-txt: ventas.xlsx in fixed-width columns, numbers and dates right-aligned, CRLF, UTF-8 without BOM', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')]);
  const [txt] = out.files;
  assert.deepEqual([txt.name, txt.contentType], ['ventas.txt', 'text/plain; charset=utf-8']);
  assert.notEqual(txt.bytes[0], 0xef);
  const ls = lines(txt.bytes);
  assert.deepEqual(ls, [
    '           Fecha Cliente       Código           Importe Pagado    Notas          ',
    '      15/01/2024 Muñoz Peña    00123             1250,5 VERDADERO =SUM(A1)       ',
    '29/02/2024 13:45 Ángela Ibáñez 4111111111111111      -3 FALSO     +34 600 000 000',
    '      31/12/2023 Çedille & Co  007                  0,1 VERDADERO @mención       ',
    '                 Total                             2501                          ',
  ]);
  assert.equal(new Set(ls.map(chars)).size, 1, 'every line the same length');
  assert.deepEqual(out.preview?.columns, ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas']);
  assert.match(out.messages.at(-1)!.text, /4 fila\(s\) y 6 columna\(s\).*líneas de 81 caracteres/);
});

test('excel-to-txt: columns, widths (auto items), align, separators, header-line, LF, include-header, has-header', async () => {
  const picked = lines((await runTool(tool, [fixture('ventas.xlsx')], { columns: 'Importe, 2', widths: '10,,', 'column-separator': 'pipe', 'header-line': true, 'line-ending': 'lf' })).files[0].bytes, '\n');
  assert.deepEqual(picked.slice(0, 3), ['   Importe | Cliente      ', '--------------------------', '    1250,5 | Muñoz Peña   ']);
  const packed = lines((await runTool(tool, [fixture('ventas.xlsx')], { columns: ['Código', 4], widths: [18, null], 'column-separator': 'none', align: 'left', 'include-header': false })).files[0].bytes);
  assert.deepEqual(packed, ['00123             1250,5', '4111111111111111  -3    ', '007               0,1   ', '                  2501  ']);
  const right = lines((await runTool(tool, [fixture('ventas.xlsx')], { columns: '2', align: 'right', language: 'en' })).files[0].bytes);
  assert.deepEqual(right, ['      Cliente', '   Muñoz Peña', 'Ángela Ibáñez', ' Çedille & Co', '        Total']);
  const bare = lines((await runTool(tool, [fixture('ventas.xlsx')], { 'has-header': false, columns: '2' })).files[0].bytes);
  assert.deepEqual(bare, ['Cliente      ', 'Muñoz Peña   ', 'Ángela Ibáñez', 'Çedille & Co ', 'Total        ']);
});

test('excel-to-txt: a CSV field shows as written; 1.50 counts as a number for alignment; breaks become spaces', async () => {
  const out = await runTool(tool, [inputFile('c.csv', 'id,importe,nota\n00123,1.50,"a\r\nb\tc"\n7,10,x\u0007y\n')]);
  assert.deepEqual(lines(out.files[0].bytes), ['id    importe nota ', '00123    1.50 a b c', '7          10 xy   ']);
  assert.deepEqual(out.messages.map((m) => m.level), ['info', 'warning', 'info']);
  assert.match(out.messages[0].text, /^2 salto/);
  assert.match(out.messages[1].text, /1 carácter\(es\) de control.*C3/);
});

test('excel-to-txt: widths count characters after NFC (accents, emoji), not bytes', async () => {
  const out = await runTool(tool, [inputFile('n.csv', 'nombre,x\nJose\u0301,1\n😀😀,2\n')]);
  const ls = lines(out.files[0].bytes);
  assert.deepEqual(ls, ['nombre x', 'José   1', '😀😀     2']);
  assert.equal(new Set(ls.map(chars)).size, 1);
});

test('excel-to-txt: too-long is an error naming column, row and length, or a cut with a warning', async () => {
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { widths: ',10' }), 'invalid_option', { option: 'widths', params: { column: 'Cliente', row: 3, length: 13 } });
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { widths: ',5' }), 'invalid_option', { option: 'widths', params: { column: 'Cliente', row: 1, length: 7 } });
  const cut = await runTool(tool, [fixture('ventas.xlsx')], { columns: 'Cliente', widths: '5', 'too-long': 'truncate' });
  assert.deepEqual(lines(cut.files[0].bytes), ['Clien', 'Muñoz', 'Ángel', 'Çedil', 'Total']);
  assert.match(cut.messages.find((m) => m.level === 'warning')!.text, /4 valor\(es\).*B1/);
});

test('excel-to-txt: windows-1252 output reads back with iconv; a character it lacks is an error naming it and its row', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')], { encoding: 'windows-1252', columns: 'Cliente' });
  assert.equal(out.files[0].contentType, 'text/plain; charset=windows-1252');
  const decoded = execFileSync('iconv', ['-f', 'WINDOWS-1252', '-t', 'UTF-8'], { input: out.files[0].bytes }).toString('utf8');
  assert.equal(decoded, 'Cliente      \r\nMuñoz Peña   \r\nÁngela Ibáñez\r\nÇedille & Co \r\nTotal        \r\n');
  assert.equal(out.files[0].bytes.length, decoded.length, 'one byte a character');
  assert.match(out.textPreview ?? '', /Muñoz Peña/);
  const euro = await runTool(tool, [inputFile('e.csv', 'p\n10 €\n')], { encoding: 'windows-1252' });
  assert.deepEqual([...euro.files[0].bytes.subarray(6, 10)], [0x31, 0x30, 0x20, 0x80]);
  await rejectsWith(runTool(tool, [inputFile('e.csv', 'p\nok\nЖ\n')], { encoding: 'windows-1252' }), 'invalid_option', { option: 'encoding', params: { char: 'Ж', row: 3, code: 'U+0416' } });
});

test('excel-to-txt: option errors name their option', async () => {
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { widths: '1,2,3,4,5,6,7' }), 'invalid_option', { option: 'widths' });
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { widths: '0' }), 'invalid_option', { option: 'widths' });
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { widths: '1001' }), 'invalid_option', { option: 'widths' });
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { columns: 'Nada' }), 'invalid_option', { option: 'columns' });
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { columns: 'Cliente,2' }), 'invalid_option', { option: 'columns' });
  for (const [option, value] of [['align', 'center'], ['column-separator', 'tab'], ['too-long', 'wrap'], ['encoding', 'latin1'], ['line-ending', 'cr']]) {
    await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { [option]: value }), 'invalid_option', { option });
  }
});

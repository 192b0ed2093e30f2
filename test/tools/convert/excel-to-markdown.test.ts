// excel-to-markdown: the result re-read by a GFM parser (marked's lexer, as GitHub renders tables), and read
// back by markdown-to-excel cell for cell (the file re-read with openpyxl).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import { Lexer, type Tokens } from 'marked';
import tool from '../../../tools/convert/excel-to-markdown.ts';
import back from '../../../tools/convert/markdown-to-excel.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { openpyxlSheets } from '../../helpers/openpyxl.ts';
import { typedTitles } from '../../helpers/typed-titles.ts';

const text = (b: Uint8Array) => new TextDecoder().decode(b);
/** The tables a GFM parser finds, as the text each cell renders to (a cell's inline tokens' text). */
function gfmTables(md: string): { header: string[]; rows: string[][]; align: (string | null)[] }[] {
  const found: Tokens.Table[] = [];
  for (const t of new Lexer({ gfm: true }).lex(md)) if (t.type === 'table') found.push(t as Tokens.Table);
  return found.map((t) => ({ header: t.header.map((c) => c.text), rows: t.rows.map((r) => r.map((c) => c.text)), align: t.align }));
}

async function xlsx(sheets: Record<string, unknown[][]>): Promise<ReturnType<typeof inputFile>> {
  const wb = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const ws = wb.addWorksheet(name);
    for (const r of rows) ws.addRow(r);
  }
  return inputFile('libro.xlsx', new Uint8Array(await wb.xlsx.writeBuffer()));
}

test('excel-to-markdown: ventas.xlsx gives one GFM table in display form, numbers right-aligned (es)', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')]);
  const [md] = out.files;
  assert.deepEqual([md.name, md.contentType], ['ventas.md', 'text/markdown; charset=utf-8']);
  assert.equal(
    text(md.bytes),
    [
      '| Fecha | Cliente | Código | Importe | Pagado | Notas |',
      '| --- | --- | --- | ---: | --- | --- |',
      '| 15/01/2024 | Muñoz Peña | 00123 | 1250,5 | VERDADERO | =SUM(A1) |',
      '| 29/02/2024 13:45 | Ángela Ibáñez | 4111111111111111 | -3 | FALSO | +34 600 000 000 |',
      '| 31/12/2023 | Çedille & Co | 007 | 0,1 | VERDADERO | @mención |',
      '|  | Total |  | 2501 |  |  |',
      '',
    ].join('\n'),
  );
  assert.equal(md.bytes[0], 0x7c, 'no BOM');
  const [table] = gfmTables(text(md.bytes));
  assert.deepEqual(table.align, [null, null, null, 'right', null, null]);
  assert.equal(table.rows.length, 4);
  assert.deepEqual(out.preview?.columns, ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas']);
  assert.deepEqual(out.preview?.rows[0], ['15/01/2024', 'Muñoz Peña', '00123', '1250,5', 'VERDADERO', '=SUM(A1)']);
  assert.match(out.messages.at(-1)!.text, /1 tabla\(s\) Markdown con 4 fila\(s\)/);
});

test('excel-to-markdown: English display, align-numbers=false, has-header=false, typed titles', async () => {
  const en = text((await runTool(tool, [fixture('ventas.xlsx')], { language: 'en', 'align-numbers': false })).files[0].bytes);
  assert.match(en, /^\| --- \| --- \| --- \| --- \| --- \| --- \|$/m);
  assert.match(en, /^\| 2024-01-15 \| Muñoz Peña \| 00123 \| 1250\.5 \| TRUE \| =SUM\(A1\) \|$/m);
  const bare = text((await runTool(tool, [fixture('ventas.xlsx')], { 'has-header': false })).files[0].bytes).split('\n');
  assert.equal(bare[0], '| Columna 1 | Columna 2 | Columna 3 | Columna 4 | Columna 5 | Columna 6 |');
  assert.equal(bare[2], '| Fecha | Cliente | Código | Importe | Pagado | Notas |');
  // A column with a title row of text is not numeric once the title is data.
  assert.equal(bare[1], '| --- | --- | --- | --- | --- | --- |');
  const typed = text((await runTool(tool, [await typedTitles()])).files[0].bytes).split('\n');
  assert.equal(typed[0], '| Zona | 2024 | 01/01/2024 |');
  assert.equal(typed[1], '| --- | ---: | ---: |');
});

test('excel-to-markdown: a CSV shows its fields as written; a number-like field counts for alignment', async () => {
  const out = await runTool(tool, [fixture('semicolon.csv')]);
  const [table] = gfmTables(text(out.files[0].bytes));
  assert.deepEqual(table.header, ['id', 'nombre', 'nota', 'importe', 'fecha']);
  assert.deepEqual(table.rows[0], ['00123', 'Pérez; Juan', 'línea 1<br>línea 2', '1,5', '2024-01-31']);
  assert.deepEqual(table.align, [null, null, null, 'right', null]);
});

const TRICKY = ['a | b', 'línea 1\nlínea 2', '<script>alert(1)</script>', 'x &amp; y &#124; &copy;', '*no* _énfasis_ __x__', 'snake_case_name', '`code` ~~tachado~~', '[enlace](http://ejemplo.com) ![img](x.png)', 'C:\\ruta\\archivo', '\\|', '  espacios  ', '# no heading', '<!-- comentario -->', 'a < b > c && d', '<http://auto.link>', 'https://www.ejemplo.com/a_b?c=d&e=f'];

test('excel-to-markdown: pipes, line breaks, tags, entities and markup are escaped; GitHub shows no tag', async () => {
  const file = await xlsx({ Datos: [['Texto', 'Número'], ...TRICKY.map((t, i) => [t, i])] });
  const md = text((await runTool(tool, [file])).files[0].bytes);
  const lines = md.split('\n');
  assert.equal(lines[2], '| a \\| b | 0 |');
  assert.equal(lines[3], '| línea 1<br>línea 2 | 1 |');
  assert.equal(lines[4], '| &lt;script>alert(1)&lt;/script> | 2 |');
  assert.equal(lines[5], '| x &amp;amp; y &amp;#124; &amp;copy; | 3 |');
  assert.equal(lines[12], '| espacios | 10 |', 'trimmed');
  // Every line is one table row: the table has every row, and every row two cells.
  const [table] = gfmTables(md);
  assert.equal(table.rows.length, TRICKY.length);
  for (const r of table.rows) assert.equal(r.length, 2);
  // No raw HTML reaches a renderer: the only tags are the <br> line breaks.
  for (const t of new Lexer({ gfm: true }).lex(md)) {
    if (t.type !== 'table') continue;
    for (const cell of (t as Tokens.Table).rows.flat()) for (const tok of cell.tokens) if (tok.type === 'html') assert.match(tok.raw, /^<br>$/);
  }
});

test('excel-to-markdown → markdown-to-excel gives back the same cells as text (openpyxl), on every sheet', async () => {
  const file = await xlsx({
    Datos: [['Texto', 'Número', 'Fecha'], ...TRICKY.map((t, i) => [t, i + 0.5, new Date(Date.UTC(2024, 0, i + 1))])],
    'Ventas | 2024': [['Región', 'Importe'], ['Norte', 1234.5], ['Sur', -7]],
  });
  const md = await runTool(tool, [file], { 'all-sheets': true });
  const xl = await runTool(back, [inputFile('libro.md', md.files[0].bytes)], { 'detect-types': false });
  const sheets = openpyxlSheets(xl.files[0].bytes);
  assert.deepEqual(sheets.map((s) => s.name), ['Datos', 'Ventas | 2024']);
  assert.deepEqual(sheets[0].rows[0], ['Texto', 'Número', 'Fecha']);
  TRICKY.forEach((t, i) => {
    const n = String(i + 0.5).replace('.', ',');
    const day = `${String(i + 1).padStart(2, '0')}/01/2024`;
    assert.deepEqual(sheets[0].rows[i + 1], [t.trim(), n, day], JSON.stringify(t));
  });
  assert.deepEqual(sheets[1].rows, [['Región', 'Importe'], ['Norte', '1234,5'], ['Sur', '-7']]);
  // Typed back (the default): numbers and dates are numbers and dates again.
  const typed = openpyxlSheets((await runTool(back, [inputFile('libro.md', md.files[0].bytes)])).files[0].bytes);
  assert.deepEqual(typed[1].rows, [['Región', 'Importe'], ['Norte', 1234.5], ['Sur', -7]]);
  assert.deepEqual(typed[0].rows[1], ['a | b', 0.5, { date: '2024-01-01T00:00:00' }]);
});

test('excel-to-markdown: all-sheets gives ## sections in tab order and skips empty sheets with a warning', async () => {
  const out = await runTool(tool, [fixture('dos-hojas.xlsx')], { 'all-sheets': true });
  const md = text(out.files[0].bytes);
  assert.deepEqual(md.split('\n').filter((l) => l.startsWith('## ')), ['## Enero', '## Feb|Mar']);
  assert.equal(gfmTables(md).length, 2);
  assert.deepEqual(out.messages.map((m) => m.level), ['warning', 'info']);
  assert.match(out.messages[0].text, /«Vacía».*vacía y se omite/);
  const first = text((await runTool(tool, [fixture('dos-hojas.xlsx')])).files[0].bytes);
  assert.ok(!first.includes('##') && first.startsWith('| Producto |'), first);
});

test('excel-to-markdown: a table with no data rows keeps its header and delimiter; nothing at all is invalid_file', async () => {
  const titlesOnly = text((await runTool(tool, [inputFile('t.csv', 'a,b\n')])).files[0].bytes);
  assert.equal(titlesOnly, '| a | b |\n| --- | --- |\n');
  await rejectsWith(runTool(tool, [await xlsx({ Vacía: [] })]), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('x.md', '| a |\n|---|\n')]), 'unsupported_format', { option: 'file' });
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { 'align-numbers': 'yes' }), 'invalid_option', { option: 'align-numbers' });
});

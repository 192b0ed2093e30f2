// html-to-excel on saved pages of several kinds (test/fixtures/html: a Wikipedia-style table with spans and
// footnotes, a bank statement in windows-1252 declared by http-equiv, an Excel "HTML .xls" download), and on the
// service's own excel-to-html output. xlsx results are read back with openpyxl (values, types, merged ranges);
// every refusal asserts its code and option.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import tool from '../../../tools/convert/html-to-excel.ts';
import excelToHtml from '../../../tools/convert/excel-to-html.ts';
import excelToCsv from '../../../tools/convert/excel-to-csv.ts';
import { writeXlsx } from '../../../tools/formats/xlsx/write.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';

const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
const OPENPYXL = `
import sys, json, io, datetime, openpyxl
wb = openpyxl.load_workbook(io.BytesIO(sys.stdin.buffer.read()))
def v(c):
    if isinstance(c, datetime.datetime): return {'date': c.isoformat()}
    return c
print(json.dumps([{'name': ws.title, 'rows': [[v(c) for c in r] for r in ws.iter_rows(values_only=True)], 'merges': sorted(str(m) for m in ws.merged_cells.ranges)} for ws in wb.worksheets]))
`;

interface Sheet {
  name: string;
  rows: unknown[][];
  merges: string[];
}

/** The workbook as openpyxl reads it: sheet names, cell values (dates as ISO text), merged ranges. */
function openpyxl(bytes: Uint8Array): Sheet[] {
  const r = spawnSync(PYTHON, ['-c', OPENPYXL], { input: bytes, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const date = (s: string) => ({ date: s });

async function sheets(name: string, options: Record<string, unknown> = {}) {
  const out = await runTool(tool, [fixture(`html/${name}`)], options);
  return { files: out.files, messages: out.messages.map((m) => `${m.level}: ${m.text}`), sheets: out.files[0].name.endsWith('.xlsx') ? openpyxl(out.files[0].bytes) : [] };
}

test('html-to-excel: a Wikipedia table: caption as the sheet name, header spans merged, footnote marks as text, scripts and empty layout tables left out', async () => {
  const out = await sheets('wikipedia.html');
  assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['wikipedia.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']]);
  assert.deepEqual(out.sheets, [
    {
      name: 'Municipios más poblados (padrón',
      rows: [
        ['Pos.', 'Municipio', 'Provincia', 'Población', null],
        [null, null, null, '2023', '2013'],
        [1, 'Madrid[2]', 'Madrid', 3332035, 3207247],
        [2, 'Barcelona', 'Barcelona', 1660122, 1611822],
        [3, 'Valencia (València)', 'Valencia', 807693, 792303],
        [4, 'Torrent[3][cita requerida]', null, 88262, '—'],
      ],
      merges: ['A1:A2', 'B1:B2', 'C1:C2', 'C5:C6', 'D1:E1'],
    },
  ]);
  assert.ok(out.messages.some((m) => m.includes('3 tabla(s) sin ningún valor')), out.messages.join('\n'));
  // fill: every covered cell holds the value; first-only: no merged range.
  const filled = (await sheets('wikipedia.html', { spans: 'fill' })).sheets[0];
  assert.deepEqual(filled.rows.slice(0, 2), [['Pos.', 'Municipio', 'Provincia', 'Población', 'Población'], ['Pos.', 'Municipio', 'Provincia', '2023', '2013']]);
  assert.equal(filled.rows[5][2], 'Valencia');
  assert.deepEqual(filled.merges, []);
  const first = (await sheets('wikipedia.html', { spans: 'first-only' })).sheets[0];
  assert.deepEqual(first.rows, out.sheets[0].rows);
  assert.deepEqual(first.merges, []);
});

test('html-to-excel: a bank statement in windows-1252 (http-equiv): thead, body, then tfoot; dates typed, comma amounts kept as text', async () => {
  const out = await sheets('extracto.html');
  assert.deepEqual(out.sheets.map((s) => s.name), ['Tabla 1', 'Cuenta ES12 3456 7890 1234 5678']);
  const [letterhead, moves] = out.sheets;
  assert.deepEqual(letterhead.rows, [['Banco Ejemplo, S.A.', 'Oficina 0123 · Málaga']]);
  assert.deepEqual(moves.rows, [
    ['Fecha', 'Fecha valor', 'Concepto', 'Importe (€)', 'Saldo (€)'],
    [date('2024-01-02T00:00:00'), date('2024-01-02T00:00:00'), 'RECIBO LUZ IBERDROLA\u00a0\u00a0ENERO', '-58,21', '1.940,56'],
    [date('2024-01-05T00:00:00'), date('2024-01-04T00:00:00'), 'TRANSFERENCIA DE Peña Muñoz, José\nRef. 00012345', '-400,00', '1.540,56'],
    [date('2024-01-31T00:00:00'), date('2024-01-31T00:00:00'), 'COMISIÓN MANTENIMIENTO "CUENTA ÓPTIMA"', '-58,21', '1.482,35'],
    ['Saldo final', null, null, null, '1.482,35'],
  ]);
  assert.deepEqual(moves.merges, ['A5:C5']);
  // table=2 alone, as CSV: one table gives <base>.csv; detect-types=false keeps the dates as written.
  const csv = await runTool(tool, [fixture('html/extracto.html')], { table: '2', format: 'csv', 'detect-types': false, spans: 'fill' });
  assert.deepEqual(csv.files.map((f) => [f.name, f.contentType]), [['extracto.csv', 'text/csv; charset=utf-8']]);
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(csv.files[0].bytes);
  assert.ok(text.startsWith('\uFEFFFecha,Fecha valor,Concepto,Importe (€),Saldo (€)\r\n02/01/2024,02/01/2024,'), text);
  assert.ok(text.endsWith('Saldo final,Saldo final,Saldo final,,"1.482,35"\r\n'), text);
  // Several tables as CSV: one file per table, named after its sheet.
  const both = await runTool(tool, [fixture('html/extracto.html')], { format: 'csv' });
  assert.deepEqual(both.files.map((f) => f.name), ['Tabla 1.csv', 'Cuenta ES12 3456 7890 1234 5678.csv']);
});

test('html-to-excel: an Excel "HTML .xls" download: read by html-to-excel as .html and by the .xls tools with an info message', async () => {
  const html = await runTool(tool, [fixture('html/pedidos.xls', 'pedidos.html')]);
  assert.deepEqual(openpyxl(html.files[0].bytes)[0].rows, [
    ['Pedido', 'Cliente', 'Fecha', 'Total', 'Código postal'],
    [1001, 'Peña Hermanos', date('2024-03-01T00:00:00'), 1250.5, '01001'],
    [1002, 'Café Ñandú', date('2024-03-02T00:00:00'), -19.99, 29001],
  ]);
  const csv = await runTool(excelToCsv, [fixture('html/pedidos.xls')]);
  assert.ok(csv.messages.some((m) => m.level === 'info' && m.text.includes('página HTML')), JSON.stringify(csv.messages));
  assert.equal(new TextDecoder('utf-8', { ignoreBOM: true }).decode(csv.files[0].bytes), '\uFEFFPedido,Cliente,Fecha,Total,Código postal\r\n1001,Peña Hermanos,2024-03-01,1250.5,01001\r\n1002,Café Ñandú,2024-03-02,-19.99,29001\r\n');
});

test('html-to-excel: nested tables are tables of their own, counted at their start tag; rowspan=0 runs to the end of its section; spans clamped', async () => {
  const page = `<table><caption>Fuera</caption><tr><td>a</td><td>antes<table><caption>Dentro</caption><tr><td>x</td><td>y</td></tr></table>después</td></tr>
    <tr><td rowspan="0">r0</td><td>1</td></tr><tr><td>2</td></tr><tr><td colspan="5000">ancha</td></tr></table><table><tr><td>tercera</td></tr></table>`;
  const out = await runTool(tool, [inputFile('anidadas.htm', page)]);
  const [outer, inner, third] = openpyxl(out.files[0].bytes);
  assert.deepEqual([outer.name, inner.name, third.name], ['Fuera', 'Dentro', 'Tabla 3']);
  assert.deepEqual(outer.rows.map((r) => r.slice(0, 2)), [['a', 'antes\ndespués'], ['r0', 1], [null, 2], [null, 'ancha']]);
  assert.equal(outer.rows[0].length, 1001);
  assert.deepEqual(outer.merges, ['A2:A4', 'B4:ALM4']);
  assert.deepEqual(inner.rows, [['x', 'y']]);
  const only = await runTool(tool, [inputFile('anidadas.htm', page)], { table: 2 });
  assert.deepEqual(openpyxl(only.files[0].bytes).map((s) => s.name), ['Dentro']);
});

test('html-to-excel: text content: <br>, p, div and li break lines, whitespace collapses, entities decode, script/style/template/comments skipped', async () => {
  const page = `<table><tr><th>Nota</th></tr><tr><td>
      uno   dos<br>tres<p>cuatro</p><div>cinco</div><ul><li>seis</li><li>siete</li></ul>&lt;b&gt; &amp; &eacute;&#8364;
      <script>alert(1)</script><style>td{}</style><template>oculto</template><!-- comentario --></td></tr>
      <tr><th>1234</th></tr></table>`;
  const out = await runTool(tool, [inputFile('texto.html', page)]);
  assert.deepEqual(openpyxl(out.files[0].bytes)[0].rows, [['Nota'], ['uno dos\ntres\ncuatro\ncinco\nseis\nsiete\n<b> & é€'], ['1234']]);
});

test('html-to-excel: refusals: no table with a value, a table past the count, bad options, a package named .html', async () => {
  await rejectsWith(runTool(tool, [inputFile('vacia.html', '<p>sin tablas</p><table><tr><td> </td></tr></table>')]), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [fixture('html/extracto.html')], { table: 3 }), 'invalid_option', { option: 'table', params: { count: 2 } });
  await rejectsWith(runTool(tool, [fixture('html/extracto.html')], { table: '0' }), 'invalid_option', { option: 'table' });
  await rejectsWith(runTool(tool, [fixture('html/extracto.html')], { table: 'primera' }), 'invalid_option', { option: 'table' });
  await rejectsWith(runTool(tool, [fixture('html/extracto.html')], { spans: 'join' }), 'invalid_option', { option: 'spans' });
  await rejectsWith(runTool(tool, [fixture('html/extracto.html')], { format: 'ods' }), 'invalid_option', { option: 'format' });
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx', 'ventas.html')]), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [fixture('html/extracto.html', 'extracto.txt')]), 'unsupported_format', { option: 'file' });
  const deep = `${'<table><tr><td>'.repeat(257)}x${'</td></tr></table>'.repeat(257)}`;
  await rejectsWith(runTool(tool, [inputFile('honda.html', deep)]), 'invalid_file', { option: 'file', params: { max: 256 } });
  const ok = `${Array.from({ length: 256 }, (_, i) => `<table><tr><td>n${i + 1}`).join('')}${'</td></tr></table>'.repeat(256)}`;
  const innermost = await runTool(tool, [inputFile('honda.html', ok)], { table: 256 });
  assert.deepEqual(openpyxl(innermost.files[0].bytes)[0].rows, [['n256']]);
});

test('html-to-excel: charsets: BOM, <meta charset>, http-equiv, a declared charset beyond windows-1252, undeclared windows-1252', async () => {
  const body = '<table><tr><td>Peña €</td></tr></table>';
  const cases: [string, Uint8Array][] = [
    ['utf-16le bom', new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(body, 'utf16le')]))],
    ['meta windows-1252', new Uint8Array(Buffer.from(`<meta charset="windows-1252">${body}`.replace('€', '\x80'), 'latin1'))],
    ['iso-8859-15', new Uint8Array(Buffer.from(`<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-15">${body}`.replace('€', '\xa4'), 'latin1'))],
    ['undeclared', new Uint8Array(Buffer.from(body.replace('€', '\x80'), 'latin1'))],
    ['utf-8 declared', new TextEncoder().encode(`<meta charset=utf-8>${body}`)],
  ];
  for (const [label, bytes] of cases) assert.deepEqual(openpyxl((await runTool(tool, [inputFile('p.html', bytes)])).files[0].bytes)[0].rows, [['Peña €']], label);
});

// excel-to-html writes what html-to-excel reads back: the same titles and cells (text trimmed and with its
// whitespace runs collapsed, as any HTML reader sees it).
const ctx = { t: (k: string) => k, name: () => 'Hoja' };
const TITLES = ['Nombre', 'Código', 'Importe', 'Fecha', 'Hora', 'Activo', 'Nota'];
const ROWS = [
  ['Muñoz & <Peña>', '00123', 1250.5, new Date('2024-01-15T00:00:00Z'), new Date('2024-01-15T10:30:00Z'), true, '=SUM(A1)'],
  ['línea 1\nlínea 2', '4111111111111111', -3, new Date('1999-12-31T00:00:00Z'), new Date('2000-02-29T23:59:59Z'), false, '"comillas" y \'apóstrofos\''],
  ['Ä', '+34 600 000 000', 0.1, null, null, null, null],
];

test('round trip: excel-to-html → html-to-excel gives the same table, for every excel-to-html option', async () => {
  const xlsx = writeXlsx([{ name: 'Clientes', header: TITLES, rows: ROWS }], ctx);
  const iso = (c: unknown) => (c instanceof Date ? date(c.toISOString().slice(0, 19)) : c);
  for (const options of [{}, { 'full-document': true }, { 'include-styles': false, 'table-class': 'datos tabla' }, { 'full-document': true, 'include-styles': false }]) {
    const html = await runTool(excelToHtml, [inputFile('clientes.xlsx', xlsx)], options);
    const back = await runTool(tool, [inputFile('clientes.html', html.files[0].bytes)]);
    const [sheet] = openpyxl(back.files[0].bytes);
    assert.deepEqual(sheet.rows, [TITLES, ...ROWS.map((r) => r.map(iso))], JSON.stringify(options));
    assert.deepEqual(sheet.merges, []);
  }
  const bare = await runTool(excelToHtml, [inputFile('clientes.xlsx', xlsx)], { 'has-header': false });
  const [sheet] = openpyxl((await runTool(tool, [inputFile('clientes.html', bare.files[0].bytes)])).files[0].bytes);
  assert.deepEqual(sheet.rows, [TITLES, ...ROWS.map((r) => r.map(iso))]);
});

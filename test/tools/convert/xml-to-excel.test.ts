// xml-to-excel: xlsx results read back with exceljs (types included), CSV as text; every rule of tools.md §5
// (paths, attributes, repeats, the automatic row element), the encodings of §2.2, the refusals of §2.11 with
// their codes, and the round trip excel-to-xml → xml-to-excel for the options that change the XML.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import tool from '../../../tools/convert/xml-to-excel.ts';
import excelToXml from '../../../tools/convert/excel-to-xml.ts';
import { writeXlsx } from '../../../tools/formats/xlsx/write.ts';
import { openWorkbook } from '../../../tools/formats/index.ts';
import { contextOf } from '../../helpers/read-tables.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { readXlsx } from '../../helpers/read-xlsx.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { settledHeap } from '../../helpers/heap.ts';

const ctx = { t: (k: string) => k, name: () => 'Hoja' };
const d = (s: string) => new Date(`${s}Z`);

async function table(xml: string | Uint8Array, options: Record<string, unknown> = {}, name = 'datos.xml') {
  const out = await runTool(tool, [inputFile(name, xml)], options);
  assert.equal(out.files.length, 1);
  const [sheet] = await readXlsx(out.files[0].bytes);
  return { name: sheet.name, rows: sheet.rows, messages: out.messages.map((m) => `${m.level}: ${m.text}`), file: out.files[0] };
}

test('xml-to-excel: paths from the row element, attributes, repeats, the row\'s own text; columns by first appearance', async () => {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<!-- exported -->
<clientes xmlns="urn:x" xmlns:g="urn:g">
  <?proceso algo?>
  <cliente id="7" g:zona="sur">
    <nombre>Muñoz <![CDATA[& Peña <SL>]]></nombre>
    <tel>600</tel><tel>00123</tel>
    <direccion tipo="casa"><ciudad>Málaga</ciudad><cp>29001</cp></direccion>
    <email/>
    <id>x-9</id>
  </cliente>
  <cliente>
    suelto
    <nombre>Ángela</nombre>
    <alta>2024-01-15</alta><hora>2024-01-15T10:30:00</hora><activo>true</activo><saldo>-1250.5</saldo>
    <direccion><ciudad>Cádiz</ciudad><!-- nota --></direccion>
  </cliente>
</clientes>`;
  const t = await table(xml);
  assert.equal(t.name, 'datos');
  assert.deepEqual(t.rows, [
    ['@id', 'g:zona', 'nombre', 'tel', 'tel_2', 'direccion.tipo', 'direccion.ciudad', 'direccion.cp', 'email', 'id', 'cliente', 'alta', 'hora', 'activo', 'saldo'],
    [7, 'sur', 'Muñoz & Peña <SL>', 600, '00123', 'casa', 'Málaga', 29001, null, 'x-9', null, null, null, null, null],
    [null, null, 'Ángela', null, null, null, 'Cádiz', null, null, null, 'suelto', d('2024-01-15T00:00:00'), d('2024-01-15T10:30:00'), true, -1250.5],
  ]);
  assert.ok(t.messages.some((m) => m.includes('«cliente»') && m.includes('2 fila(s)')), t.messages.join('\n'));
});

test('xml-to-excel: detect-types=false keeps every value as text; include-attributes=false leaves attributes out', async () => {
  const xml = '<r><f a="1"><n>0012</n><v>3.5</v><b>true</b></f><f a="2"><n>7</n><v/><b>no</b></f></r>';
  assert.deepEqual((await table(xml, { 'detect-types': false })).rows, [['a', 'n', 'v', 'b'], ['1', '0012', '3.5', 'true'], ['2', '7', null, 'no']]);
  assert.deepEqual((await table(xml, { 'include-attributes': false })).rows, [['n', 'v', 'b'], ['0012', 3.5, true], [7, null, 'no']]);
});

test('xml-to-excel: the automatic row element is the shallowest repeated name, then the most frequent, then the first', async () => {
  // Deeper than the root's children: a second pass.
  const deep = '<r><cabecera><fecha>2024-01-01</fecha></cabecera><lista><item>1</item><item>2</item><item>3</item></lista></r>';
  assert.deepEqual((await table(deep)).rows, [['item'], [1], [2], [3]]);
  // Same depth: more occurrences win over the first.
  const tie = '<r><a><x>1</x></a><a><x>2</x></a><b><y>1</y></b><b><y>2</y></b><b><y>3</y></b></r>';
  assert.deepEqual((await table(tie)).rows, [['y'], [1], [2], [3]]);
  // Same depth and count: the first in document order.
  const first = '<r><b><y>1</y></b><a><x>1</x></a><b><y>2</y></b><a><x>2</x></a></r>';
  assert.deepEqual((await table(first)).rows, [['y'], [1], [2]]);
  // Nothing repeats: the root is the single row, named after the root.
  const single = await table('<pedido num="5"><cliente>Ana</cliente><total>12.5</total></pedido>');
  assert.deepEqual(single.rows, [['num', 'cliente', 'total'], [5, 'Ana', 12.5]]);
  assert.ok(single.messages.some((m) => m.includes('«pedido»') && m.includes('única fila')));
  // A row element nested in another is part of the outer row; one met elsewhere is a row of its own.
  const nested = '<r><fila><n>1</n><fila><n>1b</n></fila></fila><fila><n>2</n></fila><grupo><fila><n>3</n></fila></grupo></r>';
  assert.deepEqual((await table(nested)).rows, [['n', 'fila.n'], [1, '1b'], [2, null], [3, null]]);
});

test('xml-to-excel: row-element by local name, or with its prefix; an unknown one is invalid_option', async () => {
  const xml = '<a:r xmlns:a="urn:a" xmlns:b="urn:b"><a:item><v>1</v></a:item><b:item><v>2</v></b:item><a:item><v>3</v></a:item><otro><v>9</v></otro></a:r>';
  assert.deepEqual((await table(xml, { 'row-element': 'item' })).rows, [['v'], [1], [2], [3]]);
  assert.deepEqual((await table(xml, { 'row-element': 'b:item' })).rows, [['v'], [2]]);
  assert.deepEqual((await table(xml, { 'row-element': 'otro' })).rows, [['v'], [9]]);
  await rejectsWith(runTool(tool, [inputFile('datos.xml', xml)], { 'row-element': 'c:item' }), 'invalid_option', { option: 'row-element' });
  await rejectsWith(runTool(tool, [inputFile('datos.xml', xml)], { 'row-element': 'x'.repeat(101) }), 'invalid_option', { option: 'row-element' });
});

test('xml-to-excel: format=csv, sheet-name made valid for Excel with an info message', async () => {
  const xml = '<r><f><a>1</a><b>x, "y"</b></f><f><a>2</a><b/></f></r>';
  const csv = await runTool(tool, [inputFile('datos.xml', xml)], { format: 'csv' });
  assert.deepEqual(csv.files.map((f) => [f.name, f.contentType]), [['datos.csv', 'text/csv; charset=utf-8']]);
  assert.equal(new TextDecoder('utf-8', { ignoreBOM: true }).decode(csv.files[0].bytes), '\uFEFFa,b\r\n1,"x, ""y"""\r\n2,\r\n');
  const named = await table(xml, { 'sheet-name': 'Ventas/2024' });
  assert.equal(named.name, 'Ventas_2024');
  assert.ok(named.messages.some((m) => m.startsWith('info') && m.includes('Ventas_2024')));
  await rejectsWith(runTool(tool, [inputFile('datos.xml', xml)], { 'sheet-name': 'x'.repeat(32) }), 'invalid_option', { option: 'sheet-name' });
});

test('xml-to-excel: encodings: BOMs, declared ISO-8859-1 and windows-1252, undeclared windows-1252; others refused', async () => {
  const body = '<r><f><n>Peña €</n></f><f><n>Ñu</n></f></r>';
  const want = [['n'], ['Peña €'], ['Ñu']];
  const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`<?xml version="1.0" encoding="UTF-16"?>${body}`, 'utf16le')]);
  const be = Buffer.from(Buffer.from(`\uFEFF${body}`, 'utf16le')).swap16();
  const bom8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]);
  const cp = (decl: string) => Buffer.from(`<?xml version="1.0" encoding="${decl}"?>${body}`.replace('€', '\x80'), 'latin1');
  for (const [label, bytes] of [['utf-16le', le], ['utf-16be', be], ['utf-8 bom', bom8], ['windows-1252', cp('windows-1252')], ['iso-8859-1', cp('ISO-8859-1')], ['none', Buffer.from(body.replace('€', '\x80'), 'latin1')]] as const) {
    assert.deepEqual((await table(new Uint8Array(bytes))).rows, want, label);
  }
  await rejectsWith(runTool(tool, [inputFile('datos.xml', `<?xml version="1.0" encoding="Shift_JIS"?>${body}`)]), 'invalid_file', { option: 'file', params: { encoding: 'Shift_JIS' } });
  await rejectsWith(runTool(tool, [inputFile('datos.xml', cp('UTF-8'))]), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('datos.xml', new Uint8Array([...Buffer.from('<r><a>1'), 0, ...Buffer.from('</a></r>')]))]), 'invalid_file', { option: 'file' });
});

test('xml-to-excel: refusals: not well-formed (line and column), DOCTYPE, entities, depth, no data, wrong extension, empty file', async () => {
  const run = (xml: string, name = 'datos.xml') => runTool(tool, [inputFile(name, xml)]);
  await rejectsWith(run('<r>\n<f><a>1</a></f>\n<f><a>2</b></f></r>'), 'invalid_file', { option: 'file', params: { line: 3, column: 11 } });
  await rejectsWith(run('<r><a>1</a>'), 'invalid_file', { option: 'file' });
  await rejectsWith(run('<r><a>&nbsp;</a></r>'), 'invalid_file', { option: 'file' });
  await rejectsWith(run('<r/><r/>'), 'invalid_file', { option: 'file' });
  const laughs = `<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa">${Array.from({ length: 8 }, (_, i) => `<!ENTITY ${'b'.repeat(i + 1)} "${`&${i ? 'b'.repeat(i) : 'a'};`.repeat(10)}">`).join('')}]><r><f>&bbbbbbbb;</f><f>1</f></r>`;
  await rejectsWith(run(laughs), 'invalid_file', { option: 'file' });
  await rejectsWith(run('<?xml version="1.0"?><!DOCTYPE r SYSTEM "file:///etc/passwd"><r><f>1</f></r>'), 'invalid_file', { option: 'file' });
  await rejectsWith(run('<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r><f>&x;</f><f>1</f></r>'), 'invalid_file', { option: 'file' });
  // 256 levels are read; 257 are not.
  const nest = (n: number) => `<r>${'<n>'.repeat(n - 1)}1${'</n>'.repeat(n - 1)}</r>`;
  assert.equal((await table(nest(256))).rows[0][0], 'n' + '.n'.repeat(254));
  await rejectsWith(run(nest(257)), 'invalid_file', { option: 'file', params: { max: 256 } });
  await rejectsWith(run(nest(100_000)), 'invalid_file', { option: 'file' });
  await rejectsWith(run('<r><f/><f/></r>'), 'invalid_file', { option: 'file' });
  await rejectsWith(run('<r><a>1</a></r>', 'datos.json'), 'unsupported_format', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('datos.xml', new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]))]), 'invalid_file', { option: 'file' });
});

test('xml-to-excel: an Excel "XML Spreadsheet 2003" saved as .xml is read as the workbook it is, with an info message', async () => {
  const xml = `<?xml version="1.0"?><?mso-application progid="Excel.Sheet"?>
<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet" xmlns:ss="urn:schemas-microsoft-com:office:spreadsheet">
 <Styles><Style ss:ID="Default"/><Style ss:ID="s1"/></Styles>
 <Worksheet ss:Name="Ventas"><Table>
  <Row><Cell><Data ss:Type="String">Cliente</Data></Cell><Cell><Data ss:Type="String">Importe</Data></Cell></Row>
  <Row><Cell><Data ss:Type="String">Peña</Data></Cell><Cell><Data ss:Type="Number">12.5</Data></Cell></Row>
 </Table></Worksheet></Workbook>`;
  const t = await table(xml);
  assert.deepEqual(t.rows, [['Cliente', 'Importe'], ['Peña', 12.5]]);
  assert.ok(t.messages.some((m) => m.startsWith('info') && m.includes('Excel 2003')), t.messages.join('\n'));
  // Asked for by name, its elements are rows like any XML's.
  assert.deepEqual((await table(xml, { 'row-element': 'Style', 'include-attributes': true })).rows, [['ss:ID'], ['Default'], ['s1']]);
});

// excel-to-xml writes what xml-to-excel reads back: the same titles (as element names) and the same cells.
const TITLES = ['Nombre', 'Código', 'Importe', 'Fecha', 'Hora', 'Activo', 'Nota', 'Vacía'];
const ROWS = [
  ['Muñoz & <Peña>', '00123', 1250.5, d('2024-01-15T00:00:00'), d('2024-01-15T10:30:00'), true, '=SUM(A1)', null],
  ['línea 1\nlínea 2\rcon CR', '4111111111111111', -3, d('1999-12-31T00:00:00'), d('2000-02-29T23:59:59'), false, '"comillas" y \'apóstrofos\'', null],
  ['Ä', '+34 600 000 000', 0.1, d('2024-02-29T00:00:00'), d('2024-03-01T00:00:01'), true, 'ok', null],
];

test('round trip: excel-to-xml → xml-to-excel gives the same table, for root/row names, pretty, language', async () => {
  const xlsx = writeXlsx([{ name: 'Hoja1', header: TITLES, rows: ROWS }], ctx);
  for (const options of [{}, { pretty: false }, { language: 'en' }, { 'root-element': 'clientes', 'row-element': 'cliente' }, { 'root-element': 'datos', 'row-element': 'datos', pretty: false }]) {
    const xml = await runTool(excelToXml, [inputFile('clientes.xlsx', xlsx)], options);
    const back = await table(xml.files[0].bytes, {}, 'clientes.xml');
    assert.deepEqual(back.rows, [['Nombre', 'Código', 'Importe', 'Fecha', 'Hora', 'Activo', 'Nota', 'Vacía'], ...ROWS.map((r) => r.slice(0, 7).concat([null]))], JSON.stringify(options));
  }
});

test('round trip: titles excel-to-xml had to rename come back as their element names; one row needs row-element', async () => {
  const titles = ['Nombre completo', '', 'xml id', '1º', 'Nombre completo'];
  const rows = [['a', 'b', 'c', 'd', 'e'], ['f', 'g', 'h', 'i', 'j']];
  const xlsx = writeXlsx([{ name: 'Hoja1', header: titles, rows }], ctx);
  const xml = await runTool(excelToXml, [inputFile('t.xlsx', xlsx)], { language: 'en' });
  const back = await table(xml.files[0].bytes, {}, 't.xml');
  assert.deepEqual(back.rows, [['Nombre_completo', 'column_2', '_xml_id', '_1_', 'Nombre_completo_2'], ...rows]);
  // With a single row nothing repeats, so the root would be the row (tools.md §5): row-element names it.
  const one = writeXlsx([{ name: 'Hoja1', header: ['a', 'b'], rows: [[1, 'x']] }], ctx);
  const oneXml = await runTool(excelToXml, [inputFile('uno.xlsx', one)]);
  assert.deepEqual((await table(oneXml.files[0].bytes, {}, 'uno.xml')).rows, [['fila.a', 'fila.b'], [1, 'x']]);
  assert.deepEqual((await table(oneXml.files[0].bytes, { 'row-element': 'fila' }, 'uno.xml')).rows, [['a', 'b'], [1, 'x']]);
});

test('xml-to-excel: the rows read hold their values, not the text of the document they came from (heap after full collections)', () => {
  // 8,000 rows of one 16-character value each, among 1 KB of text the table never shows: an 8 MB document.
  const rows = 8_000;
  const filler = `<!--${'relleno '.repeat(125)}-->`;
  const xml = `<filas>${Array.from({ length: rows }, (_, i) => `<fila>${filler}<clave>cliente-${String(i).padStart(8, '0')}</clave></fila>`).join('')}</filas>`;
  const file = inputFile('relleno.xml', xml);
  const base = settledHeap();
  const table = openWorkbook(file, contextOf(), { hasHeader: true, detectTypes: true, xml: {} }).table();
  const held = settledHeap() - base;
  const values = table.rows();
  assert.equal(values.length, rows);
  assert.equal(values[rows - 1][0], `cliente-${String(rows - 1).padStart(8, '0')}`);
  // The values and their rows take well under 2 MB; slices of the document's pieces kept all 8 MB alive.
  assert.ok(held < 3 * 2 ** 20, `held ${(held / 2 ** 20).toFixed(1)} MB for ${(xml.length / 2 ** 20).toFixed(1)} MB of XML`);
});

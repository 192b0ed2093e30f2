// excel-to-xml, checked with xmllint (libxml2): well-formedness, then names and values read back with XPath.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tool from '../../../tools/convert/excel-to-xml.ts';
import { jsonSchemaOf } from '../../../tools/core/schema.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { textOf } from '../../helpers/typed-titles.ts';
import { golden } from '../../helpers/golden.ts';

const dir = mkdtempSync(join(tmpdir(), 'excel-to-xml-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
let serial = 0;

/** Writes the result where xmllint can read it and checks that it is well-formed. */
function wellFormed(bytes: Uint8Array): string {
  const file = join(dir, `r${serial++}.xml`);
  writeFileSync(file, bytes);
  const r = spawnSync('xmllint', ['--noout', file], { encoding: 'utf8' });
  assert.equal(r.status, 0, `xmllint: ${r.stderr}`);
  return file;
}

/** The value of an XPath expression, as xmllint prints it (it adds one line feed). */
function xpath(file: string, expr: string): string {
  const r = spawnSync('xmllint', ['--xpath', expr, file], { encoding: 'utf8' });
  assert.equal(r.status, 0, `xmllint --xpath ${expr}: ${r.stderr}`);
  return r.stdout.endsWith('\n') ? r.stdout.slice(0, -1) : r.stdout;
}

/** Element names of the first row, and the string value of every cell, row by row, as libxml2 reads them. */
function readBack(file: string): { root: string; row: string; names: string[]; rows: string[][] } {
  const root = xpath(file, 'name(/*)');
  const row = xpath(file, 'name(/*/*[1])');
  const width = Number(xpath(file, 'count(/*/*[1]/*)'));
  const count = Number(xpath(file, 'count(/*/*)'));
  const names = Array.from({ length: width }, (_, c) => xpath(file, `name(/*/*[1]/*[${c + 1}])`));
  const rows = Array.from({ length: count }, (_, r) => {
    assert.equal(Number(xpath(file, `count(/*/*[${r + 1}]/*)`)), width, `row ${r + 1} has every column`);
    return names.map((_, c) => xpath(file, `string(/*/*[${r + 1}]/*[${c + 1}])`));
  });
  return { root, row, names, rows };
}


const matchesGolden = golden('excel-to-xml');

test('excel-to-xml: ventas.xlsx as <datos>/<fila>, values in machine form, declaration, no BOM, no DOCTYPE', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')]);
  assert.deepEqual(out.files.map((f) => f.name), ['ventas.xml']);
  assert.match(out.files[0].contentType, /^application\/xml/);
  const text = textOf(out.files[0].bytes);
  assert.ok(text.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<datos>\n  <fila>\n    <Fecha>'), text.slice(0, 80));
  assert.ok(!text.includes('<!DOCTYPE') && text.endsWith('</datos>\n'));
  const back = readBack(wellFormed(out.files[0].bytes));
  assert.deepEqual([back.root, back.row], ['datos', 'fila']);
  assert.deepEqual(back.names, ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas']);
  assert.deepEqual(back.rows, [
    ['2024-01-15', 'Muñoz Peña', '00123', '1250.5', 'true', '=SUM(A1)'],
    ['2024-02-29T13:45:00', 'Ángela Ibáñez', '4111111111111111', '-3', 'false', '+34 600 000 000'],
    ['2023-12-31', 'Çedille & Co', '007', '0.1', 'true', '@mención'],
    ['', 'Total', '', '2501', '', ''],
  ]);
  assert.deepEqual(out.messages, [{ level: 'info', text: 'XML de «Ventas»: 4 elemento(s) <fila> dentro de <datos>, con 6 columna(s) cada uno.' }]);
  assert.equal(out.textPreview, text);
  matchesGolden('ventas.xml', out.files[0].bytes);
});

test('excel-to-xml: titles become valid element names as tools.md §3 says, and an info lists them', async () => {
  const long = 'L'.repeat(120);
  const titles = ['1st', 'a b', '<&>', 'xmlFoo', 'XMLbar', 'Población', '', 'Dup', 'Dup', '__proto__', 'a:b', ' -x ', '·x', '𝒳😀', long, long];
  const csv = titles.map((t) => `"${t}"`).join(',') + '\n' + titles.map((_, i) => `v${i + 1}`).join(',') + '\n';
  const out = await runTool(tool, [inputFile('t.csv', csv)], { pretty: false, language: 'en' });
  const back = readBack(wellFormed(out.files[0].bytes));
  const l100 = 'L'.repeat(100);
  assert.deepEqual(back.names, [
    '_1st', 'a_b', '___', '_xmlFoo', '_XMLbar', 'Población', 'column_7', 'Dup', 'Dup_2', '__proto__', 'a_b_2', '_-x', '_·x', '𝒳😀', l100, `${'L'.repeat(98)}_2`,
  ]);
  assert.deepEqual(back.rows, [titles.map((_, i) => `v${i + 1}`)]);
  assert.deepEqual(out.messages.map((m) => m.level), ['info', 'info']);
  assert.equal(
    out.messages[0].text,
    `Titles changed into valid XML element names: "1st" → _1st, "a b" → a_b, "<&>" → ___, "xmlFoo" → _xmlFoo, "XMLbar" → _XMLbar, "" → column_7, "Dup" → Dup_2, "a:b" → a_b_2 (+4).`,
  );
  assert.equal(out.messages[1].text, 'XML from "t": 1 <row> element(s) inside <datos>, with 16 column(s) each.');
  matchesGolden('hostile-titles-en.xml', out.files[0].bytes);
});

test('excel-to-xml: pretty=false puts no whitespace between elements', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')], { pretty: false });
  const text = textOf(out.files[0].bytes);
  assert.ok(!/>\s+</.test(text) && !text.includes('\n'), text.slice(0, 200));
  assert.ok(text.startsWith('<?xml version="1.0" encoding="UTF-8"?><datos><fila><Fecha>2024-01-15</Fecha>'));
  assert.deepEqual(readBack(wellFormed(out.files[0].bytes)).rows[2], ['2023-12-31', 'Çedille & Co', '007', '0.1', 'true', '@mención']);
  matchesGolden('ventas-compact.xml', out.files[0].bytes);
});

test('excel-to-xml: row-element defaults to fila / row by language; the schema shows each language\'s default', async () => {
  const f = inputFile('t.csv', 'a\n1\n');
  const names = async (opts: Record<string, unknown>) => {
    const back = readBack(wellFormed((await runTool(tool, [f], opts)).files[0].bytes));
    return [back.root, back.row];
  };
  assert.deepEqual(await names({}), ['datos', 'fila']);
  assert.deepEqual(await names({ language: 'en' }), ['datos', 'row']);
  assert.deepEqual(await names({ 'row-element': '', 'root-element': '', language: 'en' }), ['datos', 'row']);
  assert.deepEqual(await names({ 'root-element': 'x', 'row-element': 'x' }), ['x', 'x']);
  assert.deepEqual(await names({ 'root-element': 'Población', 'row-element': 'línea-1.v_2' }), ['Población', 'línea-1.v_2']);
  const m = 'm'.repeat(100);
  assert.deepEqual(await names({ 'root-element': m, 'row-element': '_xml' }), [m, '_xml']);
  for (const [lang, row] of [['es', 'fila'], ['en', 'row']] as const) {
    const props = jsonSchemaOf(tool, lang).properties!;
    assert.equal(props['row-element'].default, row);
    assert.equal(props['root-element'].default, 'datos');
    assert.equal(props.pretty.default, true);
  }
});

test('excel-to-xml: invalid root-element and row-element values are refused, naming the option', async () => {
  const f = inputFile('t.csv', 'a\n1\n');
  const bad = ['1a', 'a:b', 'xmlroot', 'XmLroot', 'xml', 'a b', '-a', '.a', '·a', 'a<b', 'a&b', ' a', 'a\n', 'n'.repeat(101), 5, null];
  for (const option of ['root-element', 'row-element']) {
    for (const value of bad) await rejectsWith(runTool(tool, [f], { [option]: value }), 'invalid_option', { option });
  }
  await rejectsWith(runTool(tool, [f], { pretty: 'false' }), 'invalid_option', { option: 'pretty' });
  await rejectsWith(runTool(tool, [f], { 'has-header': false }), 'unknown_option', { option: 'has-header' });
  await rejectsWith(runTool(tool, [inputFile('t.json', '{}')]), 'unsupported_format', { option: 'file' });
});

test('excel-to-xml: characters XML 1.0 cannot hold are removed with a warning; tabs, CR and LF survive', async () => {
  const csv = 'a,b\n"x\ty","uno\u0001\u0008"\n"p\r\nq","\uFFFEz\uFFFF"\n';
  const out = await runTool(tool, [inputFile('c.csv', csv)]);
  const back = readBack(wellFormed(out.files[0].bytes));
  assert.deepEqual(back.rows, [['x\ty', 'uno'], ['p\r\nq', 'z']]);
  assert.deepEqual(out.messages.map((m) => [m.level, m.text]), [
    ['info', 'XML de «c»: 2 elemento(s) <fila> dentro de <datos>, con 2 columna(s) cada uno.'],
    ['warning', 'Se han quitado 4 carácter(es) de control que XML no admite (el primero en B2 de «c.xml»).'],
  ]);
});

test('excel-to-xml: CSV values are typed and written in machine form; hostile text is escaped', async () => {
  const out = await runTool(tool, [fixture('semicolon.csv')], { language: 'en' });
  assert.deepEqual(readBack(wellFormed(out.files[0].bytes)).rows, [
    ['00123', 'Pérez; Juan', 'línea 1\nlínea 2', '1.5', '2024-01-31'],
    ['0042', 'Zoë', 'dice "hola"', '10', '2023-12-31'],
  ]);
  const hostile = ['</fila><x>', ']]>', '<![CDATA[x]]>', '&amp;', '<!DOCTYPE x>'];
  const h = await runTool(tool, [inputFile('h.csv', 'v\n' + hostile.map((s) => `"${s}"`).join('\n') + '\n')]);
  const back = readBack(wellFormed(h.files[0].bytes));
  assert.deepEqual(back.rows.map((r) => r[0]), hostile);
  assert.equal(Number(xpath(wellFormed(h.files[0].bytes), 'count(//x)')), 0);
});

test('excel-to-xml: a sheet without data gives an empty root and a warning', async () => {
  const ExcelJS = (await import('exceljs')).default;
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Vacía');
  const out = await runTool(tool, [inputFile('v.xlsx', new Uint8Array(await wb.xlsx.writeBuffer()))]);
  const file = wellFormed(out.files[0].bytes);
  assert.equal(textOf(out.files[0].bytes), '<?xml version="1.0" encoding="UTF-8"?>\n<datos/>\n');
  assert.equal(xpath(file, 'count(/datos/*)'), '0');
  assert.deepEqual(out.messages.map((m) => m.level), ['warning', 'info']);
});

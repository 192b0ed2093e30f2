// excel-to-html, read back with parse5 (a standards-compliant HTML parser, not the code that wrote the page).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse, parseFragment, type DefaultTreeAdapterTypes as T } from 'parse5';
import tool from '../../../tools/convert/excel-to-html.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { textOf } from '../../helpers/typed-titles.ts';
import { golden } from '../../helpers/golden.ts';

type Node = T.ChildNode | T.Document | T.DocumentFragment;
type Element = T.Element;

const isElement = (n: Node): n is Element => 'tagName' in n;
const childrenOf = (n: Node): T.ChildNode[] => ('childNodes' in n ? n.childNodes : []);

/** Every element named `tag` under `root`, in document order. */
function all(root: Node, tag: string): Element[] {
  const out: Element[] = [];
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (isElement(n) && n.tagName === tag) out.push(n);
    stack.push(...[...childrenOf(n)].reverse());
    if (isElement(n) && n.tagName === 'template') stack.push((n as T.Template).content);
  }
  return out;
}

const attr = (e: Element, name: string) => e.attrs.find((a) => a.name === name)?.value;

/** The text a reader gets from a cell: text nodes, with <br> as a line break. */
function cellText(n: Node): string {
  if (n.nodeName === '#text') return (n as T.TextNode).value;
  if (isElement(n) && n.tagName === 'br') return '\n';
  return childrenOf(n).map(cellText).join('');
}

/** Titles (null when there is no thead) and body rows, as parse5 reads them. */
function tableOf(root: Node): { header: string[] | null; rows: string[][]; table: Element } {
  const tables = all(root, 'table');
  assert.equal(tables.length, 1);
  const thead = all(tables[0], 'thead');
  const header = thead.length ? all(thead[0], 'th').map(cellText) : null;
  if (thead.length) assert.deepEqual(all(thead[0], 'th').map((th) => attr(th, 'scope')), header!.map(() => 'col'));
  const rows = all(all(tables[0], 'tbody')[0], 'tr').map((tr) => all(tr, 'td').map(cellText));
  return { header, rows, table: tables[0] };
}


const matchesGolden = golden('excel-to-html');

const VENTAS_TITLES = ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas'];
const VENTAS_ROWS = [
  ['2024-01-15', 'Muñoz Peña', '00123', '1250.5', 'true', '=SUM(A1)'],
  ['2024-02-29 13:45:00', 'Ángela Ibáñez', '4111111111111111', '-3', 'false', '+34 600 000 000'],
  ['2023-12-31', 'Çedille & Co', '007', '0.1', 'true', '@mención'],
  ['', 'Total', '', '2501', '', ''],
];

test('excel-to-html: a fragment with thead, every value in plain form, styles scoped to the table', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')]);
  assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['ventas.html', 'text/html; charset=utf-8']]);
  const html = textOf(out.files[0].bytes);
  const doc = parseFragment(html);
  const { header, rows, table } = tableOf(doc);
  assert.deepEqual(header, VENTAS_TITLES);
  assert.deepEqual(rows, VENTAS_ROWS);
  assert.equal(attr(table, 'class'), 'sheet-table');
  // The fragment is a <style> followed by the table, and every rule names the table's own class.
  assert.deepEqual(doc.childNodes.filter(isElement).map((e) => e.tagName), ['style', 'table']);
  const rules = cellText(all(doc, 'style')[0]).split('\n').filter((l) => l.includes('{'));
  assert.ok(rules.length >= 4 && rules.every((r) => r.startsWith('table.sheet-table')), rules.join('\n'));
  const numbers = all(table, 'td').filter((td) => attr(td, 'data-type') === 'number').map(cellText);
  assert.deepEqual(numbers, ['1250.5', '-3', '0.1', '2501']);
  assert.ok(!html.startsWith('\uFEFF') && !/<!DOCTYPE|<html/i.test(html));
  assert.deepEqual(out.messages, [{ level: 'info', text: 'Tabla HTML de «Ventas»: 4 fila(s) de datos y 6 columna(s).' }]);
  assert.deepEqual(out.preview?.columns, VENTAS_TITLES);
  assert.equal(out.textPreview, html);
  matchesGolden('ventas-fragment.html', out.files[0].bytes);
});

test('excel-to-html: full-document gives a complete UTF-8 page titled after the sheet, styles in <head>', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')], { 'full-document': true, language: 'en' });
  const html = textOf(out.files[0].bytes);
  assert.match(html, /^<!DOCTYPE html>\n/);
  const doc = parse(html);
  assert.equal(doc.mode, 'no-quirks');
  assert.equal(attr(all(doc, 'html')[0], 'lang'), 'en');
  assert.equal(attr(all(doc, 'meta')[0], 'charset'), 'utf-8');
  assert.deepEqual(all(doc, 'title').map(cellText), ['Ventas']);
  const head = all(doc, 'head')[0];
  assert.equal(all(head, 'style').length, 1);
  assert.equal(all(all(doc, 'body')[0], 'style').length, 0);
  assert.deepEqual(tableOf(doc).rows, VENTAS_ROWS);
  assert.deepEqual(out.messages.map((m) => m.text), ['HTML table from "Ventas": 4 data row(s) and 6 column(s).']);
  matchesGolden('ventas-document-en.html', out.files[0].bytes);
});

test('excel-to-html: the page title is the CSV base name, escaped; no styles when include-styles is false', async () => {
  const out = await runTool(tool, [inputFile('a&b <c>.csv', 'x\n1\n')], { 'full-document': true, 'include-styles': false });
  const doc = parse(textOf(out.files[0].bytes));
  assert.deepEqual(all(doc, 'title').map(cellText), ['a&b <c>']);
  assert.equal(attr(all(doc, 'html')[0], 'lang'), 'es');
  assert.equal(all(doc, 'style').length, 0);
  assert.equal(attr(tableOf(doc).table, 'class'), undefined);
});

test('excel-to-html: has-header false gives no thead, the first row is data', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')], { 'has-header': false, 'include-styles': false });
  const doc = parseFragment(textOf(out.files[0].bytes));
  const { header, rows } = tableOf(doc);
  assert.equal(header, null);
  assert.equal(all(doc, 'th').length, 0);
  assert.deepEqual(rows, [VENTAS_TITLES, ...VENTAS_ROWS]);
  assert.deepEqual(doc.childNodes.filter(isElement).map((e) => e.tagName), ['table']);
});

test('excel-to-html: hostile text stays text: tags, quotes, entities, comments, line breaks', async () => {
  const cells = ['<script>alert(1)</script>', '"dq" \'sq\' & &amp; <b>', '</td></tr></table><img src=x onerror=alert(1)>', 'línea 1\r\nlínea 2\nlínea 3', '<!-- x -->'];
  const csv = 'titulo <i>,b\n' + cells.map((c) => `"${c.replaceAll('"', '""')}",1`).join('\n') + '\n';
  const out = await runTool(tool, [inputFile('h.csv', csv)], { 'full-document': true });
  const doc = parse(textOf(out.files[0].bytes));
  for (const tag of ['script', 'img', 'b', 'i']) assert.equal(all(doc, tag).length, 0, tag);
  const { header, rows } = tableOf(doc);
  assert.deepEqual(header, ['titulo <i>', 'b']);
  // CSV fields are written as they came: the line break inside a field is shown as <br>, CRLF and LF alike.
  assert.deepEqual(rows.map((r) => r[0]), cells.map((c) => c.replace('\r\n', '\n')));
  assert.equal(all(tableOf(doc).table, 'br').length, 2);
  matchesGolden('hostile-document.html', out.files[0].bytes);
});

test('excel-to-html: CSV fields keep their text (decimal commas, dd/mm/yyyy, leading zeros), not typed', async () => {
  const out = await runTool(tool, [fixture('semicolon.csv')], { 'include-styles': false });
  const { header, rows, table } = tableOf(parseFragment(textOf(out.files[0].bytes)));
  assert.deepEqual(header, ['id', 'nombre', 'nota', 'importe', 'fecha']);
  assert.deepEqual(rows, [
    ['00123', 'Pérez; Juan', 'línea 1\nlínea 2', '1,5', '2024-01-31'],
    ['0042', 'Zoë', 'dice "hola"', '10', '31/12/2023'],
  ]);
  assert.equal(all(table, 'td').filter((td) => attr(td, 'data-type')).length, 0);
});

test('excel-to-html: an .xls reads like the others', async () => {
  const out = await runTool(tool, [fixture('ventas.xls')]);
  assert.equal(out.files[0].name, 'ventas.html');
  const { header, rows } = tableOf(parseFragment(textOf(out.files[0].bytes)));
  assert.deepEqual(header, ['Fecha', 'Ciudad', 'Código', 'Activo']);
  assert.deepEqual(rows, [['2024-01-15', 'Córdoba', '00123', 'true'], ['2024-02-15 12:00:00', 'Logroño', '42', 'false']]);
});

test('excel-to-html: control characters are removed with a warning giving their count and first cell', async () => {
  const out = await runTool(tool, [inputFile('c.csv', 'a,b\nok,x\u0001y\u0002\nz\u001f,ok\n')], { language: 'en' });
  const { rows } = tableOf(parseFragment(textOf(out.files[0].bytes)));
  assert.deepEqual(rows, [['ok', 'xy'], ['z', 'ok']]);
  assert.deepEqual(out.messages.map((m) => [m.level, m.text]), [
    ['info', 'HTML table from "c": 2 data row(s) and 2 column(s).'],
    ['warning', '3 control character(s) that HTML cannot hold were removed (the first in B2 of "c.html").'],
  ]);
});

test('excel-to-html: table-class takes CSS class names and nothing else', async () => {
  const f = inputFile('t.csv', 'a\n1\n');
  const classOf = async (opts: Record<string, unknown>) => attr(tableOf(parseFragment(textOf((await runTool(tool, [f], opts)).files[0].bytes))).table, 'class');
  assert.equal(await classOf({ 'table-class': 'datos  -x _y2 --z', 'include-styles': false }), 'datos  -x _y2 --z');
  assert.equal(await classOf({ 'table-class': 'datos', 'include-styles': true }), 'datos sheet-table');
  assert.equal(await classOf({ 'table-class': '', 'include-styles': false }), undefined);
  assert.equal(await classOf({ 'table-class': 'a'.repeat(100), 'include-styles': false }), 'a'.repeat(100));
  for (const bad of ['1abc', 'a;b', 'a"b', '"><script>', ' a', 'a ', 'a\tb', 'ñ', 'a.b', 'a'.repeat(101), 7]) {
    await rejectsWith(runTool(tool, [f], { 'table-class': bad }), 'invalid_option', { option: 'table-class' });
  }
});

test('excel-to-html: option and input errors', async () => {
  const f = inputFile('t.csv', 'a\n1\n');
  await rejectsWith(runTool(tool, [f], { 'full-document': 'true' }), 'invalid_option', { option: 'full-document' });
  await rejectsWith(runTool(tool, [f], { 'include-styles': 1 }), 'invalid_option', { option: 'include-styles' });
  await rejectsWith(runTool(tool, [f], { title: 'x' }), 'unknown_option', { option: 'title' });
  await rejectsWith(runTool(tool, [inputFile('t.ods', 'x')]), 'unsupported_format', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('t.xlsx', 'not a workbook')]), 'invalid_file', { option: 'file' });
});

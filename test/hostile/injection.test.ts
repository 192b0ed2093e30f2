// Injection through data. Generated file names can never leave the ZIP (`../`, absolute paths, drive
// letters, NUL, reserved and very long names), read from the ZIP bytes by hand. Titles and cells full of
// SQL, XML, HTML, Markdown and formula metacharacters come out escaped in every text format of the tools
// registered now, each read back with an independent reader: papaparse (CSV), JSON.parse, parse5 (HTML),
// xmllint (XML), sqlite3 (SQL).
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { parse, type DefaultTreeAdapterTypes as T } from 'parse5';
import type { AnyTool } from '../../tools/core/define.ts';
import { listTools } from '../../tools/core/registry.ts';
import { inputFile, runTool } from '../helpers/run-tool.ts';
import { sendDownload, sendEverywhere, startHostile, assertOkEverywhere, type HostileServer } from './harness.ts';
import { xlsxOf, zipDirectory, zipEntryNames } from './packages.ts';

const tool = (id: string): AnyTool | undefined => listTools().find((t) => t.id === id);
function registered(t: TestContext, id: string): AnyTool | undefined {
  const found = tool(id);
  if (!found) t.skip(`${id} is not registered yet`);
  return found;
}

let srv: HostileServer;
before(async () => {
  srv = await startHostile({ MAX_JOBS: '2' });
});
after(() => srv.close());

// Names a ZIP entry must never take: a folder, a parent, an absolute path, a drive, a device, a control.
const ESCAPES = ['../../etc/passwd', '..\\..\\windows\\win.ini', '/etc/shadow', 'C:\\boot.ini', '..', '.', '.bashrc', 'CON', 'nul', 'a/b', 'a\\b', 'a:b', 'tab\there', 'x'.repeat(5000), 'Madrid', 'MADRID', ' espacio ', '😀'.repeat(200)];

/** Every name is a plain file name: no separators, no parent, no control, not hidden, short, unique. */
function assertSafeNames(names: string[], where: string) {
  const seen = new Set<string>();
  for (const name of names) {
    assert.ok(name.length > 0 && [...name].length <= 100, `${where}: length of ${JSON.stringify(name.slice(0, 40))}`);
    assert.ok(!/[/\\]/.test(name), `${where}: separator in ${JSON.stringify(name)}`);
    assert.ok(!/^\.|^\s|\s$/.test(name), `${where}: hidden or padded name ${JSON.stringify(name)}`);
    // eslint-disable-next-line no-control-regex
    assert.ok(!/[\u0000-\u001f\u007f:*?"<>|]/.test(name), `${where}: forbidden character in ${JSON.stringify(name)}`);
    assert.ok(!/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i.test(name), `${where}: reserved device name ${name}`);
    assert.ok(!seen.has(name.toLowerCase()), `${where}: ${name} twice (ignoring case)`);
    seen.add(name.toLowerCase());
  }
}

/** The name in the local header each central-directory record points at: they must agree. */
function localNames(zip: Uint8Array): string[] {
  const b = Buffer.from(zip);
  return zipDirectory(zip).map(({ offset }) => {
    assert.equal(b.readUInt32LE(offset), 0x04034b50, 'a local header where the directory points');
    const nameLen = b.readUInt16LE(offset + 26);
    return b.subarray(offset + 30, offset + 30 + nameLen).toString('utf8');
  });
}

async function zipNamesOfDownload(toolId: string, file: ReturnType<typeof inputFile>, options: Record<string, unknown>) {
  const res = await sendDownload(srv, 'json', toolId, [file], options);
  assert.equal(res.status, 200, Buffer.from(res.bytes).toString().slice(0, 300));
  assert.equal(res.headers.get('content-type'), 'application/zip');
  const disposition = res.headers.get('content-disposition') ?? '';
  assert.ok(!/[\r\n]/.test(disposition) && /^attachment; filename="[^"\\]*"; filename\*=UTF-8''[\w%.\-!~]+$/.test(disposition), disposition);
  const names = zipEntryNames(res.bytes);
  assert.deepEqual(localNames(res.bytes), names, 'local headers and central directory agree');
  return names;
}

test('injection: split-sheets with hostile sheet names writes only plain, unique, short names into the ZIP', async () => {
  // Excel forbids most of these in sheet names; a hand-made workbook does not care.
  const sheets = ESCAPES.map((name, i) => ({ name, rows: [['n'], [i]] }));
  const file = inputFile('nombres.xlsx', xlsxOf(sheets));
  for (const format of ['csv', 'xlsx']) {
    const names = await zipNamesOfDownload('split-sheets', file, { format });
    assert.equal(names.length, ESCAPES.length, 'one file per sheet, none lost');
    assertSafeNames(names, `split-sheets ${format}`);
  }
  // JSON and MCP answers list the files one by one under the same safe names.
  for (const a of assertOkEverywhere(await sendEverywhere(srv, 'split-sheets', [file], { format: 'csv' }))) {
    const names: string[] = a.body.files.map((f: { name: string }) => f.name);
    assertSafeNames(names, a.via);
    if (a.via === 'mcp') for (const r of a.resources!) assert.ok(!r.uri.includes('/../') && !r.uri.slice('spreadsheet-tools://'.length).includes('//'), r.uri);
  }
});

test('injection: split-by-column with hostile group values (and a NUL) writes only plain names into the ZIP', async () => {
  const values = [...ESCAPES, 'a_x0000_b', 'fin_x001F_'];
  const rows = [['grupo', 'n'], ...values.map((v, i) => [v, i])];
  const file = inputFile('grupos.xlsx', xlsxOf([{ name: 'Hoja1', rows }]));
  for (const include of [false, true]) {
    const names = await zipNamesOfDownload('split-by-column', file, { column: 'grupo', format: 'csv', 'include-column-in-name': include });
    assert.equal(names.length, values.length, 'one file per group, none merged away by sanitizing');
    assertSafeNames(names, `split-by-column include=${include}`);
  }
});

/** The hostile text every text format must carry through unchanged: titles and values. */
const NASTY = [
  "'); DROP TABLE datos; --",
  "O'Brien \"Bob\" \\ ;",
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '"><b>negrita</b>',
  ']]><!DOCTYPE x [<!ENTITY e "x">]>&e;&amp;',
  '<?xml version="1.0"?>',
  '| celda | con | tubos |',
  '*negrita* _cursiva_ [enlace](http://ejemplo.invalid) `código` # título',
  '=HYPERLINK("http://ejemplo.invalid","clic")',
  '+34 600 000 000',
  '@SUM(A1)',
  'línea 1\nlínea 2\nlínea 3',
  'tab\tseparado, con coma',
];
const TITLES = NASTY.slice(0, 7);
const ROWS = [NASTY.slice(7, 14), NASTY.slice(0, 7).reverse()];
const table = inputFile('inyeccion.xlsx', xlsxOf([{ name: 'Hoja1', rows: [TITLES, ...ROWS] }]));
const textOf = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8').replace(/^\uFEFF/, '');

test('injection: excel-to-csv quotes every metacharacter; papaparse reads back the exact text', async (t) => {
  const csv = registered(t, 'excel-to-csv');
  if (!csv) return;
  const out = await runTool(csv, [table], {});
  const parsed = Papa.parse<string[]>(textOf(out.files[0].bytes), { newline: '\r\n', delimiter: ',' }).data.filter((r) => r.length > 1);
  assert.deepEqual(parsed, [TITLES, ...ROWS], 'formula-looking text stays text, verbatim');
});

test('injection: excel-to-json escapes everything; JSON.parse gives back the exact text under the exact keys', async (t) => {
  const json = registered(t, 'excel-to-json');
  if (!json) return;
  const out = await runTool(json, [table], {});
  const rows = JSON.parse(textOf(out.files[0].bytes)) as Record<string, unknown>[];
  assert.deepEqual(rows.map((r) => Object.keys(r)), ROWS.map(() => TITLES));
  assert.deepEqual(rows.map((r) => Object.values(r)), ROWS);
});

function walk(node: T.ParentNode, visit: (el: T.Element) => void) {
  for (const child of node.childNodes) {
    if ('tagName' in child) {
      visit(child);
      walk(child, visit);
      if (child.tagName === 'template') walk((child as T.Template).content, visit);
    }
  }
}
const textContent = (node: T.Node): string =>
  node.nodeName === '#text' ? (node as T.TextNode).value : node.nodeName === 'br' ? '\n' : 'childNodes' in node ? (node as T.ParentNode).childNodes.map(textContent).join('') : '';

test('injection: excel-to-html escapes every tag; parse5 finds no element from the data and the exact text', async (t) => {
  const html = registered(t, 'excel-to-html');
  if (!html) return;
  for (const full of [false, true]) {
    const out = await runTool(html, [table], { 'full-document': full });
    const doc = parse(textOf(out.files[0].bytes));
    const tags = new Set<string>();
    const cells: string[][] = [];
    walk(doc, (el) => {
      tags.add(el.tagName);
      if (el.tagName === 'tr') cells.push(el.childNodes.filter((c): c is T.Element => 'tagName' in c && (c.tagName === 'td' || c.tagName === 'th')).map(textContent));
      for (const a of el.attrs) assert.ok(!/^on/i.test(a.name), `event handler attribute ${a.name}`);
    });
    for (const bad of ['script', 'img', 'b', 'iframe', 'object', 'embed', 'svg', 'math', 'base', 'link', 'meta']) {
      if (bad === 'meta' && full) continue;
      assert.ok(!tags.has(bad), `<${bad}> came out of the data (full-document=${full})`);
    }
    // Line breaks in a cell are written as <br>, read back here as "\n".
    assert.deepEqual(cells, [TITLES, ...ROWS], `cell texts (full-document=${full})`);
  }
});

function xpath(file: string, expr: string): string {
  // xmllint ends what it prints with one line break of its own.
  return execFileSync('xmllint', ['--nonet', '--xpath', expr, file], { encoding: 'utf8' }).replace(/\n$/, '');
}

test('injection: excel-to-xml is well-formed with no DOCTYPE; xmllint reads back the exact text', async (t) => {
  const xml = registered(t, 'excel-to-xml');
  if (!xml) return;
  const out = await runTool(xml, [table], {});
  const text = textOf(out.files[0].bytes);
  assert.ok(!/<!DOCTYPE/i.test(text.replace(/<([\w.-]+)>[^<]*<\/\1>/g, '')), 'no DOCTYPE outside text');
  const dir = mkdtempSync(join(tmpdir(), 'st-xml-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'out.xml');
  writeFileSync(file, out.files[0].bytes);
  execFileSync('xmllint', ['--nonet', '--noout', file]);
  assert.equal(xpath(file, 'count(/*/*)').trim(), String(ROWS.length));
  for (let r = 0; r < ROWS.length; r++) {
    for (let c = 0; c < TITLES.length; c++) {
      assert.equal(xpath(file, `string(/*/*[${r + 1}]/*[${c + 1}])`), ROWS[r][c], `row ${r + 1} column ${c + 1}`);
    }
  }
});

test('injection: excel-to-sql quotes every literal and name; sqlite3 runs it and gives back the exact text', async (t) => {
  const sql = registered(t, 'excel-to-sql');
  if (!sql) return;
  const out = await runTool(sql, [table], { dialect: 'standard' });
  const script = textOf(out.files[0].bytes);
  const dir = mkdtempSync(join(tmpdir(), 'st-sql-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = join(dir, 'x.db');
  execFileSync('sqlite3', ['-bail', db], { input: script });
  const tables = execFileSync('sqlite3', [db, "SELECT name FROM sqlite_master WHERE type='table'"], { encoding: 'utf8' }).trim().split('\n');
  assert.equal(tables.length, 1, `exactly one table: ${tables}`);
  const rows = JSON.parse(execFileSync('sqlite3', ['-json', db, `SELECT * FROM "${tables[0]}"`], { encoding: 'utf8' })) as Record<string, unknown>[];
  assert.deepEqual(rows.map((r) => Object.values(r)), ROWS);
});

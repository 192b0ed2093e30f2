// Prototype pollution: sheet names, titles, values and JSON keys `__proto__`, `constructor`, `prototype`…
// are ordinary names for every tool; Object.prototype is unchanged after every run. Checked in-process
// (runTool, every registered tool) and in the server process (jobs inline, so the tools run in this realm)
// through JSON, multipart and MCP. Results are read back with exceljs, JSON.parse and by hand.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AnyTool } from '../../tools/core/define.ts';
import { ToolError } from '../../tools/core/errors.ts';
import type { Format, InputFile } from '../../tools/core/files.ts';
import { listTools } from '../../tools/core/registry.ts';
import { jsonSchemaOf } from '../../tools/core/schema.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';
import { inputFile, runTool } from '../helpers/run-tool.ts';
import { assertOkEverywhere, assertPrototypeIntact, prototypeSnapshot, sendEverywhere, startHostile, type HostileServer } from './harness.ts';
import { xlsxOf, type XSheet } from './packages.ts';

const NAMES = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf'];
const SNAPSHOT = prototypeSnapshot();

/** One sheet per hostile name; every sheet has hostile titles and hostile values, and one distinct mark. */
const sheets: XSheet[] = NAMES.slice(0, 4).map((name, i) => ({
  name,
  rows: [NAMES.slice(0, 5), ...NAMES.map((v, r) => [v, `hoja${i}`, r, true, NAMES[(r + i) % NAMES.length]])],
}));
const workbook = inputFile('proto.xlsx', xlsxOf(sheets));
const csvText = [NAMES.slice(0, 5).join(','), ...NAMES.map((v, r) => `${v},valor${r},${r},true,${NAMES[(r + 1) % NAMES.length]}`)].join('\n') + '\n';
const csv = inputFile('proto.csv', csvText);
const json = inputFile(
  'proto.json',
  '[{"__proto__":{"polluted":true},"constructor":"c","prototype":1,"toString":"t","hasOwnProperty":false},' +
    '{"__proto__":{"polluted":false},"constructor":{"prototype":{"polluted":true}},"prototype":2,"toString":null,"valueOf":"v"}]',
);

const xml = inputFile(
  'proto.xml',
  '<r><f __proto__="a" constructor="c"><__proto__>x</__proto__><constructor><prototype>1</prototype></constructor><toString/></f>' +
    '<f hasOwnProperty="h"><__proto__><polluted>true</polluted></__proto__><valueOf>v</valueOf></f></r>',
);
const html = inputFile('proto.html', `<table><caption>__proto__</caption><tr>${NAMES.slice(0, 5).map((n) => `<th>${n}</th>`).join('')}</tr><tr>${NAMES.slice(0, 5).map((n) => `<td>${n}</td>`).join('')}</tr></table>`);

const byFormat: Partial<Record<Format, InputFile>> = { xlsx: workbook, csv, json, xml, html };

/** Inputs for a tool: its first format the test has a hostile sample of (two for multi-file tools). */
function inputsFor(tool: AnyTool): InputFile[] {
  const f = tool.input.formats.find((x) => byFormat[x]);
  if (!f) return [];
  const one = byFormat[f]!;
  return tool.input.kind === 'files' ? Array.from({ length: tool.input.min }, (_, i) => ({ ...one, name: `${NAMES[i]}-${one.name}` })) : [one];
}

/** Required options, valued with a hostile name where they take text (a column title: `__proto__`). */
function requiredOptions(tool: AnyTool): Record<string, unknown> {
  const schema = jsonSchemaOf(tool, 'es');
  const out: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    if (name === tool.input.kind) continue;
    const p = schema.properties![name] as { type?: string; enum?: unknown[] };
    out[name] = p.enum ? p.enum[0] : p.type === 'string' ? '__proto__' : p.type === 'boolean' ? true : 1;
  }
  return out;
}

test('prototype: every registered tool, run in-process on hostile names, leaves Object.prototype unchanged', async () => {
  let ran = 0;
  const crashes: string[] = [];
  for (const tool of listTools()) {
    const files = inputsFor(tool);
    if (files.length === 0) continue;
    for (const extra of [{}, { 'has-header': false }, { language: 'en' }]) {
      const props = jsonSchemaOf(tool, 'es').properties ?? {};
      const options = Object.fromEntries(Object.entries({ ...requiredOptions(tool), ...extra }).filter(([k]) => k in props));
      try {
        const out = await runTool(tool, files, options);
        assert.ok(out.files.length > 0, tool.id);
      } catch (err) {
        // A clean refusal is allowed (has-header=false with a title reference); a crash is not.
        const cause = err instanceof ToolError ? err.detail.cause : err;
        if (!(err instanceof ToolError) || err.code === 'internal_error') crashes.push(`${tool.id} ${JSON.stringify(options)}: ${String(cause)}`);
      }
      assertPrototypeIntact(SNAPSHOT, `after ${tool.id} ${JSON.stringify(options)}`);
      ran++;
    }
  }
  assert.ok(ran >= 18, `only ${ran} runs`);
  assert.deepEqual(crashes, [], 'runs that crashed instead of treating the names as ordinary text');
});

const csvRows = (bytes: Uint8Array) =>
  Buffer.from(bytes)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .split('\r\n')
    .filter(Boolean)
    .map((l) => l.split(','));

test('prototype: split-sheets gives one file per hostile sheet name, each with its own rows', async () => {
  const out = await runTool(listTools().find((t) => t.id === 'split-sheets')!, [workbook], { format: 'csv' });
  assert.equal(out.files.length, 4);
  assert.equal(new Set(out.files.map((f) => f.name)).size, 4, 'names stay distinct');
  const marks = out.files.map((f) => csvRows(f.bytes)[1][1]).sort();
  assert.deepEqual(marks, ['hoja0', 'hoja1', 'hoja2', 'hoja3']);
  assertPrototypeIntact(SNAPSHOT);
});

test('prototype: split-by-column groups on a column titled __proto__ whose values are prototype names', async () => {
  const tool = listTools().find((t) => t.id === 'split-by-column')!;
  const out = await runTool(tool, [csv], { column: '__proto__', format: 'csv' });
  assert.equal(out.files.length, NAMES.length, 'one group per value, none lost to an inherited key');
  const groups = out.files.map((f) => csvRows(f.bytes)).map((rows) => [rows[0][0], rows.length - 1]);
  assert.deepEqual(groups.map((g) => g[1]), NAMES.map(() => 1));
  assert.deepEqual(out.files.map((f) => csvRows(f.bytes)[1][0]).sort(), [...NAMES].sort());
  assertPrototypeIntact(SNAPSHOT);
});

test('prototype: merge-stack matches titles named __proto__/constructor/prototype by name', async () => {
  const tool = listTools().find((t) => t.id === 'merge-stack')!;
  const a = inputFile('a.csv', '__proto__,constructor,prototype\n1,2,3\n');
  const b = inputFile('b.csv', 'prototype,__proto__,constructor\n30,10,20\n');
  const out = await runTool(tool, [a, b], { 'add-source-column': false });
  const [sheet] = await readXlsx(out.files[0].bytes);
  assert.deepEqual(sheet.rows, [['__proto__', 'constructor', 'prototype'], [1, 2, 3], [10, 20, 30]]);
  assertPrototypeIntact(SNAPSHOT);
});

test('prototype: flatten-sheets and merge-sheets keep hostile sheet names as names', async () => {
  const flat = await runTool(listTools().find((t) => t.id === 'flatten-sheets')!, [workbook], { 'add-sheet-column': true });
  const [sheet] = await readXlsx(flat.files[0].bytes);
  const sheetColumn = sheet.rows[0].indexOf('Hoja');
  assert.ok(sheetColumn >= 0, JSON.stringify(sheet.rows[0]));
  assert.deepEqual([...new Set(sheet.rows.slice(1).map((r) => r[sheetColumn]))], NAMES.slice(0, 4));
  const merged = await runTool(listTools().find((t) => t.id === 'merge-sheets')!, [workbook, { ...workbook, name: 'otro.xlsx' }], { 'keep-original-sheet-names': true });
  const names = (await readXlsx(merged.files[0].bytes)).map((s) => s.name);
  assert.equal(names.length, 2);
  assert.equal(names[0], '__proto__');
  assertPrototypeIntact(SNAPSHOT);
});

test('prototype: excel-to-json writes hostile titles as own keys; json-to-excel reads hostile keys as columns', async (t) => {
  const toJson = listTools().find((x) => x.id === 'excel-to-json');
  const fromJson = listTools().find((x) => x.id === 'json-to-excel');
  if (!toJson || !fromJson) return t.skip('excel-to-json / json-to-excel not registered');
  const out = await runTool(toJson, [csv], {});
  const rows = JSON.parse(Buffer.from(out.files[0].bytes).toString('utf8')) as Record<string, unknown>[];
  assert.equal(rows.length, NAMES.length);
  for (const name of NAMES.slice(0, 5)) assert.ok(Object.hasOwn(rows[0], name), `own key ${name}`);
  assert.equal(rows[0]['__proto__'], '__proto__');
  assert.equal(Object.getPrototypeOf(rows[0]), Object.prototype, 'JSON.parse kept __proto__ an own key');
  const back = await runTool(fromJson, [json], {});
  const [sheet] = await readXlsx(back.files[0].bytes);
  assert.ok(sheet.rows[0].includes('__proto__.polluted'), JSON.stringify(sheet.rows[0]));
  assert.ok(sheet.rows[0].includes('constructor'), JSON.stringify(sheet.rows[0]));
  assert.equal(sheet.rows[1][sheet.rows[0].indexOf('__proto__.polluted')], true);
  assertPrototypeIntact(SNAPSHOT);
});

let srv: HostileServer;
before(async () => {
  srv = await startHostile({ MAX_JOBS: '2' }, { jobs: 'inline' });
});
after(() => srv.close());

test('prototype: through JSON, multipart and MCP (jobs inline, in this process), Object.prototype stays as it was', async () => {
  const cases: Array<[string, InputFile[], Record<string, unknown>]> = [
    ['split-sheets', [workbook], { format: 'csv' }],
    ['split-by-column', [csv], { column: '__proto__' }],
    ['flatten-sheets', [workbook], {}],
    ['merge-stack', [csv, { ...csv, name: 'constructor.csv' }], {}],
  ];
  if (listTools().some((t) => t.id === 'json-to-excel')) cases.push(['json-to-excel', [json], {}]);
  if (listTools().some((t) => t.id === 'excel-to-json')) cases.push(['excel-to-json', [workbook], {}]);
  for (const [tool, files, options] of cases) {
    assertOkEverywhere(await sendEverywhere(srv, tool, files, options));
    assertPrototypeIntact(SNAPSHOT, `after ${tool} through the server`);
  }
});

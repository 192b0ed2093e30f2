// One rule for U+0000 in every result (issue 13): removed, with one warning per run that counts them and names
// the first cell, in the caller's language. An OOXML cell `_x0000_` (or a JSON `\u0000`) is how one arrives.
// XML-based results (xlsx, XML, HTML) lose every character XML 1.0 cannot hold under the same warning rule.
// Each result is read back by something other than the service: exceljs for xlsx, xmllint for XML, JSON.parse,
// pdftotext, the bytes themselves for text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { unzipSync } from 'fflate';
import type { AnyTool } from '../../tools/core/define.ts';
import csv from '../../tools/convert/excel-to-csv.ts';
import html from '../../tools/convert/excel-to-html.ts';
import json from '../../tools/convert/excel-to-json.ts';
import pdf from '../../tools/convert/excel-to-pdf.ts';
import sql from '../../tools/convert/excel-to-sql.ts';
import xml from '../../tools/convert/excel-to-xml.ts';
import jsonToExcel from '../../tools/convert/json-to-excel.ts';
import splitRows from '../../tools/merge-split/split-rows.ts';
import { inputFile, runTool } from '../helpers/run-tool.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';
import { row, xlsxPackage } from '../helpers/xlsx-package.ts';
import { pdfPages } from '../helpers/pdf.ts';

const cell = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
/** Titles a, b; two rows, each with a NUL in column B; the title of A holds one too. */
const book = () =>
  inputFile(
    'nulos.xlsx',
    xlsxPackage({
      sheets: [{ name: 'Datos', xml: row(1, cell('A1', 'a_x0000_') + cell('B1', 'b')) + row(2, cell('A2', 'uno') + cell('B2', 'x_x0000_y')) + row(3, cell('A3', 'dos') + cell('B3', '_x0000_z_x0000_')) }],
    }),
  );

const text = (bytes: Uint8Array) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
const warnings = (out: { messages: { level: string; text: string }[] }) => out.messages.filter((m) => m.level === 'warning').map((m) => m.text);

const ES = (n: number, format: string, cell: string, sheet: string) => `Se han quitado ${n} carácter(es) nulo(s) (U+0000), que un resultado ${format} no lleva (el primero en ${cell} de «${sheet}»).`;
const EN = (n: number, format: string, cell: string, sheet: string) => `${n} null character(s) (U+0000) were removed, which a ${format} result never carries (the first in ${cell} of "${sheet}").`;

interface Case {
  tool: AnyTool;
  options?: Record<string, unknown>;
  /** The warning's format, count and first cell. */
  format: string;
  count: number;
  first: string;
  sheet: string;
  /** What the result reads back as (its values, NULs gone). */
  check(bytes: Uint8Array): void | Promise<void>;
}

const CASES: Case[] = [
  {
    tool: csv as AnyTool,
    format: 'CSV',
    count: 4,
    first: 'A1',
    sheet: 'nulos.csv',
    check: (b) => assert.equal(text(b), '\uFEFFa,b\r\nuno,xy\r\ndos,z\r\n'),
  },
  {
    tool: json as AnyTool,
    format: 'JSON',
    count: 4,
    first: 'A1',
    sheet: 'nulos.json',
    check: (b) => assert.deepEqual(JSON.parse(text(b)), [{ a: 'uno', b: 'xy' }, { a: 'dos', b: 'z' }]),
  },
  {
    tool: json as AnyTool,
    options: { shape: 'arrays' },
    format: 'JSON',
    count: 4,
    first: 'A1',
    sheet: 'nulos.json',
    check: (b) => assert.deepEqual(JSON.parse(text(b)), [['a', 'b'], ['uno', 'xy'], ['dos', 'z']]),
  },
  {
    tool: sql as AnyTool,
    format: 'SQL',
    count: 3,
    first: 'B2',
    sheet: 'nulos.sql',
    check: (b) => assert.ok(text(b).includes("('uno', 'xy'),\n  ('dos', 'z');") && !text(b).includes('\u0000')),
  },
  {
    tool: splitRows as AnyTool,
    options: { 'rows-per-file': 1, format: 'csv' },
    format: 'CSV',
    // The title row goes to both parts.
    count: 5,
    first: 'A1',
    sheet: 'parte-001.csv',
    check: () => {},
  },
  {
    tool: pdf as AnyTool,
    format: 'PDF',
    count: 4,
    first: 'A1',
    sheet: 'nulos.pdf',
    check: (b) => {
      const t = pdfPages(b).join('\n');
      assert.match(t, /uno\s+xy/);
      assert.ok(!t.includes('\ufffd'), 'a NUL is left out, not drawn as a missing glyph');
    },
  },
];

for (const c of CASES) {
  const label = `${c.tool.id}${c.options ? ' ' + JSON.stringify(c.options) : ''}`;
  test(`NUL rule: ${label} removes every U+0000 and says so once, in es and en`, async () => {
    for (const [lang, message] of [['es', ES], ['en', EN]] as const) {
      const out = await runTool(c.tool, [book()], { ...c.options, language: lang });
      // A PDF is binary (its streams hold zero bytes): its text is read by pdftotext instead.
      if (c.format !== 'PDF') for (const f of out.files) assert.ok(!Buffer.from(f.bytes).includes(0), `${f.name} holds no NUL byte`);
      await c.check(out.files[0].bytes);
      const sheet = lang === 'en' ? c.sheet.replace('parte', 'part') : c.sheet;
      assert.deepEqual(warnings(out), [message(c.count, c.format, c.first, sheet)], lang);
    }
  });
}

test('NUL rule: xlsx results lose U+0000 and every character XML cannot hold, with one warning; exceljs reads them', async () => {
  const data = JSON.stringify([{ 'a\u0000': 'x\u0000\u0001y', b: 'p\u000bq\ud800' }, { 'a\u0000': 'tab\tcr\rlf\n', b: 'ok' }]);
  for (const lang of ['es', 'en'] as const) {
    const out = await runTool(jsonToExcel as AnyTool, [inputFile('c.json', data)], { language: lang });
    const parts = unzipSync(out.files[0].bytes);
    const sheetXml = text(parts['xl/worksheets/sheet1.xml']);
    assert.ok(!/_x000[0-8B-F]_|_xD800_/i.test(sheetXml) && !/[\u0000-\u0008]/.test(sheetXml), sheetXml);
    const [sheet] = await readXlsx(out.files[0].bytes);
    assert.deepEqual(sheet.rows, [['a', 'b'], ['xy', 'pq'], ['tab\tcr\rlf\n', 'ok']]);
    assert.deepEqual(
      warnings(out),
      [lang === 'es' ? 'Se han quitado 5 carácter(es) de control que XLSX no admite (el primero en A1 de «c»).' : '5 control character(s) that XLSX cannot hold were removed (the first in A1 of "c").'],
    );
  }
});

test('NUL rule: excel-to-xml and excel-to-html remove what XML cannot hold with the warning the spec asks for, in es and en', async () => {
  const file = () =>
    inputFile('ctl.xlsx', xlsxPackage({ sheets: [{ name: 'Hoja', xml: row(1, cell('A1', 'a') + cell('B1', 'b')) + row(2, cell('A2', 'x_x0000_y') + cell('B2', 'z_x0003__xFFFF_')) }] }));
  for (const [tool, format] of [[xml, 'XML'], [html, 'HTML']] as const) {
    for (const lang of ['es', 'en'] as const) {
      const out = await runTool(tool as AnyTool, [file()], { language: lang });
      const bytes = out.files[0].bytes;
      // xmllint reads the XML result: well-formed, the values without what was removed.
      if (format === 'XML') assert.equal(execFileSync('xmllint', ['--xpath', 'string(/*/*/b)', '-'], { input: bytes }).toString().trim(), 'z');
      else assert.ok(text(bytes).includes('<td>xy</td><td>z</td>'));
      assert.deepEqual(
        warnings(out),
        [lang === 'es' ? `Se han quitado 3 carácter(es) de control que ${format} no admite (el primero en A2 de «ctl.${format.toLowerCase()}»).` : `3 control character(s) that ${format} cannot hold were removed (the first in A2 of "ctl.${format.toLowerCase()}").`],
      );
    }
  }
});

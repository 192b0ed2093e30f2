// Writers count the bytes they produce and stop at the run's result bound (issue 13 item 5): a 10 KB xlsx whose
// one 8 MB shared string fills 150 cells made a CSV of 1.2 GB in Buffers outside the heap before the finished
// result was found too large. Now the run ends with result_too_large once its bytes pass MAX_INLINE_RESULT_MB
// (MAX_RESULT_MB with download=true), every writer and every file of the run counted together.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AnyTool } from '../../tools/core/define.ts';
import { execute } from '../../tools/core/execute.ts';
import { createJobRunner } from '../../tools/core/jobs.ts';
import { parseConfig } from '../../tools/core/config.ts';
import { optionsSchema, parseOptions } from '../../tools/core/schema.ts';
import csv from '../../tools/convert/excel-to-csv.ts';
import json from '../../tools/convert/excel-to-json.ts';
import sql from '../../tools/convert/excel-to-sql.ts';
import jsonToExcel from '../../tools/convert/json-to-excel.ts';
import splitRows from '../../tools/merge-split/split-rows.ts';
import { inputFile } from '../helpers/run-tool.ts';
import { rejectsWith } from '../helpers/tool-error.ts';
import { row, xlsxPackage } from '../helpers/xlsx-package.ts';

const run = (tool: AnyTool, file: ReturnType<typeof inputFile>, options: Record<string, unknown>, maxResultMb: number) =>
  execute(tool, [file], parseOptions(optionsSchema(tool), options), { lang: 'es', download: false, limits: { maxCells: 2_000_000, pdfMaxRows: 50_000, maxResultMb } });

/** One shared string of `mb` MB, used by `cells` cells of one row (and a title row). */
const sharedBomb = (mb: number, cells: number) =>
  inputFile(
    'bomba.xlsx',
    xlsxPackage({
      sheets: [{ name: 'Datos', xml: row(1, '<c r="A1" t="s"><v>1</v></c>') + row(2, Array.from({ length: cells }, () => '<c t="s"><v>0</v></c>').join('')) }],
      sharedStrings: [`<t>${'x'.repeat(mb * 2 ** 20)}</t>`, '<t>t</t>'],
    }),
  );

test('result budget: the 8 MB shared string in 150 cells stops excel-to-csv, -json and -sql at the bound, not at 1.2 GB', async () => {
  const file = sharedBomb(8, 150);
  assert.ok(file.bytes.length < 64 * 1024, `${file.bytes.length} bytes`);
  for (const tool of [csv, json, sql] as AnyTool[]) {
    await rejectsWith(run(tool, file, {}, 8), 'result_too_large', { params: { max: 8 } });
  }
  // Within the bound the same file is written whole.
  const small = sharedBomb(1, 3);
  const out = await run(csv as AnyTool, small, {}, 8);
  // BOM, `t,,` and CRLF, then three cells of 1 MB, two commas and CRLF.
  assert.equal(out.files[0].bytes.length, 3 + 5 + 3 * 2 ** 20 + 2 + 2);
});

test('result budget: the files of one run count together (split-rows), and an xlsx counts as deflated', async () => {
  const rows = Array.from({ length: 30 }, (_, i) => `${i},${'y'.repeat(100_000)}`).join('\n');
  const file = inputFile('partes.csv', `id,texto\n${rows}\n`);
  // Ten parts of about 300 KB each: 3 MB together.
  await rejectsWith(run(splitRows as AnyTool, file, { 'rows-per-file': 3, format: 'csv' }, 2), 'result_too_large', { params: { max: 2 } });
  assert.equal((await run(splitRows as AnyTool, file, { 'rows-per-file': 3, format: 'csv' }, 4)).files.length, 10);
  // Text that deflates to almost nothing passes; text that does not deflate counts whole.
  const items = (text: () => string) => JSON.stringify(Array.from({ length: 100 }, () => ({ a: text() })));
  const compressible = inputFile('c.json', items(() => 'z'.repeat(30_000)));
  assert.equal((await run(jsonToExcel as AnyTool, compressible, {}, 1)).files.length, 1);
  const noise = inputFile('n.json', items(() => randomBytes(15_000).toString('hex')));
  await rejectsWith(run(jsonToExcel as AnyTool, noise, {}, 1), 'result_too_large', { params: { max: 1 } });
});

test('result budget: the job runner bounds an inline run by MAX_INLINE_RESULT_MB and a download by MAX_RESULT_MB', async () => {
  const jobs = createJobRunner(parseConfig({ MAX_INLINE_RESULT_MB: '1', MAX_RESULT_MB: '3' }), 'inline');
  try {
    const file = sharedBomb(1, 2);
    await rejectsWith(jobs.run({ toolId: 'excel-to-csv', files: [file], opts: parseOptions(optionsSchema(csv as AnyTool), {}), lang: 'es', download: false }), 'result_too_large', { params: { max: 1 } });
    const out = await jobs.run({ toolId: 'excel-to-csv', files: [file], opts: parseOptions(optionsSchema(csv as AnyTool), {}), lang: 'es', download: true });
    assert.ok(out.files[0].bytes.length > 2 * 2 ** 20);
    await rejectsWith(jobs.run({ toolId: 'excel-to-csv', files: [sharedBomb(1, 4)], opts: parseOptions(optionsSchema(csv as AnyTool), {}), lang: 'es', download: true }), 'result_too_large', { params: { max: 3 } });
  } finally {
    await jobs.close();
  }
});

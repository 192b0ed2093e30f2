// xls-to-xlsx: a BIFF8 file written by Gnumeric (not by the service) converted, and the result read back by
// openpyxl: sheets, visibility, values, number formats, merges, widths, a formula with its cached value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tool from '../../../tools/convert/xls-to-xlsx.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { assertRichXlsx, openpyxl, richWorkbook } from '../../helpers/workbook-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'xls-to-xlsx-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('xls-to-xlsx: a workbook Gnumeric saved as .xls keeps its sheets, formats, merges, widths and formula', async () => {
  writeFileSync(join(dir, 'rich.xlsx'), await richWorkbook());
  execFileSync('ssconvert', [join(dir, 'rich.xlsx'), join(dir, 'informe.xls')], { stdio: 'ignore', timeout: 540_000 });
  const out = await runTool(tool, [inputFile('informe.xls', new Uint8Array(readFileSync(join(dir, 'informe.xls'))))]);
  assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['informe.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']]);
  const path = join(dir, 'informe.xlsx');
  writeFileSync(path, out.files[0].bytes);
  // Gnumeric writes its own widths (in its units): only that they are there is the reader's to keep.
  assertRichXlsx(path, { formula: true, widths: false }, assert.deepEqual);
  assert.ok(openpyxl(path).sheets[0].widths.A > openpyxl(path).sheets[0].widths.C, 'column A stays wider');
  assert.equal(out.messages[0].level, 'info');
  assert.match(out.messages.at(-1)!.text, /^«informe\.xlsx»: 3 hoja\(s\)/);
});

test('xls-to-xlsx: the committed ventas.xls converts with its values; .xlsx is refused; a damaged .xls is invalid_file', async () => {
  const out = await runTool(tool, [fixture('ventas.xls')], { language: 'en' });
  const path = join(dir, 'ventas.xlsx');
  writeFileSync(path, out.files[0].bytes);
  const book = openpyxl(path);
  assert.ok(Object.keys(book.sheets[0].cells).length > 4);
  assert.equal(out.messages[0].text.startsWith('Not carried: cell styles'), true);
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')]), 'unsupported_format', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('roto.xls', new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0]))]), 'invalid_file', { option: 'file' });
});

// excel-to-ods: the result opened by Gnumeric (values, dates) and converted by it to .xlsx for openpyxl to
// check what an ODS reader other than ours sees: sheets, formats, merges, widths; LibreOffice for visibility.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tool from '../../../tools/convert/excel-to-ods.ts';
import { writeXlsx } from '../../../tools/formats/xlsx/write.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { soffice, ssconvertCsv } from '../../helpers/office.ts';
import { assertRichXlsx, openpyxl, richWorkbook } from '../../helpers/workbook-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'excel-to-ods-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('excel-to-ods: Gnumeric reads the same cells, dates, formats, merges, widths and hidden sheet', async () => {
  const out = await runTool(tool, [inputFile('informe.xlsx', await richWorkbook())]);
  assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['informe.ods', 'application/vnd.oasis.opendocument.spreadsheet']]);
  const path = join(dir, 'informe.ods');
  writeFileSync(path, out.files[0].bytes);
  const csv = ssconvertCsv(path, dir);
  assert.deepEqual(csv[0].trim().split('\n').slice(0, 4), ['Nombre,Importe,Fecha,Pct,Código', 'Ana,1234.5,2024/01/15,0.25,00123', 'Luis,7,"2024/02/29 13:45:00",0.5,#N/A', 'Suma,1241.5,,,']);
  execFileSync('ssconvert', [path, join(dir, 'via-gnumeric.xlsx')], { stdio: 'ignore', timeout: 540_000 });
  // Gnumeric does not carry a hidden ODS table into its .xlsx: LibreOffice's conversion shows the visibility.
  assertRichXlsx(join(dir, 'via-gnumeric.xlsx'), { formula: false, hidden: false, errorFormula: true }, assert.deepEqual);
  const viaLibreOffice = openpyxl(join(soffice([path], 'xlsx', dir), 'informe.xlsx'));
  assert.deepEqual(viaLibreOffice.sheets.map((s) => [s.name, s.state]), [['Datos', 'visible'], ['Oculta', 'hidden'], ['Tercera', 'visible']]);
  assert.deepEqual(viaLibreOffice.sheets[0].merged, ['A6:C6']);
  assert.match(out.messages.find((m) => m.level === 'warning')!.text, /^1 fórmula\(s\) se escriben como su valor calculado/);
  assert.equal(out.preview?.sheet, 'Datos');
  assert.equal(out.preview?.rows[1][0], 'Ana');
});

test('excel-to-ods: a sheet wider than 1,024 columns gets an info; a password-protected workbook is invalid_file', async () => {
  const wide = writeXlsx([{ name: 'Ancha', header: null, rows: [Array.from({ length: 1030 }, (_, i) => i)] }], { t: (k) => k, name: (k) => k });
  const out = await runTool(tool, [inputFile('ancha.xlsx', wide)], { language: 'en' });
  assert.ok(out.messages.some((m) => m.text === 'Sheet "Ancha" has 1030 columns: LibreOffice before 7.4 opens only 1024.'));
  const ole = new Uint8Array(512);
  ole.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  await rejectsWith(runTool(tool, [inputFile('cifrado.xlsx', ole)]), 'invalid_file', { option: 'file' });
});

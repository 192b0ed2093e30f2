// ods-to-excel: an .ods that LibreOffice wrote (from the rich workbook) converted, and the result read back by
// openpyxl: sheets, visibility, values, number formats, merges, widths; formulas as cached values, counted
// (LibreOffice writes the SUM and the #N/A error cell as formulas: two).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import tool from '../../../tools/convert/ods-to-excel.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { soffice } from '../../helpers/office.ts';
import { assertRichXlsx, openpyxl, richWorkbook } from '../../helpers/workbook-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'ods-to-excel-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('ods-to-excel: a LibreOffice .ods keeps its sheets, formats, merges, widths and hidden sheet; its formula is counted', async () => {
  writeFileSync(join(dir, 'informe.xlsx'), await richWorkbook());
  const made = soffice([join(dir, 'informe.xlsx')], 'ods', dir);
  const out = await runTool(tool, [inputFile('informe.ods', new Uint8Array(readFileSync(join(made, 'informe.ods'))))]);
  assert.deepEqual(out.files.map((f) => f.name), ['informe.xlsx']);
  const path = join(dir, 'back.xlsx');
  writeFileSync(path, out.files[0].bytes);
  // LibreOffice turns character widths into lengths of its own font: the widths come back close, in order.
  assertRichXlsx(path, { formula: false, widths: false }, assert.deepEqual);
  const widths = openpyxl(path).sheets[0].widths;
  assert.ok(widths.A > widths.B && widths.B > 12 && widths.A < 30, JSON.stringify(widths));
  assert.ok(out.messages.some((m) => m.level === 'warning' && m.text === '«informe.ods», hoja «Datos»: 2 fórmula(s) se escriben como su valor calculado, porque no se traducen.'));
});

test('ods-to-excel: an encrypted .ods and a text document are invalid_file; .xlsx is refused', async () => {
  const ods = (manifest: string, type = 'application/vnd.oasis.opendocument.spreadsheet') =>
    zipSync({ mimetype: strToU8(type), 'META-INF/manifest.xml': strToU8(manifest), 'content.xml': strToU8('<office:document-content><office:body><office:spreadsheet/></office:body></office:document-content>') });
  const encrypted = ods('<manifest:manifest><manifest:file-entry><manifest:encryption-data/></manifest:file-entry></manifest:manifest>');
  await rejectsWith(runTool(tool, [inputFile('cifrado.ods', encrypted)]), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('texto.ods', ods('<manifest:manifest/>', 'application/vnd.oasis.opendocument.text'))]), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('a.xlsx', 'x')]), 'unsupported_format', { option: 'file' });
});

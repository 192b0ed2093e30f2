// xlsx-to-xls: the result read back by xlrd and Gnumeric (ssconvert), readers independent of the BIFF8 writer;
// BIFF8's limits as format_limit_exceeded naming the limit, and overflow=new-sheets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import tool from '../../../tools/convert/xlsx-to-xls.ts';
import { writeXlsx } from '../../../tools/formats/xlsx/write.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { PYTHON, ssconvertCsv, xlrd } from '../../helpers/office.ts';
import { richWorkbook } from '../../helpers/workbook-fixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'xlsx-to-xls-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const ctx = { t: (k: string) => k, name: (k: string) => k };

test('xlsx-to-xls: values, types, number formats, merges, widths, order and visibility as xlrd and ssconvert read them', async () => {
  const out = await runTool(tool, [inputFile('informe.xlsx', await richWorkbook())]);
  assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['informe.xls', 'application/vnd.ms-excel']]);
  const path = join(dir, 'informe.xls');
  writeFileSync(path, out.files[0].bytes);
  const book = xlrd(path);
  assert.deepEqual(book.sheets.map((s) => [s.name, s.visibility]), [['Datos', 0], ['Oculta', 1], ['Tercera', 0]]);
  const [datos, oculta] = book.sheets;
  assert.deepEqual(datos.merged, [[5, 6, 0, 3]]);
  assert.deepEqual([datos.widths['0'], datos.widths['1']], [20 * 256, 12.5 * 256]);
  const cell = (r: number, c: number) => [datos.cells[r][c].t, datos.cells[r][c].v, datos.cells[r][c].f];
  assert.deepEqual(cell(1, 1), [2, 1234.5, '#,##0.00']);
  assert.deepEqual(cell(1, 2), [3, 45306, 'dd/mm/yyyy']);
  assert.deepEqual(cell(2, 2), [3, 45351 + (13 * 60 + 45) / 1440, 'yyyy-mm-dd hh:mm']);
  assert.deepEqual(cell(1, 3), [2, 0.25, '0%']);
  assert.deepEqual(cell(1, 4), [1, '00123', 'General']);
  assert.deepEqual(cell(2, 4), [5, 0x2a, 'General'], '#N/A stays an error cell');
  assert.deepEqual(cell(3, 1), [2, 1241.5, '#,##0.00'], 'the formula as its cached value');
  assert.deepEqual([oculta.cells[2][1].v, oculta.cells[3][2].v], ['desplazada', 42], 'cells stay where they were');
  const csv = ssconvertCsv(path, dir);
  assert.equal(csv[0].split('\n')[1].trim(), 'Ana,1234.5,2024/01/15,0.25,00123', 'Gnumeric reads the number, the date and the text');
  assert.deepEqual(
    out.messages.map((m) => m.level),
    ['info', 'warning', 'info'],
  );
  assert.match(out.messages[1].text, /^1 fórmula\(s\) se escriben como su valor calculado \(la primera, hoja «Datos» B4\)/);
  assert.equal(out.preview?.rows[1][0], 'Ana');
});

function bigXlsx(rows: number, width = 1): Uint8Array {
  const data = Array.from({ length: rows }, (_, i) => Array.from({ length: width }, (_, c) => (c === 0 ? i : `c${c}`)));
  return writeXlsx([{ name: 'Grande', header: null, rows: [['Título', ...Array.from({ length: width - 1 }, (_, c) => `T${c + 2}`)], ...data] }], ctx);
}

test('xlsx-to-xls: over 65,536 rows is format_limit_exceeded naming the sheet and the count; new-sheets continues with the title row', async () => {
  const file = inputFile('grande.xlsx', bigXlsx(70_000));
  await rejectsWith(runTool(tool, [file], { language: 'en' }), 'format_limit_exceeded', { params: { sheet: 'Grande', found: 70_001, max: 65_536 } });
  const out = await runTool(tool, [file], { overflow: 'new-sheets', language: 'en' });
  const path = join(dir, 'grande.xls');
  writeFileSync(path, out.files[0].bytes);
  const counts = execFileSync(PYTHON, ['-c', 'import sys, xlrd\nb = xlrd.open_workbook(sys.argv[1])\nfor s in b.sheets(): print(s.name, s.nrows, s.cell_value(0, 0), s.cell_value(1, 0))', path], { encoding: 'utf8', timeout: 540_000 });
  // 70,001 rows: the first sheet holds 65,536 (title + 65,535 data rows), the next the title and the 4,465 left.
  assert.deepEqual(counts.trim().split('\n'), ['Grande 65536 Título 0.0', 'Grande (2) 4466 Título 65535.0']);
  assert.ok(out.messages.some((m) => m.text === 'Sheet "Grande" has 70001 rows, more than the 65,536 of .xls: it goes on over 2 sheets.'));
});

test('xlsx-to-xls: 257 columns or a cell of 32,768 characters is format_limit_exceeded whatever overflow says', async () => {
  await rejectsWith(runTool(tool, [inputFile('ancha.xlsx', bigXlsx(2, 257))], { overflow: 'new-sheets' }), 'format_limit_exceeded', { params: { sheet: 'Grande', found: 257, max: 256 } });
  // Excel itself refuses such a cell; exceljs writes one.
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Larga').addRows([['a'], ['x'.repeat(32_768)]]);
  const long = new Uint8Array(await wb.xlsx.writeBuffer());
  await rejectsWith(runTool(tool, [inputFile('larga.xlsx', long)]), 'format_limit_exceeded', { params: { sheet: 'Larga', found: 32_768, max: 32_767 } });
});

test('xlsx-to-xls: only .xlsx is accepted; a damaged one is invalid_file', async () => {
  await rejectsWith(runTool(tool, [inputFile('a.xls', 'x')]), 'unsupported_format', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('a.xlsx', 'not a zip at all')]), 'invalid_file', { option: 'file' });
});

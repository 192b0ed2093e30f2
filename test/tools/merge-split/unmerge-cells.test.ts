// unmerge-cells: ranges split and filled with the top-left cell (value, type, number format; a formula stays
// in the top-left cell), read back by openpyxl; first-only, all-sheets=false, csv, an .ods, and the limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import * as XLSX from 'xlsx';
import tool from '../../../tools/merge-split/unmerge-cells.ts';
import excelToOds from '../../../tools/convert/excel-to-ods.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { ssconvertCsv } from '../../helpers/office.ts';
import { d, openpyxl, richWorkbook } from '../../helpers/workbook-fixture.ts';
import { textOf } from '../../helpers/typed-titles.ts';

const dir = mkdtempSync(join(tmpdir(), 'unmerge-cells-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
let serial = 0;
const saved = (bytes: Uint8Array, ext = 'xlsx') => {
  const path = join(dir, `r${serial++}.${ext}`);
  writeFileSync(path, bytes);
  return path;
};

/** A report: a merged date over two rows, a merged formula, a merged title past the data, a hidden sheet with a range. */
async function report(): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  const s = wb.addWorksheet('Informe');
  s.getCell('A1').value = 'Región';
  s.getCell('B1').value = 'Importe';
  s.getCell('A2').value = d(2024, 3, 1);
  s.getCell('A2').numFmt = 'dd/mm/yyyy';
  s.mergeCells('A2:A3');
  s.getCell('B2').value = 5;
  s.getCell('B3').value = 6;
  s.getCell('B4').value = { formula: 'SUM(B2:B3)', result: 11 };
  s.getCell('B4').numFmt = '0.00';
  s.mergeCells('B4:C4');
  s.mergeCells('A6:B6');
  s.getCell('D1').value = 'Nota';
  s.mergeCells('D1:E2');
  s.getColumn(1).width = 18;
  const h = wb.addWorksheet('Oculta', { state: 'hidden' });
  h.getCell('A1').value = 'x';
  h.mergeCells('A1:B1');
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

test('unmerge-cells: every cell of a range gets the top-left value, type and format; a formula stays in the first cell', async () => {
  const out = await runTool(tool, [inputFile('informe.xlsx', await report())]);
  assert.deepEqual(out.files.map((f) => f.name), ['informe-sin-combinar.xlsx']);
  const book = openpyxl(saved(out.files[0].bytes));
  const [informe, oculta] = book.sheets;
  assert.deepEqual(informe.merged, []);
  assert.deepEqual(oculta.merged, [], 'hidden sheets are unmerged too');
  assert.equal(oculta.state, 'hidden');
  const c = informe.cells;
  assert.deepEqual([c.A2, c.A3], [['2024-03-01T00:00:00', 'd', 'dd/mm/yyyy'], ['2024-03-01T00:00:00', 'd', 'dd/mm/yyyy']]);
  assert.deepEqual([c.B4, c.C4], [['=SUM(B2:B3)', 'f', '0.00'], [11, 'n', '0.00']]);
  assert.deepEqual([c.D1, c.E1, c.D2, c.E2], Array(4).fill(['Nota', 's', 'General']), 'a range past the data columns is filled');
  assert.equal(c.A6, undefined, 'an empty top-left cell leaves its range empty');
  assert.equal(Math.round(informe.widths.A), 18);
  assert.deepEqual(oculta.cells, { A1: ['x', 's', 'General'], B1: ['x', 's', 'General'] });
  assert.ok(out.messages.some((m) => m.text === 'Hoja «Informe»: 4 rango(s) combinado(s) separado(s), 5 celda(s) rellenada(s).'));
});

test('unmerge-cells: first-only leaves the other cells empty; all-sheets=false keeps the other sheets\' ranges', async () => {
  const first = openpyxl(saved((await runTool(tool, [inputFile('informe.xlsx', await report())], { fill: 'first-only' })).files[0].bytes));
  assert.deepEqual(first.sheets[0].merged, []);
  assert.deepEqual([first.sheets[0].cells.A3, first.sheets[0].cells.E2], [undefined, undefined]);
  const one = openpyxl(saved((await runTool(tool, [inputFile('informe.xlsx', await report())], { 'all-sheets': false })).files[0].bytes));
  assert.deepEqual([one.sheets[0].merged, one.sheets[1].merged], [[], ['A1:B1']]);
});

test('unmerge-cells: csv gives one file per processed sheet; an .ods stays an .ods; no ranges is said', async () => {
  const csv = await runTool(tool, [inputFile('informe.xlsx', await report())], { format: 'csv', 'all-sheets': false, language: 'en' });
  assert.deepEqual(csv.files.map((f) => f.name), ['Informe.csv']);
  assert.equal(textOf(csv.files[0].bytes).split('\r\n')[1], '2024-03-01,5,,Nota,Nota');
  const ods = (await runTool(excelToOds, [inputFile('informe.xlsx', await report())])).files[0].bytes;
  const out = await runTool(tool, [inputFile('informe.ods', ods)]);
  assert.deepEqual(out.files.map((f) => f.name), ['informe-sin-combinar.ods']);
  const back = ssconvertCsv(saved(out.files[0].bytes, 'ods'), mkdtempSync(join(dir, 'ss-')));
  assert.equal(back[0].split('\n')[1].trim(), '2024/03/01,5,,Nota,Nota');
  const plain = await runTool(tool, [inputFile('informe.xlsx', await richWorkbook())], { 'all-sheets': false, language: 'en' });
  assert.ok(plain.messages.some((m) => m.text.startsWith('Sheet "Datos": 1 merged range(s) unmerged, 2 cell(s) filled.')));
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('S').getCell('A1').value = 1;
  const none = await runTool(tool, [inputFile('plano.xlsx', new Uint8Array(await wb.xlsx.writeBuffer()))], { language: 'en' });
  assert.ok(none.messages.some((m) => m.text === '"plano.xlsx" has no merged cells in the sheets processed: it is returned unchanged.'));
});

test('unmerge-cells: filling more than 2,000,000 cells is too_complex', async () => {
  // SheetJS writes the one range without a cell object per covered cell (exceljs makes two million).
  const ws = XLSX.utils.aoa_to_sheet([['x']]);
  ws['!merges'] = [{ s: { r: 0, c: 0 }, e: { r: 20_000, c: 99 } }];
  const wb = XLSX.utils.book_new(ws, 'S');
  await rejectsWith(runTool(tool, [inputFile('enorme.xlsx', XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }))]), 'too_complex');
});

// excel-to-ods hands an .xlsx sheet without merged ranges to the ods writer as its rows are read (xlsx/read.ts
// rowsAsRead, grid.ts RowsGrid): the result is byte for byte what the copy of whole tables writes, and Gnumeric
// reads the table where it was (from C3), its formats and its hidden sheet; rows reach the writer before the
// sheet is read to its end, with the column widths already known; a sheet with merges, a row before one already
// read, and a cell the fast reader leaves to SheetJS all give the whole copy's result, with its messages once;
// and a streamed sheet holds a batch, not the table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import * as XLSX from 'xlsx';
import tool from '../../../tools/convert/excel-to-ods.ts';
import { copySheets, FormatError, openWorkbook, writeOds, type AnyCell, type Table } from '../../../tools/formats/index.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { contextOf } from '../../helpers/read-tables.ts';
import { openpyxl } from '../../helpers/workbook-fixture.ts';
import { heapHalfway, settledHeap } from '../../helpers/heap.ts';

const dir = mkdtempSync(join(tmpdir(), 'excel-to-ods-streamed-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const xlsxOf = (wb: XLSX.WorkBook) => new Uint8Array(XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }));

/** A table from C3 with widths, a gap of empty rows, formats, a date, a boolean, an error, a formula; a hidden sheet. */
function book(rows = 300): Uint8Array {
  const ws: XLSX.WorkSheet = {
    C3: { t: 's', v: 'Nombre' },
    D3: { t: 'n', v: 0.25, z: '0.00%' },
    C5: { t: 'n', v: 45000, z: 'yyyy-mm-dd' },
    E5: { t: 'b', v: true },
    F5: { t: 'e', v: 7, w: '#DIV/0!' },
    C8: { t: 'n', v: 3, f: '1+2' },
    H8: { t: 's', v: 'lejos' },
  };
  for (let r = 10; r < 10 + rows; r++) {
    ws[`C${r}`] = { t: 'n', v: r };
    ws[`D${r}`] = { t: 's', v: `fila ${r} "q" <x> & y` };
    if (r % 7 === 0) ws[`G${r}`] = { t: 'n', v: r / 3, z: '#,##0.00' };
  }
  ws['!ref'] = `C3:H${9 + rows}`;
  ws['!cols'] = [{}, {}, { wch: 5 }, { wch: 30 }, { wch: 12 }];
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, ws, 'Datos');
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['a', 'b'], [1, 2]]), 'Oculta');
  wb.Workbook = { Sheets: [{ Hidden: 0 }, { Hidden: 1 }] };
  return xlsxOf(wb);
}

/** The same workbook with one sheet's XML changed. */
function edited(bytes: Uint8Array, change: (xml: string) => string): Uint8Array {
  const parts = unzipSync(bytes);
  parts['xl/worksheets/sheet1.xml'] = strToU8(change(strFromU8(parts['xl/worksheets/sheet1.xml'])));
  return zipSync(parts);
}

/** What the copy of whole tables writes (copySheets without layoutFirst reads every sheet whole). */
async function wholeCopy(name: string, bytes: Uint8Array): Promise<Uint8Array> {
  const wb = openWorkbook(inputFile(name, bytes), contextOf(), { hasHeader: false, cells: 'full' });
  return (await writeOds({ sheets: copySheets(wb.sheets.map((sheet) => ({ sheet }))) })).bytes;
}

const content = (ods: Uint8Array) => strFromU8(unzipSync(ods)['content.xml']);

test('excel-to-ods: a streamed sheet is written byte for byte as the whole copy, and Gnumeric reads it where it was', async () => {
  const bytes = book();
  const out = await runTool(tool, [inputFile('libro.xlsx', bytes)], { language: 'en' });
  assert.equal(content(out.files[0].bytes), content(await wholeCopy('libro.xlsx', bytes)));
  const path = join(dir, 'libro.ods');
  writeFileSync(path, out.files[0].bytes);
  execFileSync('ssconvert', [path, join(dir, 'via-gnumeric.xlsx')], { stdio: 'ignore', timeout: 540_000 });
  const back = openpyxl(join(dir, 'via-gnumeric.xlsx'));
  const datos = back.sheets[0].cells;
  assert.deepEqual(
    ['C3', 'D3', 'C5', 'E5', 'C8', 'H8', 'C10', 'D10', 'G14', 'C309'].map((ref) => [ref, datos[ref]?.[0], datos[ref]?.[2]]),
    [
      ['C3', 'Nombre', 'General'],
      ['D3', 0.25, '0.00%'],
      ['C5', '2023-03-15T00:00:00', 'yyyy-mm-dd'],
      ['E5', true, 'General'],
      ['C8', 3, 'General'],
      ['H8', 'lejos', 'General'],
      ['C10', 10, 'General'],
      ['D10', 'fila 10 "q" <x> & y', 'General'],
      ['G14', 14 / 3, '#,##0.00'],
      ['C309', 309, 'General'],
    ],
  );
  assert.equal(Object.keys(datos).filter((ref) => /^[AB]\d/.test(ref) || /^[A-Z]+[12]$/.test(ref)).length, 0);
  assert.deepEqual(back.sheets[1].cells, { A1: ['a', 's', 'General'], B1: ['b', 's', 'General'], A2: [1, 'n', 'General'], B2: [2, 'n', 'General'] });
  assert.match(content(out.files[0].bytes), /table:name="Oculta" table:style-name="ta\d+"/);
  assert.equal(out.messages.filter((m) => m.text.startsWith('Not carried')).length, 1);
  assert.ok(out.messages.some((m) => m.text.includes('1 formula(s)')), JSON.stringify(out.messages));
});

test('excel-to-ods: rows reach the writer before the sheet is read to its end, its widths before the first', () => {
  const rows = 20_000;
  // A shared string index past the table in the last row: the whole read fails before any row is handed on.
  const bytes = edited(book(rows), (xml) => {
    const end = xml.lastIndexOf('</row>');
    return `${xml.slice(0, end)}<c r="J${9 + rows}" t="s"><v>999999</v></c>${xml.slice(end)}`;
  });
  const wb = openWorkbook(inputFile('largo.xlsx', bytes), contextOf(), { hasHeader: false, cells: 'full' });
  const sheet = wb.sheets[0].rowsAsRead?.({ layoutFirst: true });
  assert.ok(sheet);
  // The widths of C to E, as the whole read gives them.
  const whole = openWorkbook(inputFile('libro.xlsx', book(5)), contextOf(), { hasHeader: false, cells: 'full' }).sheets[0].table().layout!.widths;
  assert.equal(whole.length, 5);
  assert.ok(whole.slice(2).every((w) => typeof w === 'number' && w > 0));
  assert.deepEqual(sheet.widths, whole);
  assert.deepEqual(sheet.merges, []);
  let got = 0;
  let first: AnyCell[][] | null = null;
  assert.throws(
    () => {
      for (const batch of sheet.rows) {
        first ??= batch;
        got += batch.length;
      }
    },
    (e: unknown) => e instanceof FormatError && e.file === 'largo.xlsx',
  );
  assert.ok(got > 1000 && got < rows, `rows handed on before the damage: ${got}`);
  assert.equal(first![0].length, 0);
  assert.equal(first![2][2], 'Nombre');
  assert.equal(first![9][2], 10);
});

test('excel-to-ods: merges, a row out of order and a cell left to SheetJS give the whole copy, messages once', async () => {
  const base = book(50);
  const merged = (() => {
    const wb = XLSX.read(base, { type: 'buffer', cellStyles: true, cellNF: true });
    wb.Sheets.Datos['!merges'] = [XLSX.utils.decode_range('C3:D4')];
    return xlsxOf(wb);
  })();
  const swapped = edited(base, (xml) => {
    const rows = xml.match(/<row [^>]*>[\s\S]*?<\/row>/g)!;
    return xml.replace(rows[5], '@@').replace(rows[12], rows[5]).replace('@@', rows[12]);
  });
  // R1C1 references: the fast reader leaves the workbook to SheetJS, which reads them by position.
  const r1c1 = edited(base, (xml) => xml.replace(/<c r="C5"/, '<c r="R5C3"'));
  for (const [name, bytes] of [
    ['unida.xlsx', merged],
    ['desordenada.xlsx', swapped],
    ['r1c1.xlsx', r1c1],
  ] as const) {
    const wb = openWorkbook(inputFile(name, bytes), contextOf(), { hasHeader: false, cells: 'full' });
    if (name === 'unida.xlsx') assert.equal(wb.sheets[0].rowsAsRead?.({ layoutFirst: true }) ?? null, null);
    const out = await runTool(tool, [inputFile(name, bytes)], { language: 'en' });
    assert.equal(content(out.files[0].bytes), content(await wholeCopy(name, bytes)), name);
    assert.equal(out.messages.filter((m) => m.text.startsWith('Not carried')).length, 1, name);
    assert.equal(out.messages.filter((m) => m.text.includes('1 formula(s)')).length, 1, `${name}: ${JSON.stringify(out.messages)}`);
  }
  assert.match(content((await runTool(tool, [inputFile('unida.xlsx', merged)])).files[0].bytes), /table:number-columns-spanned="2" table:number-rows-spanned="2"/);
  // Without layoutFirst (a copy into xlsx) the sheet is read whole, as before.
  const wb = openWorkbook(inputFile('libro.xlsx', base), contextOf(), { hasHeader: false, cells: 'full' });
  assert.equal(wb.sheets[0].rowsAsRead?.() ?? null, null);
});

test('excel-to-ods: a streamed sheet holds a batch, not the table (heap after full collections)', () => {
  const rows = 40_000;
  const file = inputFile('grande.xlsx', book(rows));
  const before = settledHeap();
  let table: Table<AnyCell> | null = openWorkbook(file, contextOf(), { hasHeader: false, cells: 'full' }).sheets[0].table();
  const whole = settledHeap() - before;
  assert.equal(table.rows().length, rows + 7);
  table = null;
  const sheet = openWorkbook(file, contextOf(), { hasHeader: false, cells: 'full' }).sheets[0].rowsAsRead?.({ layoutFirst: true });
  assert.ok(sheet);
  const { heap: streamed, rows: seen } = heapHalfway(sheet.rows, rows, before);
  assert.equal(seen, rows + 9);
  assert.ok(streamed < whole / 4, `streamed ${(streamed / 2 ** 20).toFixed(1)} MB, whole ${(whole / 2 ** 20).toFixed(1)} MB`);
});

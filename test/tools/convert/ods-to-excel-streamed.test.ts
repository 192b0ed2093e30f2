// ods-to-excel hands each sheet to the xlsx writer as content.xml is read (copy.ts, book.ts SheetRows): the
// result, read back by openpyxl, keeps a table that starts at C5 where it was, repeated rows, number formats,
// merges (known only at the sheet's end), widths trimmed to the used columns, a hidden sheet and the sheets'
// order; it is byte for byte what the whole-table copy writes; rows reach the writer before the sheet is read
// to its end; and the cell limit refuses a sheet halfway through it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import tool from '../../../tools/convert/ods-to-excel.ts';
import { DEFAULT_TOOL_LIMITS } from '../../../tools/core/config.ts';
import { execute } from '../../../tools/core/execute.ts';
import { copySheets, FormatError, openWorkbook, writeXlsxBook, type AnyCell, type Table } from '../../../tools/formats/index.ts';
import { INCHES_PER_CHAR } from '../../../tools/formats/ods/write.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { contextOf } from '../../helpers/read-tables.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { openpyxl } from '../../helpers/workbook-fixture.ts';
import { heapHalfway, settledHeap } from '../../helpers/heap.ts';

const dir = mkdtempSync(join(tmpdir(), 'ods-streamed-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"';

const STYLES =
  '<office:automatic-styles>' +
  '<number:number-style style:name="N2"><number:number number:decimal-places="2" number:min-decimal-places="2" number:min-integer-digits="1"/></number:number-style>' +
  '<style:style style:name="ce1" style:family="table-cell" style:data-style-name="N2"/>' +
  '<style:style style:name="co1" style:family="table-column"><style:table-column-properties style:column-width="1in"/></style:style>' +
  '<style:style style:name="co2" style:family="table-column"><style:table-column-properties style:column-width="2in"/></style:style>' +
  '<style:style style:name="ta2" style:family="table"><style:table-properties table:display="false"/></style:style>' +
  '</office:automatic-styles>';

const cell = (v: string) => `<table:table-cell office:value-type="string"><text:p>${v}</text:p></table:table-cell>`;
const skip2 = '<table:table-cell table:number-columns-repeated="2"/>';

/** A sheet starting at C5 (LibreOffice's way: every column styled, a million empty rows after the last). */
const DATOS =
  '<table:table table:name="Datos">' +
  '<table:table-column table:style-name="co1" table:number-columns-repeated="2"/><table:table-column table:style-name="co2" table:number-columns-repeated="16382"/>' +
  '<table:table-row table:number-rows-repeated="4"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>' +
  `<table:table-row>${skip2}${cell('Nombre')}${cell('Importe')}${cell('Fecha')}</table:table-row>` +
  `<table:table-row table:number-rows-repeated="3">${skip2}${cell('igual')}<table:table-cell table:style-name="ce1" office:value-type="float" office:value="1.5"/><table:table-cell office:value-type="date" office:date-value="2024-03-01"/></table:table-row>` +
  `<table:table-row>${skip2}<table:table-cell office:value-type="string" table:number-columns-spanned="2" table:number-rows-spanned="2"><text:p>unida</text:p></table:table-cell><table:covered-table-cell/><table:table-cell office:value-type="boolean" office:boolean-value="true"/></table:table-row>` +
  `<table:table-row>${skip2}<table:covered-table-cell table:number-columns-repeated="2"/><table:table-cell table:formula="of:=1+1" office:value-type="float" office:value="2"/></table:table-row>` +
  '<table:table-row table:number-rows-repeated="1048565"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>' +
  '</table:table>';

/** A sheet of `rows` numbered rows with a merge after them: far more XML than one inflated chunk. */
const largo = (rows: number) =>
  '<table:table table:name="Largo">' +
  Array.from({ length: rows }, (_, i) => `<table:table-row><table:table-cell office:value-type="float" office:value="${i + 1}"/>${cell(`fila ${i + 1}`)}</table:table-row>`).join('') +
  '<table:table-row><table:table-cell table:number-columns-spanned="2" office:value-type="string"><text:p>fin</text:p></table:table-cell><table:covered-table-cell/></table:table-row>' +
  '</table:table>';

/** `stored`: content.xml not deflated, so that it is read 16 KB at a time (a deflated part under 1 MB comes whole). */
function ods(tables: string, stored = false): Uint8Array {
  const content = `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${NS}>${STYLES}<office:body><office:spreadsheet>${tables}</office:spreadsheet></office:body></office:document-content>`;
  return zipSync({ mimetype: [strToU8('application/vnd.oasis.opendocument.spreadsheet'), { level: 0 }], 'content.xml': [strToU8(content), { level: stored ? 0 : 6 }] });
}

const BOOK = ods(
  DATOS +
    `<table:table table:name="Oculta" table:style-name="ta2"><table:table-row>${cell('x')}</table:table-row></table:table>` +
    '<table:table table:name="Tres"><table:table-row><table:table-cell/><table:table-cell office:value-type="float" office:value="3"/></table:table-row></table:table>',
);

test('ods-to-excel: a table at C5, repeated rows, formats, merges, widths and a hidden sheet, as openpyxl reads them', async () => {
  const out = await runTool(tool, [inputFile('libro.ods', BOOK)]);
  const path = join(dir, 'libro.xlsx');
  writeFileSync(path, out.files[0].bytes);
  const back = openpyxl(path);
  assert.deepEqual(
    back.sheets.map((s) => [s.name, s.state]),
    [
      ['Datos', 'visible'],
      ['Oculta', 'hidden'],
      ['Tres', 'visible'],
    ],
  );
  const datos = back.sheets[0];
  const rows = [6, 7, 8].flatMap((r) => [
    [`C${r}`, ['igual', 's', 'General']],
    [`D${r}`, [1.5, 'n', '0.00']],
    [`E${r}`, ['2024-03-01T00:00:00', 'd', 'yyyy-mm-dd']],
  ]);
  assert.deepEqual(
    datos.cells,
    Object.fromEntries([
      ['C5', ['Nombre', 's', 'General']],
      ['D5', ['Importe', 's', 'General']],
      ['E5', ['Fecha', 's', 'General']],
      ...rows,
      ['C9', ['unida', 's', 'General']],
      ['E9', [true, 'b', 'General']],
      ['E10', [2, 'n', 'General']],
    ]),
  );
  assert.deepEqual(datos.merged, ['C9:D10']);
  // Five used columns (C to E with values, the merge within): LibreOffice's other 16,379 styled ones are not kept.
  const w = (inches: number) => Math.round((inches / INCHES_PER_CHAR) * 100) / 100;
  assert.deepEqual(datos.widths, { A: w(1), C: w(2) });
  const xml = strFromU8(unzipSync(out.files[0].bytes)['xl/worksheets/sheet1.xml']);
  assert.match(xml, new RegExp(`<cols><col min="1" max="2" width="${w(1)}" customWidth="1"/><col min="3" max="5" width="${w(2)}" customWidth="1"/></cols>`));
  assert.deepEqual(back.sheets[2].cells, { B1: [3, 'n', 'General'] });
  assert.ok(out.messages.some((m) => m.level === 'warning' && m.text.includes('«Datos»') && m.text.includes('1 fórmula')), JSON.stringify(out.messages));
});

test('ods-to-excel: the streamed copy writes the same bytes as the copy of whole tables', async () => {
  const bytes = ods(DATOS + largo(2000) + '<table:table table:name="Tres"/>', true);
  const out = await runTool(tool, [inputFile('libro.ods', bytes)]);
  const ctx = contextOf();
  const book = openWorkbook(inputFile('libro.ods', bytes), ctx, { hasHeader: false, cells: 'full' });
  const whole = await writeXlsxBook({ sheets: copySheets(book.sheets.map((sheet) => ({ sheet }))) }, ctx);
  assert.ok(Buffer.from(out.files[0].bytes).equals(Buffer.from(whole.bytes)));
});

test('ods-to-excel: rows reach the writer before the sheet is read to its end, its merges once it is', () => {
  const book = openWorkbook(inputFile('largo.ods', ods(largo(5000), true)), contextOf(), { hasHeader: false, cells: 'full' });
  const sheet = book.sheets[0].rowsAsRead?.();
  assert.ok(sheet);
  let first: AnyCell[][] | null = null;
  let rows = 0;
  for (const batch of sheet.rows) {
    if (first === null) {
      first = batch;
      // The merge is in the sheet's last row: not read yet.
      assert.deepEqual(sheet.merges, []);
    }
    rows += batch.length;
  }
  assert.deepEqual(first?.[0], [1, 'fila 1']);
  assert.equal(rows, 5001);
  assert.deepEqual(sheet.merges, [{ top: 5000, left: 0, bottom: 5000, right: 1 }]);
  // A workbook read whole has nothing to stream.
  const xlsx = openWorkbook(inputFile('a.ods', BOOK), contextOf(), { hasHeader: false });
  assert.equal(xlsx.sheets[0].rowsAsRead?.() ?? null, null);
});

test('ods-to-excel: past the cell limit halfway through a streamed sheet, too_complex', async () => {
  const bytes = ods(largo(3000), true);
  const book = openWorkbook(inputFile('largo.ods', bytes), contextOf({ maxCells: 2000 }), { hasHeader: false, cells: 'full' });
  const sheet = book.sheets[0].rowsAsRead?.();
  assert.ok(sheet);
  let got = 0;
  assert.throws(
    () => {
      for (const batch of sheet.rows) got += batch.length;
    },
    (e: unknown) => e instanceof FormatError && e.reason === 'cells' && e.file === 'largo.ods',
  );
  assert.ok(got > 0 && got < 1000, `rows handed on before the limit: ${got}`);
  const limits = { ...DEFAULT_TOOL_LIMITS, maxCells: 2000 };
  await rejectsWith(execute(tool as never, [inputFile('largo.ods', bytes)], {}, { lang: 'es', download: false, limits }), 'too_complex', { option: 'file' });
});

test('ods-to-excel: a streamed sheet holds a batch, not the table (heap after full collections)', () => {
  const rows = 40_000;
  const body = Array.from({ length: rows }, (_, i) => `<table:table-row><table:table-cell office:value-type="float" office:value="${i}.5"/>${cell(`cliente número ${i}`)}${cell(`calle ${i}, ${i % 50}º`)}<table:table-cell office:value-type="date" office:date-value="2024-01-${String((i % 28) + 1).padStart(2, '0')}"/></table:table-row>`).join('');
  const file = inputFile('grande.ods', ods(`<table:table table:name="G">${body}</table:table>`, true));
  const base = settledHeap();
  let table: Table<AnyCell> | null = openWorkbook(file, contextOf(), { hasHeader: false, cells: 'full' }).sheets[0].table();
  const whole = settledHeap() - base;
  assert.equal(table.rows().length, rows);
  table = null;
  const sheet = openWorkbook(file, contextOf(), { hasHeader: false, cells: 'full' }).sheets[0].rowsAsRead?.();
  assert.ok(sheet);
  const { heap: streamed, rows: seen } = heapHalfway(sheet.rows, rows, base);
  assert.equal(seen, rows);
  // The table's own cells (40,000 rows, about 11 MB) against a batch of 512 rows and the reader's state (about 1 MB).
  assert.ok(streamed < whole / 6, `streamed ${(streamed / 2 ** 20).toFixed(1)} MB, whole ${(whole / 2 ** 20).toFixed(1)} MB`);
});

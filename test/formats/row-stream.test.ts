// Rows streamed from the readers (Sheet.stream, tools/formats/book.ts) against the table path (readTables): the same
// tables, titles, typed title cells, messages and errors, on sheets made to move the table's edges after its
// columns were decided (a later row wider, a cell further left, rows out of order, a far cell, a cell type the
// fast path hands to SheetJS halfway), on odd extents, and on every committed xlsx and xls fixture. Then the
// tools built on it (excel-to-csv, split-rows) against what they wrote from the whole table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { widthOf, type Row } from '../../tools/formats/model.ts';
import excelToCsv from '../../tools/convert/excel-to-csv.ts';
import splitRows from '../../tools/merge-split/split-rows.ts';
import { mapped, open, readFirstTable, readTables, type ReadOptions, type SheetTable } from '../helpers/read-tables.ts';
import { titleRow } from '../../tools/formats/table/titles.ts';
import { writeCsv } from '../../tools/formats/csv/write.ts';
import { writeXlsx } from '../../tools/formats/xlsx/write.ts';
import { GATHER_ROWS } from '../../tools/formats/grid.ts';
import type { InputFile } from '../../tools/core/files.ts';
import { fixture, inputFile, runTool } from '../helpers/run-tool.ts';
import { row, xlsxPackage, type PackageSpec } from '../helpers/xlsx-package.ts';

type Msg = [string, string, Record<string, string | number> | undefined];

const norm = (t: SheetTable) => ({ name: t.name, header: t.header, titleCells: t.titleCells ?? null, rows: t.rows });

/** The tables, messages and error of the table path. */
function viaTable(file: InputFile, o: ReadOptions, first = false) {
  const msgs: Msg[] = [];
  const report = (...m: Msg) => void msgs.push(m);
  try {
    const tables = first ? [readFirstTable(file, { ...o, report })] : readTables(file, { ...o, report }).tables;
    return { tables: tables.map(norm), msgs };
  } catch (err) {
    return { error: errorOf(err), msgs };
  }
}

/** The same, rows gathered from each sheet's stream; `resets` counts the times a stream was read again. */
function viaStream(file: InputFile, o: ReadOptions, first = false) {
  const msgs: Msg[] = [];
  const report = (...m: Msg) => void msgs.push(m);
  let resets = 0;
  let batches = 0;
  try {
    const read = mapped(o, () => {
      const book = open(file, { ...o, report });
      const sheets = first || o.sheets === 'first' ? [book.first] : book.sheets;
      const tables = sheets.map((sheet) => {
        let runs = 0;
        const t = sheet.stream((rows) => {
          // Each run after the first is the stream read again (a reset of the rows handed on).
          if (runs++ > 0) resets++;
          const got: Row[] = [];
          for (const batch of rows) {
            batches++;
            got.push(...batch.rows());
          }
          return { table: { name: rows.name, header: rows.header, titleCells: rows.titleCells, rows: got } as SheetTable, rowCount: rows.rowCount, width: rows.width };
        });
        return t;
      });
      if (first) book.leftOut(book.first);
      return tables;
    });
    // What the stream says about each table is what was handed on.
    assert.deepEqual(
      read.map((t) => [t.table.name, t.rowCount, t.width]),
      read.map((t) => [t.table.name, t.table.rows.length, widthOf(t.table)]),
    );
    return { result: { tables: read.map((t) => norm(t.table)), msgs }, resets, batches };
  } catch (err) {
    return { result: { error: errorOf(err), msgs }, resets, batches };
  }
}

function errorOf(err: unknown) {
  const e = err as { code?: string; params?: unknown; message?: string };
  return { code: e.code, params: e.params, message: e.code ? undefined : e.message };
}

/** Asserts that every way of reading `file` streams exactly the table path's result; the most resets seen. */
function assertSame(file: InputFile, label: string, maxCells?: number): number {
  let resets = 0;
  for (const hasHeader of [true, false]) {
    for (const sheets of ['first', 'all'] as const) {
      const o: ReadOptions = { hasHeader, sheets, detectTypes: true, maxCells };
      const s = viaStream(file, o);
      assert.deepEqual(s.result, viaTable(file, o), `${label} (has-header ${hasHeader}, ${sheets})`);
      resets = Math.max(resets, s.resets);
    }
    const o: ReadOptions = { hasHeader, sheets: 'first', detectTypes: true, maxCells };
    assert.deepEqual(viaStream(file, o, true).result, viaTable(file, o, true), `${label} (first table, has-header ${hasHeader})`);
  }
  return resets;
}

const N = GATHER_ROWS + 500;
const num = (ref: string, v: number | string, s?: number) => `<c r="${ref}"${s === undefined ? '' : ` s="${s}"`}><v>${v}</v></c>`;
const str = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const cols = (letters: string, r: number) => [...letters].map((l, i) => (i % 2 ? num(`${l}${r}`, r * 10 + i) : str(`${l}${r}`, `t${r}-${l}`))).join('');

/** A one-sheet package of rows `from`..`to` over the column letters, with extra rows spliced in by number. */
function sheetOf(from: number, to: number, letters: string, extra: Record<number, string> = {}, spec: Partial<PackageSpec> = {}): Uint8Array {
  const rows: string[] = [];
  for (let r = from; r <= to; r++) rows.push(row(r, cols(letters, r) + (extra[r] ?? '')));
  return xlsxPackage({ sheets: [{ name: 'Datos', xml: rows.join('') }], ...spec });
}

const xlsx = (bytes: Uint8Array) => inputFile('libro.xlsx', bytes);

test('row stream = table: a table that starts away from A1, with and without titles', () => {
  assert.equal(assertSame(xlsx(sheetOf(3, N + 2, 'CDE')), 'left offset'), 0);
});

test('row stream = table: a row wider than the first ones, after the columns were decided, starts again', () => {
  const wide = sheetOf(1, N, 'ABC', { [GATHER_ROWS + 200]: str(`F${GATHER_ROWS + 200}`, 'lejos') });
  assert.equal(assertSame(xlsx(wide), 'wider later'), 1);
  // Within the rows the columns are decided from, a wider row is no restart.
  assert.equal(assertSame(xlsx(sheetOf(1, N, 'ABC', { 500: str('H500', 'lejos') })), 'wider early'), 0);
});

test('row stream = table: a cell left of the first column, after the columns were decided, starts again', () => {
  const left = sheetOf(1, N, 'BCD', { [GATHER_ROWS + 300]: num(`A${GATHER_ROWS + 300}`, 7) });
  assert.equal(assertSame(xlsx(left), 'left later'), 1);
});

test('row stream = table: rows out of order start again; a far cell past the extent limit is the same error', () => {
  const rows: string[] = [];
  for (let r = 1; r <= N; r++) if (r !== GATHER_ROWS + 100) rows.push(row(r, cols('AB', r)));
  rows.push(row(GATHER_ROWS + 100, cols('AB', GATHER_ROWS + 100)));
  assert.equal(assertSame(xlsx(xlsxPackage({ sheets: [{ name: 'Datos', xml: rows.join('') }] })), 'rows out of order'), 1);
  // 1,048,576 rows × 2 columns is past 4 × 20,000 cells: too_complex naming the extent, as the table path says.
  const far = xlsx(sheetOf(1, N, 'AB', { [N]: num('B1048576', 1) }));
  assert.equal(assertSame(far, 'far cell', 20_000), 1);
  assert.equal(viaStream(far, { hasHeader: true, sheets: 'first', detectTypes: true, maxCells: 20_000 }).result.error?.code, 'too_complex');
  // Two cells far apart among the first rows: refused before a row is padded.
  const corners = xlsx(xlsxPackage({ sheets: [{ name: 'Datos', xml: row(1, num('A1', 1)) + row(1_048_576, num('XFD1048576', 2)) }] }));
  assert.equal(assertSame(corners, 'two far cells'), 1);
  assert.equal(viaStream(corners, { hasHeader: true, sheets: 'first', detectTypes: true }).result.error?.code, 'too_complex');
  // And the cell limit, passed halfway through the rows.
  const limited = viaStream(xlsx(sheetOf(1, N, 'AB')), { hasHeader: true, sheets: 'first', detectTypes: true, maxCells: 2_500 });
  assert.deepEqual(limited.result, viaTable(xlsx(sheetOf(1, N, 'AB')), { hasHeader: true, sheets: 'first', detectTypes: true, maxCells: 2_500 }));
  assert.equal(limited.result.error?.code, 'too_complex');
});

test('row stream = table: trailing empty rows and columns are not part of it; empty rows inside are kept', () => {
  const rows: string[] = [row(5, cols('BC', 5))];
  // Empty rows inside, before and after the columns are decided, and long runs of them.
  for (let r = 9; r <= 600; r++) rows.push(row(r, cols('BCD', r)));
  for (let r = 900; r <= N + 400; r += 2) rows.push(row(r, cols('BCD', r) + str(`Z${r}`, '')));
  for (let r = 5_000; r <= 5_100; r++) rows.push(row(r, cols('C', r)));
  // Trailing: rows without cells, cells without value (empty text, a value-less number), far to the right too.
  rows.push(row(5_101, ''), row(5_102, str('XFD5102', '') + '<c r="E5102"/>'), row(6_000, '<c r="A6000" t="b"/>'));
  const bytes = xlsxPackage({ sheets: [{ name: 'Datos', xml: rows.join('') }] });
  assert.equal(assertSame(xlsx(bytes), 'trailing and inner empties'), 0);
  const t = viaStream(xlsx(bytes), { hasHeader: false, sheets: 'first', detectTypes: true }).result.tables![0];
  assert.equal(t.rows.length, 5_100 - 5 + 1);
  assert.equal(widthOf(t), 3);
  assert.deepEqual(t.rows[1], [null, null, null]);
});

test('row stream = table: error cells and formulas without a value give the same warnings, once', () => {
  const extra = {
    4: `<c r="D4" t="e"><v>#N/A</v></c>`,
    [GATHER_ROWS + 50]: `<c r="A${GATHER_ROWS + 50}" t="e"><v>#DIV/0!</v></c>`,
    [GATHER_ROWS + 60]: `<c r="D${GATHER_ROWS + 60}"><f>SUM(A1)</f></c>`,
  };
  const file = xlsx(sheetOf(1, N, 'ABCD', extra));
  assert.equal(assertSame(file, 'errors'), 0);
  const { msgs } = viaStream(file, { hasHeader: true, sheets: 'first', detectTypes: true }).result;
  assert.deepEqual(
    msgs.map((m) => [m[1], m[2]?.count, m[2]?.first]),
    [
      ['error_cells', 2, 'D4 #N/A'],
      ['formulas_without_value', 1, undefined],
    ],
  );
});

test('row stream = table: dates in the 1904 system, by built-in and custom formats', () => {
  const styles = { numFmts: { 164: 'dd/mm/yyyy hh:mm' }, cellXfs: [0, 14, 164, 46] };
  const dates = (r: number) => num(`E${r}`, 30_000 + (r % 400), 1) + num(`F${r}`, 30_000.25 + r, 2) + num(`G${r}`, 1.5, 3);
  const extra: Record<number, string> = {};
  for (let r = 1; r <= N; r++) extra[r] = dates(r);
  assert.equal(assertSame(xlsx(sheetOf(1, N, 'ABCD', extra, { styles, date1904: true })), '1904 dates'), 0);
});

test('row stream = table: a cell type the fast path hands to SheetJS halfway: read again by SheetJS, messages once', () => {
  const extra = { 2: `<c r="C2" t="e"><v>#REF!</v></c>`, [GATHER_ROWS + 400]: `<c r="C${GATHER_ROWS + 400}" t="q"><v>1</v></c>` };
  const file = xlsx(sheetOf(1, N, 'AB', extra));
  assert.equal(assertSame(file, 'handed back'), 1);
  const { msgs } = viaStream(file, { hasHeader: true, sheets: 'first', detectTypes: true }).result;
  assert.equal(msgs.filter((m) => m[1] === 'error_cells').length, 1);
});

test('row stream = table: short sheets, empty ones, hidden first sheets, several sheets, in small batches', () => {
  const sheets = [
    { name: 'Oculta', xml: row(1, cols('AB', 1)), state: 'hidden' as const },
    { name: 'Vacía', xml: row(3, '<c r="B3"/>') },
    { name: 'Títulos', xml: row(2, cols('BCD', 2)) },
    { name: 'Una', xml: row(7, num('C7', 1)) },
    { name: 'Larga', xml: Array.from({ length: 3 * N }, (_, i) => row(i + 1, cols('AB', i + 1))).join('') },
  ];
  assert.equal(assertSame(xlsx(xlsxPackage({ sheets })), 'several sheets'), 0);
  const s = viaStream(xlsx(xlsxPackage({ sheets: sheets.slice(4) })), { hasHeader: true, sheets: 'first', detectTypes: true });
  assert.ok(s.batches > 1, 'a long sheet comes in several batches');
});

test('row stream = table: every committed xlsx and xls fixture, and a CSV', () => {
  for (const name of ['ventas.xlsx', 'ventas-2.xlsx', 'dos-hojas.xlsx', 'ventas.xls', 'ventas.csv', 'semicolon.csv']) assertSame(fixture(name), name);
  for (const name of readdirSync(new URL('../fixtures/xls/', import.meta.url)).filter((n) => n.endsWith('.xls'))) assertSame(fixture(`xls/${name}`), name);
});

/** excel-to-csv as it was written before rows were streamed: from the whole tables. */
function csvFromTables(file: InputFile, o: { all: boolean; hasHeader: boolean; titles: boolean }) {
  const { tables } = readTables(file, { hasHeader: o.hasHeader, sheets: o.all ? 'all' : 'first', detectTypes: true });
  return tables.map((t) => writeCsv({ name: t.name, header: null, rows: o.titles && t.header && t.header.length > 0 ? [titleRow(t)!, ...t.rows] : t.rows }));
}

const STREAMED_FILES = (): [string, InputFile][] => [
  ['left offset', xlsx(sheetOf(3, N + 2, 'CDE'))],
  ['wider later', xlsx(sheetOf(1, N, 'ABC', { [GATHER_ROWS + 200]: str(`F${GATHER_ROWS + 200}`, 'lejos') }))],
  ['left later', xlsx(sheetOf(1, N, 'BCD', { [GATHER_ROWS + 300]: num(`A${GATHER_ROWS + 300}`, 7) }))],
  ['handed back', xlsx(sheetOf(1, N, 'AB', { [GATHER_ROWS + 400]: `<c r="C${GATHER_ROWS + 400}" t="d"><v>2024-03-01</v></c>` }))],
  ['ventas.xlsx', fixture('ventas.xlsx')],
  ['dos-hojas.xlsx', fixture('dos-hojas.xlsx')],
  ['ventas.xls', fixture('ventas.xls')],
];

test('excel-to-csv: the streamed CSV is byte for byte the one written from the whole table, every option', async () => {
  for (const [label, file] of STREAMED_FILES()) {
    for (const all of [false, true]) {
      for (const [hasHeader, titles] of [[true, true], [true, false], [false, true]]) {
        const out = await runTool(excelToCsv, [file], { 'all-sheets': all, 'has-header': hasHeader, 'include-header': titles });
        const want = csvFromTables(file, { all, hasHeader, titles });
        assert.deepEqual(out.files.map((f) => Buffer.from(f.bytes)), want.map((b) => Buffer.from(b)), `${label} (all-sheets ${all}, has-header ${hasHeader}, include-header ${titles})`);
      }
    }
  }
});

test('split-rows: streamed parts are byte for byte those written from the whole table; the preview is the first part', async () => {
  const size = 400;
  for (const [label, file] of STREAMED_FILES()) {
    for (const format of ['csv', 'xlsx'] as const) {
      for (const repeat of [true, false]) {
        const out = await runTool(splitRows, [file], { 'rows-per-file': size, format, 'repeat-header': repeat });
        const table = readFirstTable(file, { hasHeader: true, detectTypes: true });
        const count = Math.max(1, Math.ceil(table.rows.length / size));
        const names = Array.from({ length: count }, (_, i) => `parte-${String(i + 1).padStart(3, '0')}`);
        const want = names.map((name, i) => {
          const p: SheetTable = { name, header: i === 0 || repeat ? table.header : null, titleCells: table.titleCells, rows: table.rows.slice(i * size, (i + 1) * size) };
          return Buffer.from(format === 'csv' ? writeCsv(p) : writeXlsx([p], { name: () => 'Hoja' } as never));
        });
        assert.deepEqual(out.files.map((f) => f.name), names.map((n) => `${n}.${format}`), label);
        assert.deepEqual(out.files.map((f) => Buffer.from(f.bytes)), want, `${label} (${format}, repeat-header ${repeat})`);
        assert.equal(out.preview?.totalRows, Math.min(size, table.rows.length));
        assert.deepEqual(out.preview?.columns, table.header);
      }
    }
  }
});

test('split-rows: more than 999 xlsx parts from a workbook are named and titled with four digits, warnings given once', async () => {
  const file = xlsx(sheetOf(1, 1_002, 'AB', { 3: `<c r="C3" t="e"><v>#N/A</v></c>` }));
  const out = await runTool(splitRows, [file], { 'rows-per-file': 1, format: 'xlsx' });
  assert.equal(out.files.length, 1_001);
  assert.deepEqual([out.files[0].name, out.files[1_000].name], ['parte-0001.xlsx', 'parte-1001.xlsx']);
  // Each part's sheet is named after the part: the first read guessed three digits, the second knew four.
  const { tables } = readTables(inputFile('p.xlsx', out.files[999].bytes), { hasHeader: true, sheets: 'all', detectTypes: true });
  assert.deepEqual(tables.map((t) => [t.name, t.rows]), [['parte-1000', [['t1001-A', 10011]]]]);
  assert.equal(out.messages.length, 1);
  assert.deepEqual(out.preview?.columns, ['t1-A', '11', '']);
});

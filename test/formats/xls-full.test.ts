// The .xls reader's full read (openWorkbook's `cells: 'full'`, for the tools that copy workbooks) against SheetJS's:
// every cell (value, number format, error), every merged range, column width, sheet name and visibility of each
// file must be the same, except that a sheet with formulas goes to SheetJS (which writes their text). Files: the
// committed .xls fixtures (LibreOffice, Gnumeric, SheetJS, hand-built real-world ones) and workbooks generated here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { openWorkbook } from '../../tools/formats/open.ts';
import { CellError, FullCell } from '../../tools/formats/model.ts';
import { XlsReader } from '../../tools/formats/xls/read.ts';
import { soleRead } from '../../tools/formats/xlsx/read.ts';
import { NeedsFallback } from '../../tools/formats/errors.ts';
import { contextOf } from '../helpers/read-tables.ts';
import { inputFile } from '../helpers/run-tool.ts';
import { biff8, cell, record, RT } from '../helpers/biff8.ts';

const dir = (d: string) => new URL(`../fixtures/${d}`, import.meta.url);
const files = (): [string, Uint8Array][] => [
  ...readdirSync(dir('xls/')).filter((n) => n.endsWith('.xls')).map((n): [string, Uint8Array] => [`xls/${n}`, new Uint8Array(readFileSync(new URL(n, dir('xls/'))))]),
  ...readdirSync(dir('real-world/')).filter((n) => n.endsWith('.xls') && n !== 'xls-password.xls').map((n): [string, Uint8Array] => [`real-world/${n}`, new Uint8Array(readFileSync(new URL(n, dir('real-world/'))))]),
  ['ventas.xls', new Uint8Array(readFileSync(dir('ventas.xls')))],
];

/** A cell as the test compares it: FullCell and CellError spelled out, Dates as ISO text. */
function plainCell(v: unknown): unknown {
  if (v instanceof FullCell) return { value: plainCell(v.value), format: v.format, formula: v.formula };
  if (v instanceof CellError) return { error: v.text };
  if (v instanceof Date) return { date: v.toISOString() };
  return v;
}

function fullRead(name: string, bytes: Uint8Array, reader?: 'sheetjs') {
  const messages: unknown[] = [];
  const ctx = { ...contextOf(), message: (...m: unknown[]) => void messages.push(m) };
  const book = openWorkbook(inputFile(name, bytes), ctx, { hasHeader: false, cells: 'full', reader });
  const sheets = book.sheets.map((s) => {
    const t = s.table();
    return { name: s.name, visibility: s.visibility, layout: t.layout, rows: t.rows().map((r) => r.map(plainCell)) };
  });
  return { sheets, messages };
}

/** Whether the fast reader reads every sheet of the file itself in a full read (no formulas, BIFF8, …). */
function fastReadsItAll(bytes: Uint8Array): boolean {
  try {
    const reader = new XlsReader(bytes, true);
    const read = soleRead({ maxCells: 1e7, file: 'x', report: () => {} });
    reader.sheets.forEach((_, i) => reader.table(i, read));
    return true;
  } catch (err) {
    if (err instanceof NeedsFallback) return false;
    throw err;
  }
}

test('xls full read = SheetJS full read: every cell, format, error, merge, width and sheet of every fixture', () => {
  let fast = 0;
  for (const [name, bytes] of files()) {
    if (fastReadsItAll(bytes)) fast++;
    assert.deepEqual(fullRead('libro.xls', bytes), fullRead('libro.xls', bytes, 'sheetjs'), name);
  }
  assert.ok(fast >= 5, `the fast reader read ${fast} of the files itself`);
});

test('xls full read: number formats, error cells, merged ranges and column widths of a generated workbook', () => {
  const MERGEDCELLS = 0x00e5;
  const COLINFO = 0x007d;
  const u16 = (n: number) => [n & 0xff, n >> 8];
  const bytes = biff8({
    formats: [[164, '0.000'], [165, 'dd/mm/yyyy hh:mm']],
    xfFormats: [164, 165, 10, 49],
    sheets: [
      {
        name: 'Datos',
        records: [
          record(COLINFO, [...u16(0), ...u16(0), ...u16(20 * 256), ...u16(15), ...u16(0), 0, 0]),
          record(COLINFO, [...u16(2), ...u16(3), ...u16(9 * 256 + 128), ...u16(15), ...u16(1), 0, 0]),
          cell.label(0, 0, 'Título', 15),
          cell.number(1, 0, 3.14159, 16),
          cell.number(1, 1, 45322.5, 17),
          cell.rk(1, 2, 0.25, 18),
          cell.rk(1, 3, 12, 19),
          cell.rk(1, 4, 7),
          cell.error(2, 0, 0x07),
          cell.error(2, 1, 0x2a),
          cell.bool(2, 2, true),
          record(MERGEDCELLS, [...u16(2), ...u16(0), ...u16(0), ...u16(0), ...u16(3), ...u16(4), ...u16(5), ...u16(1), ...u16(2)]),
        ],
      },
      { name: 'Oculta', hidden: true, records: [cell.rk(0, 0, 1)] },
    ],
  });
  assert.ok(fastReadsItAll(bytes));
  const got = fullRead('libro.xls', bytes);
  assert.deepEqual(got, fullRead('libro.xls', bytes, 'sheetjs'));
  const [datos, oculta] = got.sheets;
  assert.deepEqual(datos.rows[1], [
    { value: 3.14159, format: '0.000', formula: null },
    { value: { date: '2024-01-31T12:00:00.000Z' }, format: 'dd/mm/yyyy hh:mm', formula: null },
    { value: 0.25, format: '0.00%', formula: null },
    { value: 12, format: '@', formula: null },
    7,
  ]);
  assert.deepEqual(datos.rows[2].slice(0, 3), [{ error: '#DIV/0!' }, { error: '#N/A' }, true]);
  assert.deepEqual(datos.layout?.merges, [
    { top: 0, bottom: 0, left: 0, right: 3 },
    { top: 4, bottom: 5, left: 1, right: 2 },
  ]);
  assert.deepEqual(datos.layout?.widths, [20, null, 9.5, 9.5]);
  assert.equal(oculta.visibility, 'hidden');
  // Values alone, an error is its text and counted in a warning; a full read keeps it an error and warns not.
  assert.equal(got.messages.length, 0);
});

test('xls full read: a sheet with formulas is read by SheetJS, which writes their text', () => {
  const bytes = biff8({ sheets: [{ name: 'H', records: [cell.rk(0, 0, 2), cell.formula(0, 1, 2)] }] });
  assert.equal(fastReadsItAll(bytes), false);
  const got = fullRead('libro.xls', bytes);
  assert.deepEqual(got.sheets[0].rows[0], [2, { value: 2, format: null, formula: '1' }]);
});

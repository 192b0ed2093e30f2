// The .xls fast path (tools/formats/xls/) against SheetJS: the same file read both ways gives the same tables
// (names, titles, typed title cells, rows with their types) and the same messages. The fast path is made to
// prove it read each file itself (readXls throws NeedsFallback otherwise); SheetJS reads the same bytes when
// openWorkbook is asked for it (`reader: 'sheetjs'`), after the container guards.
//
// Files come from LibreOffice and Gnumeric (test/fixtures/xls/, see make-xls-fixtures.ts), from SheetJS's
// BIFF8 writer, and from test/helpers/biff8.ts, which builds records one by one for what no program lets a
// test choose (CONTINUE cuts, XF formats, RK forms, lies).
//
// Exceptions to the identity: text in LABEL, STRING and FORMAT records of a workbook whose CODEPAGE is not
// 1200, which SheetJS decodes through that code page and this reader as the UTF-16 BIFF8 stores (its own test
// below). A CRLF inside a cell is kept exactly by both readers of .xls (the .xlsx readers turn it into LF).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import * as XLSX from 'xlsx';
import type { Cell } from '../../tools/formats/model.ts';
import { readFirstTable, readTables } from '../helpers/read-tables.ts';
import { readXls } from '../../tools/formats/xls/read.ts';
import { FormatError, NeedsFallback } from '../../tools/formats/errors.ts';
import { biff8, cell, compoundFile, record, RT, sstRecords, workbookStream, type Biff8Spec } from '../helpers/biff8.ts';
import { d } from '../helpers/read-xlsx.ts';
import { assertSameBothWays, readAll } from '../helpers/both-readers.ts';
import { fixture, inputFile } from '../helpers/run-tool.ts';

/** Asserts that the fast path reads `bytes` itself and gives exactly what SheetJS gives; returns the tables. */
function sameBothWays(bytes: Uint8Array, label: string) {
  assertSameBothWays(() => readXls(bytes, { sheets: 'all', maxCells: 1e7, file: 'x', report: () => {} }), bytes, label, 'libro.xls');
  return readAll('libro.xls', bytes, false).all;
}

/** The reason the fast path gives a file to SheetJS, or undefined when it reads it. */
function fallbackReason(bytes: Uint8Array): string | undefined {
  try {
    readXls(bytes, { sheets: 'all', maxCells: 1e7, file: 'x', report: () => {} });
    return undefined;
  } catch (err) {
    if (err instanceof NeedsFallback) return err.message;
    throw err;
  }
}

const rowsOf = (bytes: Uint8Array, sheet = 0) => readTables(inputFile('libro.xls', bytes), { hasHeader: false, sheets: 'all', detectTypes: true }).tables[sheet].rows;
const sheet = (records: Uint8Array[], extra: Partial<Biff8Spec> = {}) => biff8({ sheets: [{ name: 'Hoja', records }], ...extra });

test('xls fast path = SheetJS: every committed .xls (SheetJS, LibreOffice and Gnumeric writers)', () => {
  const names = ['ventas.xls', ...readdirSync(new URL('../fixtures/xls/', import.meta.url)).filter((n) => n.endsWith('.xls')).map((n) => `xls/${n}`)];
  assert.ok(names.length >= 7);
  for (const name of names) sameBothWays(fixture(name).bytes, name);
});

test('xls fast path: what LibreOffice and Gnumeric wrote reads as it was typed', () => {
  for (const writer of ['libreoffice', 'gnumeric']) {
    const tipos = readAll('libro.xls', fixture(`xls/tipos-${writer}.xls`).bytes, true);
    // The hidden first sheet is not the one table (LibreOffice does not keep exceljs's hidden state: there it
    // is the first visible one); all sheets still include it.
    assert.equal(tipos.first.name, writer === 'gnumeric' ? 'Datos' : 'Oculta', writer);
    assert.deepEqual(tipos.all.sheetNames, ['Oculta', 'Datos', 'Tercera'], writer);
    const t = tipos.all.tables[1];
    assert.equal(t.header?.length, 256, `${writer}: columns up to IV`);
    assert.equal(t.header?.[27], 'Columna AB');
    const col = (i: number) => t.rows.map((r) => r[i]);
    assert.deepEqual(col(0), ['Muñoz Peña', '€uro ł Ελληνικά 東京 한국어', 'línea 1\nlínea 2', 'a\nb', '00123', null, 'tras vacía', 'grande', 'diminuto', 'enorme', 'decimal', 'dos decimales'], writer);
    assert.deepEqual(col(1), new Array(12).fill(null), `${writer}: the empty column B stays`);
    assert.deepEqual(col(2), [1, -7, 0.1, 536870911, 536870912, null, -1234567.891, 123456789012345, 1e-300, -1e300, 12345.678, 1.25], writer);
    // Built-in formats 14–22 and custom ones are dates (times of day on 1899-12-30); [h]:mm:ss is a number.
    assert.deepEqual(col(3).slice(0, 5), [d(2024, 1, 15), d(2024, 2, 29, 13, 45), d(1900, 1, 2), d(9999, 12, 31), d(1900, 1, 1)], writer);
    assert.equal(typeof col(3)[11], 'number', `${writer}: a duration is a number`);
    assert.deepEqual(col(4).slice(0, 2), [true, false]);
    assert.deepEqual([t.rows[0][6], t.rows[1][6], t.rows[2][6]], [0.25, 1234.5, d(1899, 12, 30, 18)], writer);
    assert.equal(t.rows[11][255], 'última');
    assert.deepEqual(tipos.msgs.find((m) => m.key === 'error_cells')?.params, { name: '<file>', sheet: 'Datos', count: 4, first: 'F5 #DIV/0!' }, writer);
    const f1904 = readAll('libro.xls', fixture(`xls/fechas-1904-${writer}.xls`).bytes, true).first;
    assert.deepEqual(f1904.rows.map((r) => r[0]), [d(2024, 1, 15), d(1904, 1, 1), d(1999, 12, 31, 18, 30)], `${writer}: 1904 dates`);
    assert.deepEqual(f1904.rows.map((r) => r[1]).slice(0, 2), [d(1899, 12, 30, 12), d(1899, 12, 30, 6)], `${writer}: 1904 times of day`);
    const textos = readAll('libro.xls', fixture(`xls/textos-${writer}.xls`).bytes, true).first;
    assert.equal(textos.rows.length, 153);
    assert.equal(textos.rows[150][1], 'x'.repeat(9000));
    assert.equal(textos.rows[151][1], 'Ω'.repeat(4500));
    assert.equal(textos.rows[152][1], `${'a'.repeat(3000)}${'ł'.repeat(3000)}`);
    assert.equal(textos.rows[1][1], `ряд 2 ${'łódź 東京 '.repeat(2)}`);
  }
});

test('xls fast path = SheetJS: workbooks written by SheetJS, with and without shared strings, 1900 and 1904', () => {
  for (const date1904 of [false, true]) {
    const base = date1904 ? 24107 : 25569;
    const ws: XLSX.WorkSheet = {
      '!ref': 'A1:H5',
      A1: { t: 's', v: 'texto' }, B1: { t: 's', v: 'número' }, C1: { t: 's', v: 'fecha' }, D1: { t: 's', v: 'lógico' }, H1: { t: 's', v: 'error' },
      A2: { t: 's', v: 'ñ € ł Ελλάδα 中文' }, B2: { t: 'n', v: 1 }, C2: { t: 'n', v: base + 19737, z: 'yyyy-mm-dd' }, D2: { t: 'b', v: true }, H2: { t: 'e', v: 0x2a },
      A3: { t: 's', v: 'x\r\ny' }, B3: { t: 'n', v: -2.5 }, C3: { t: 'n', v: base + 19737.75, z: 'm/d/yy h:mm' }, D3: { t: 'b', v: false }, H3: { t: 'e', v: 0x07 },
      A5: { t: 's', v: '' }, B5: { t: 'n', v: 1e21 }, C5: { t: 'n', v: 0.5, z: 'h:mm:ss' },
    };
    const hidden: XLSX.WorkSheet = { '!ref': 'A1', A1: { t: 's', v: 'oculta' } };
    const wb: XLSX.WorkBook = { SheetNames: ['Oculta', 'Datos'], Sheets: { Oculta: hidden, Datos: ws }, Workbook: { Sheets: [{ Hidden: 1 }, { Hidden: 0 }], WBProps: { date1904 } } };
    for (const bookSST of [false, true]) {
      const bytes = new Uint8Array(XLSX.write(wb, { type: 'array', bookType: 'biff8', bookSST }) as ArrayBuffer);
      const tables = sameBothWays(bytes, `SheetJS 1904=${date1904} sst=${bookSST}`).tables;
      assert.deepEqual(tables[1].rows[2][0], 'x\r\ny', 'a CRLF inside a cell stays as it is');
      assert.deepEqual(tables[1].rows[1].slice(0, 3), ['ñ € ł Ελλάδα 中文', 1, d(2024, 1, 15)]);
    }
  }
});

test('xls fast path: LABEL and STRING text is Unicode whatever the CODEPAGE record says (where SheetJS differs)', () => {
  // The one deliberate difference from SheetJS: it decodes the characters of LABEL, STRING and FORMAT records
  // through the workbook's code page when that is not 1200, turning "Ελλάδα €" into "•»»¬´± ¬". BIFF8 stores
  // them as UTF-16 (or its compressed form); the code page is for BIFF5 and older. Excel always writes 1200.
  for (const codepage of [1200, 1252, 1251]) {
    const spec: Biff8Spec = {
      codepage,
      sst: sstRecords(['Ελλάδα € sst']),
      sheets: [{ name: 'Hoja', records: [cell.label(0, 0, 'Ελλάδα € label'), cell.label(0, 1, 'ä\u0080x'), cell.sst(1, 0, 0), cell.formula(2, 0, { type: 0 }), cell.string('łódź €')] }],
    };
    const bytes = biff8(spec);
    assert.deepEqual(rowsOf(bytes), [['Ελλάδα € label', 'ä\u0080x'], ['Ελλάδα € sst', null], ['łódź €', null]], `code page ${codepage}`);
    if (codepage === 1200) sameBothWays(bytes, 'code page 1200');
  }
});

test('xls fast path = SheetJS: a shared string table cut by CONTINUE records, strings straddling in both forms', () => {
  const words = Array.from({ length: 3000 }, (_, i) => (i % 3 === 0 ? `palabra ${i} ñandú` : i % 3 === 1 ? `слово ${i} łódź` : `単語 ${i}`));
  const long = ['x'.repeat(9000), 'Ω'.repeat(5000), { text: 'latín '.repeat(2000), wide: true }];
  const strings = [...words, ...long, { text: 'rico', runs: 3000 }, { text: 'fonético 東京', ext: 9000 }, { text: 'rico y fonético', runs: 5, ext: 40 }, 'fin'];
  for (const limit of [8224, 700, 37]) {
    const sst = sstRecords(strings, { limit });
    assert.ok(sst.length > 3, `the table is cut into CONTINUE records (${limit})`);
    const records = strings.map((_, i) => cell.sst(i, i % 2, i));
    const rows = sameBothWays(sheet(records, { sst }), `SST cut at ${limit}`).tables[0].rows;
    assert.deepEqual(
      rows.map((r) => r[0] ?? r[1]),
      strings.map((s) => (typeof s === 'string' ? s : s.text)),
    );
  }
});

test('xls fast path = SheetJS: a string that changes form (compressed, then UTF-16) at a CONTINUE', () => {
  // "abc" compressed in the SST record, then "dé€" as UTF-16 after the CONTINUE's flags byte.
  const sst = [
    record(RT.SST, [1, 0, 0, 0, 2, 0, 0, 0, 6, 0, 0, 0x61, 0x62, 0x63]),
    record(RT.CONTINUE, [1, ...Buffer.from('dé€', 'utf16le'), 2, 0, 1, ...Buffer.from('ñ\u0142', 'utf16le')]),
  ];
  const rows = sameBothWays(sheet([cell.sst(0, 0, 0), cell.sst(1, 0, 1)], { sst }), 'form change').tables[0].rows;
  assert.deepEqual(rows, [['abcdé€'], ['ñł']]);
});

test('xls fast path = SheetJS: RK, MULRK and NUMBER; built-in date formats 14–22, custom and redefined formats', () => {
  const values = [0, 1, -1, 536870911, -536870912, 0.01, -12.34, 1e6 + 0.5, 2 ** 40, -0.5, 0.25, 1.5];
  const builtins = [14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47, 0, 1, 2, 9, 10, 164, 165, 166, 167];
  const spec: Biff8Spec = {
    sheets: [],
    formats: [
      [164, 'yyyy-mm-dd'],
      [165, '[h]:mm'],
      [166, '"Fecha:" 0.00'],
      [167, 'dd/mm/yyyy hh:mm:ss'],
      [14, 'DD.MM.YYYY'],
      [2, 'yyyy'],
    ],
    xfFormats: builtins,
  };
  const recs: Uint8Array[] = [cell.mulrk(0, 0, values)];
  values.forEach((v, i) => recs.push(cell.rk(1, i, v), cell.number(2, i, v * 3.7), cell.number(3, i, v * 1e15)));
  builtins.forEach((_, i) => recs.push(cell.rk(4 + i, 0, 45306.25, 16 + i), cell.number(4 + i, 1, 45306.75, 16 + i), cell.mulrk(4 + i, 2, [45306, 0.5, -3], 16 + i)));
  recs.push(cell.number(40, 0, 2_958_466, 16), cell.number(41, 0, 60, 16), cell.number(42, 0, 0.999999, 20));
  for (const date1904 of [false, true]) {
    const rows = sameBothWays(biff8({ ...spec, date1904, sheets: [{ name: 'Números', records: recs }] }), `numbers 1904=${date1904}`).tables[0].rows;
    assert.deepEqual(rows[0].slice(0, values.length), values);
    assert.deepEqual(rows[1].slice(0, values.length), values);
    if (!date1904) assert.deepEqual(rows[4].slice(0, 3), [d(2024, 1, 15, 6), d(2024, 1, 15, 18), d(2024, 1, 15)]);
  }
});

test('xls fast path = SheetJS: formulas with number, text, boolean, error and empty cached results; LABEL, RSTRING, BOOLERR', () => {
  const recs = [
    cell.formula(0, 0, 42.5),
    cell.formula(0, 1, { type: 0 }),
    record(RT.SHRFMLA, [0, 0, 0, 0, 1, 1, 0, 1, 3, 0, 0x1e, 1, 0]),
    cell.string('texto de fórmula €'),
    cell.formula(0, 2, { type: 1, v: 1 }),
    cell.formula(0, 3, { type: 1, v: 0 }),
    cell.formula(0, 4, { type: 2, v: 0x2a }),
    cell.formula(0, 5, { type: 3 }),
    cell.formula(0, 6, { type: 2, v: 0x63 }),
    cell.formula(0, 7, 45306, 16),
    cell.formula(1, 0, { type: 0 }),
    // A formula text longer than a record: the STRING goes on in a CONTINUE.
    ...(() => {
      const s = cell.string('ł'.repeat(5000));
      const cut = 4 + 3 + 2 * 4000;
      const head = s.slice(0, cut);
      head[2] = (cut - 4) & 0xff;
      head[3] = (cut - 4) >> 8;
      return [head, record(RT.CONTINUE, [1, ...s.slice(cut)])];
    })(),
    cell.label(2, 0, 'etiqueta ñ'),
    cell.label(2, 1, 'Ελληνικά 東京'),
    cell.rstring(2, 2, 'rica'),
    cell.label(2, 3, ''),
    cell.bool(3, 0, true),
    cell.bool(3, 1, false),
    ...[0x00, 0x07, 0x0f, 0x17, 0x1d, 0x24, 0x2a, 0x2b, 0x50].map((code, i) => cell.error(4, i, code)),
    cell.blank(5, 0),
    record(RT.MULBLANK, [5, 0, 1, 0, 15, 0, 15, 0, 2, 0]),
  ];
  const { tables } = sameBothWays(biff8({ sheets: [{ name: 'F', records: recs }], xfFormats: [14] }), 'formulas');
  const rows = tables[0].rows as Cell[][];
  assert.deepEqual(rows[0], [42.5, 'texto de fórmula €', true, false, '#N/A', null, '#ERROR', d(2024, 1, 15), null]);
  assert.equal(rows[1][0], 'ł'.repeat(5000));
  assert.deepEqual(rows[2].slice(0, 4), ['etiqueta ñ', 'Ελληνικά 東京', 'rica', null]);
  assert.deepEqual(rows[4], ['#NULL!', '#DIV/0!', '#VALUE!', '#REF!', '#NAME?', '#NUM!', '#N/A', '#GETTING_DATA', '#ERROR']);
});

test('xls fast path = SheetJS: several sheets, hidden first, embedded chart substreams, empty rows and columns, far cells', () => {
  const chart = [record(RT.BOF, [0, 6, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), cell.number(0, 0, 99), record(RT.EOF, [])];
  const spec: Biff8Spec = {
    sst: sstRecords(['a', 'b', 'c']),
    sheets: [
      { name: 'Oculta', hidden: true, records: [cell.sst(0, 0, 0)] },
      { name: 'Datos', records: [cell.sst(3, 2, 1), ...chart, cell.rk(3, 4, 7), cell.rk(9, 2, 8), cell.sst(6, 200, 2)] },
      { name: 'Vacía', records: [] },
      { name: 'Última', records: [cell.rk(0, 0, 1)] },
    ],
  };
  const { tables, sheetNames } = sameBothWays(biff8(spec), 'sheets');
  assert.deepEqual(sheetNames, ['Oculta', 'Datos', 'Vacía', 'Última']);
  assert.equal(readFirstTable(inputFile('l.xls', biff8(spec)), { hasHeader: true, detectTypes: true }).name, 'Datos');
  const t = tables[1].rows;
  assert.equal(t.length, 7);
  assert.equal(t[0].length, 199);
  assert.deepEqual([t[0][0], t[0][2], t[3][198], t[6][0]], ['b', 7, 'c', 8]);
  assert.deepEqual(tables[2].rows, []);
});

test('xls fast path = SheetJS: 65,536 rows, the most BIFF8 holds', () => {
  const strings = Array.from({ length: 500 }, (_, i) => `texto ${i} ñ`);
  const recs: Uint8Array[] = [];
  for (let r = 0; r < 65536; r++) recs.push(cell.mulrk(r, 0, [r, r / 4]), cell.sst(r, 2, r % 500));
  const rows = sameBothWays(sheet(recs, { sst: sstRecords(strings) }), '65,536 rows').tables[0].rows;
  assert.equal(rows.length, 65536);
  assert.deepEqual(rows[65535], [65535, 16383.75, 'texto 35 ñ']);
});

test('xls fast path: a Workbook stream small enough for the mini stream, and one cut in scattered sectors', () => {
  const small = sheet([cell.rk(0, 0, 1)]);
  assert.equal(fallbackReason(small), undefined);
  assert.deepEqual(rowsOf(small), [[1]]);
  // Sectors in reverse order: the stream is put back together, not read as one run.
  const stream = workbookStream({ sheets: [{ name: 'H', records: Array.from({ length: 2000 }, (_, i) => cell.rk(i, 0, i)) }] });
  const bytes = compoundFile(stream);
  const scattered = scatter(bytes);
  assert.deepEqual(rowsOf(scattered), rowsOf(bytes));
  assert.equal(rowsOf(scattered).length, 2000);
});

/** Where the Workbook stream's directory entry is, in a compound file written by SheetJS (first directory sector). */
function workbookEntry(bytes: Uint8Array): number {
  const dir = (new DataView(bytes.buffer, bytes.byteOffset).getUint32(48, true) + 1) * 512;
  for (let at = dir; at < dir + 512; at += 128) if (Buffer.from(bytes.subarray(at, at + 16)).toString('utf16le') === 'Workbook') return at;
  throw new Error('no Workbook entry');
}

/** The same compound file with the sectors of its Workbook stream stored in reverse order. */
function scatter(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes);
  const v = new DataView(out.buffer);
  const size = 512;
  const fatSectors = Array.from({ length: v.getUint32(44, true) }, (_, i) => v.getUint32(76 + 4 * i, true));
  const fatAt = (s: number) => (fatSectors[Math.floor(s / 128)] + 1) * size + (s % 128) * 4;
  const next = (s: number) => v.getUint32(fatAt(s), true);
  const entry = workbookEntry(out);
  const chain: number[] = [];
  for (let s = v.getUint32(entry + 116, true); s !== 0xfffffffe; s = next(s)) chain.push(s);
  const data = chain.map((s) => out.slice((s + 1) * size, (s + 2) * size));
  const reversed = [...chain].reverse();
  reversed.forEach((s, i) => {
    out.set(data[i], (s + 1) * size);
    v.setUint32(fatAt(s), i + 1 < reversed.length ? reversed[i + 1] : 0xfffffffe, true);
  });
  v.setUint32(entry + 116, reversed[0], true);
  return out;
}

test('xls fast path: what it does not read goes to SheetJS (BIFF5, chart sheets), with the same result as before', () => {
  const base: Biff8Spec = { sheets: [{ name: 'H', records: [cell.rk(0, 0, 1)] }] };
  // A BIFF5 workbook keeps its stream in "Book".
  assert.match(fallbackReason(compoundFile(workbookStream(base), 'Book')) ?? '', /Workbook stream/);
  // Encrypted with a password other than Excel's default one: refused by the fast path itself (xls-decrypt.test.ts).
  const filepass = biff8({ ...base, extraGlobals: [record(RT.FILEPASS, [0, 0])] });
  assert.throws(() => fallbackReason(filepass), (err: unknown) => err instanceof FormatError && err.reason === 'password');
  assert.throws(
    () => readTables(inputFile('clave.xls', filepass), { hasHeader: true, sheets: 'all', detectTypes: true }),
    (err: { code: string; detail: { messageKey?: string } }) => err.code === 'invalid_file' && err.detail.messageKey === 'error-details.password',
  );
  const stream = workbookStream({ sheets: [...base.sheets, { name: 'Gráfico', records: [] }] });
  // The second BOUNDSHEET8's type byte: a chart sheet.
  const i = Buffer.from(stream).indexOf(Buffer.from('Gráfico', 'latin1')) - 3;
  stream[i] = 2;
  assert.match(fallbackReason(compoundFile(stream)) ?? '', /chart/);
});

/** The fast path's own verdict: it reads the file, hands it to SheetJS, or refuses it; any other error fails. */
function fastVerdict(bytes: Uint8Array, label: string): 'read' | 'fallback' | 'refused' {
  try {
    readXls(bytes, { sheets: 'all', maxCells: 1e7, file: 'x', report: () => {} });
    return 'read';
  } catch (err) {
    if (err instanceof NeedsFallback) return 'fallback';
    if (err instanceof FormatError) return 'refused';
    assert.fail(`${label}: the fast path failed with ${String(err)}`);
  }
}

/** What read-table does with a hostile file: tables, or a ToolError code; anything else fails the test. */
function outcome(bytes: Uint8Array, maxCells?: number): string {
  try {
    readTables(inputFile('h.xls', bytes), { hasHeader: false, sheets: 'all', detectTypes: true, maxCells });
    return 'ok';
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'invalid_file' || code === 'too_complex') return code;
    throw err;
  }
}

test('xls fast path: hostile records end in invalid_file (or SheetJS decides), never a crash or a hang', () => {
  const sst = sstRecords(['a', 'b']);
  const ok = sheet([cell.sst(0, 0, 1), cell.rk(0, 1, 2)], { sst });
  assert.equal(outcome(ok), 'ok');
  const stream = workbookStream({ sheets: [{ name: 'H', records: [cell.sst(0, 0, 1), cell.mulrk(1, 0, [1, 2, 3])] }], sst });
  const cases: [string, Uint8Array, string][] = [];
  // A record whose length runs past the end of the stream.
  const last = stream.slice();
  const eofAt = last.length - 4;
  last[eofAt] = RT.LABELSST & 0xff;
  last[eofAt + 1] = RT.LABELSST >> 8;
  last[eofAt + 2] = 0xff;
  cases.push(['record past the end', compoundFile(last), 'invalid_file']);
  // The stream cut in the middle of a sheet.
  cases.push(['truncated stream', compoundFile(stream.slice(0, stream.length - 12)), 'invalid_file']);
  // A shared string index past the table (its count said more than it held): SheetJS has its say, and refuses.
  cases.push(['SST index out of the table', sheet([cell.sst(0, 0, 5)], { sst: sstRecords(['a'], { unique: 9 }) }), 'invalid_file']);
  const deferred = new Set(['SST index out of the table']);
  // Counts that lie hugely: nothing is allocated by them.
  cases.push(['SST counts of 2^32 - 1', sheet([cell.sst(0, 0, 1)], { sst: sstRecords(['a', 'b'], { total: 0xffffffff, unique: 0xffffffff }) }), 'ok']);
  // A string longer than its record.
  cases.push(['SST string past its record', sheet([cell.sst(0, 0, 0)], { sst: [record(RT.SST, [1, 0, 0, 0, 1, 0, 0, 0, 0xff, 0xff, 0, 0x61])] }), 'invalid_file']);
  // Empty CONTINUE records inside a string: they hold no flags byte, the next one does (as SheetJS reads them).
  const emptyContinues = [
    record(RT.SST, [1, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0x61, 0x62]),
    record(RT.CONTINUE, []),
    record(RT.CONTINUE, []),
    record(RT.CONTINUE, [0, 0x63, 0x64]),
  ];
  cases.push(['empty CONTINUEs', sheet([cell.sst(0, 0, 0)], { sst: emptyContinues }), 'ok']);
  // A MULRK whose length does not match its columns.
  const mulrk = cell.mulrk(0, 0, [1, 2, 3]);
  mulrk[mulrk.length - 2] = 9;
  cases.push(['MULRK columns', sheet([mulrk]), 'invalid_file']);
  cases.push(['MULRK length', sheet([record(RT.MULRK, [0, 0, 0, 0, 15, 0, 1, 2, 3])]), 'invalid_file']);
  // A MULRK with a byte left over after its last column: its cells are all there (SheetJS refuses it).
  const leftover = cell.mulrk(0, 0, [1, 2, 3]);
  cases.push(['MULRK with a byte left over', sheet([record(RT.MULRK, [...leftover.subarray(4), 0x09])]), 'ok']);
  assert.deepEqual(rowsOf(sheet([record(RT.MULRK, [...leftover.subarray(4), 0x09])])), [[1, 2, 3]]);
  // A STRING with no FORMULA before it: the text of no cell, skipped.
  cases.push(['lone STRING', sheet([cell.string('x')]), 'ok']);
  // BOFs nested without end: the sheet has no EOF of its own (SheetJS decides).
  cases.push(['nested BOFs', sheet(Array.from({ length: 5000 }, () => record(RT.BOF, [0, 6, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))), 'any']);
  for (const [label, bytes, expected] of cases) {
    const verdict = fastVerdict(bytes, label);
    const got = outcome(bytes);
    if (expected !== 'any') assert.equal(got, expected, label);
    if (got === 'invalid_file') assert.equal(verdict, deferred.has(label) ? 'fallback' : 'refused', `${label}: refused by the fast path itself`);
  }
});

test('xls fast path: a compound file that lies (FAT loops, sectors outside the file, sizes past it) never hangs', () => {
  const bytes = sheet(Array.from({ length: 3000 }, (_, i) => cell.rk(i, 0, i)));
  const v = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
  const mutations: [string, (b: Uint8Array) => void][] = [
    ['FAT chain to itself', (b) => v(b).setUint32(512 + 4 * 3, 3, true)],
    ['FAT sector outside the file', (b) => v(b).setUint32(76, 0x00ffffff, true)],
    ['FAT count past the file', (b) => v(b).setUint32(44, 0x7fffffff, true)],
    ['directory loop', (b) => v(b).setUint32(512 + 4 * v(b).getUint32(48, true), v(b).getUint32(48, true), true)],
    ['stream size past the file', (b) => v(b).setUint32(workbookEntry(b) + 120, 0x7fffffff, true)],
    ['stream starting outside the file', (b) => v(b).setUint32(workbookEntry(b) + 116, 0x00ffffff, true)],
    ['cut in half', () => {}],
  ];
  for (const [label, mutate] of mutations) {
    const b = label === 'cut in half' ? bytes.slice(0, bytes.length >> 1) : bytes.slice();
    mutate(b);
    fastVerdict(b, label);
    assert.ok(['ok', 'invalid_file'].includes(outcome(b)), label);
  }
});

test('xls fast path: seeded byte mutations of real files never make it fail other than by a verdict', () => {
  let x = 2463534242;
  const rand = (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
  const seen = { read: 0, fallback: 0, refused: 0 };
  for (const name of ['xls/tipos-libreoffice.xls', 'xls/tipos-gnumeric.xls', 'ventas.xls']) {
    const original = fixture(name).bytes;
    for (let i = 0; i < 150; i++) {
      const b = original.slice();
      for (let k = 1 + rand(4); k > 0; k--) b[rand(b.length)] = rand(256);
      seen[fastVerdict(b, `${name} mutation ${i}`)]++;
    }
  }
  assert.ok(seen.read > 0 && seen.refused + seen.fallback > 0, JSON.stringify(seen));
});

test('xls fast path: cells count against the limit as they are read, across sheets', () => {
  const recs = Array.from({ length: 100 }, (_, r) => cell.mulrk(r, 0, [1, 2, 3, 4, 5]));
  const two = biff8({ sheets: [{ name: 'A', records: recs }, { name: 'B', records: recs }] });
  assert.equal(outcome(two, 1000), 'ok');
  assert.equal(outcome(two, 999), 'too_complex');
  // Two far cells: the extent bound, not the cell count, refuses it.
  assert.equal(outcome(sheet([cell.rk(0, 0, 1), cell.rk(65535, 255, 2)]), 1000), 'too_complex');
});

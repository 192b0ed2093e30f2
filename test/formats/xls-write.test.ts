// tools/formats/xls/write.ts, read back by readers that share nothing with it: Python's xlrd, Gnumeric's
// ssconvert, LibreOffice headless, SheetJS, and the project's own BIFF8 reader (tools/formats/xls/, which must
// read every file itself, not hand it to SheetJS). The record layout the readers do not look at (CONTINUE cuts,
// EXTSST, DBCELL/INDEX, BOUNDSHEET offsets) is checked on the bytes by the walker below.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as XLSX from 'xlsx';
import { CellError, FormatError, FullCell, type BookIn, type AnyCell, type SheetIn } from '../../tools/formats/index.ts';
import { writeXls } from '../../tools/formats/xls/write.ts';
import { workbookStream } from '../../tools/formats/xls/cfb.ts';
import { readXls } from '../../tools/formats/xls/read.ts';
import { soffice, ssconvertCsv, ssconvertShown, xlrd } from '../helpers/office.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';

/** The limit a FormatError 'format-limit' names. */
const limitOf = (e: FormatError) => ({ what: e.params.limit, max: e.params.max, found: e.params.found });
const d = (y: number, m: number, day: number, h = 0, min = 0, s = 0, ms = 0) => new Date(Date.UTC(y, m - 1, day, h, min, s, ms));

function withDir<T>(f: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'xls-write-'));
  try {
    return f(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const book = (...sheets: SheetIn[]): BookIn => ({ sheets });
const sheet = (name: string, rows: AnyCell[][], extra: Partial<SheetIn> = {}): SheetIn => ({ name, rows: [rows], ...extra });

/** The project's reader, which must read the file itself. */
function ownReader(bytes: Uint8Array) {
  return readXls(bytes, { sheets: 'all', maxCells: 1e8, file: 'x.xls', report: () => {} });
}

// The typed table most tests write: text (Latin-1, wide, formula-like, leading zeros), every RK form and
// NUMBER, booleans, errors, dates with and without time, formats.
const TYPED: AnyCell[][] = [
  ['Nombre', 'Número', 'Fecha', 'Lógico', 'Error', 'Formato'],
  ['Muñoz Peña', 1, d(2024, 1, 15), true, new CellError('#N/A'), new FullCell(0.25, '0%')],
  ['€uro ł Ελληνικά 東京 한국어 😀', -7, d(2024, 2, 29, 13, 45), false, new CellError('#DIV/0!'), new FullCell(1234.5, '#,##0.00')],
  ['00123', 0.1, d(1899, 12, 30, 18), null, new CellError('#REF!'), new FullCell(d(2024, 3, 1), 'dd/mm/yyyy')],
  ['=SUM(A1)', 536870911, d(1900, 1, 1), null, new CellError('#NAME?'), new FullCell(45000.5, '0.000')],
  ['línea 1\nlínea 2', 536870912, d(1900, 2, 28), null, new CellError('#NUM!'), null],
  ['+34 600 000 000', -1234567.891, d(1900, 3, 1), null, new CellError('#VALUE!'), null],
  ['', 123456789012345, d(9999, 12, 31, 23, 59, 59), null, new CellError('#NULL!'), null],
  [null, 1e-300, d(2024, 1, 15, 10, 20, 30, 250), null, null, null],
  ['tras vacía', -1e300, null, null, null, null],
  [null, 12345.67, null, null, null, null],
  [null, 0.5, null, null, null, null],
  [null, 2 ** 40 + 0.5, null, null, null, null],
];

test('xls writer: xlrd reads every type, format, date and text as written', async () => {
  const out = await writeXls(book(sheet('Datos', TYPED)));
  assert.deepEqual(out.changed, []);
  withDir((dir) => {
    writeFileSync(join(dir, 'a.xls'), out.bytes);
    const x = xlrd(join(dir, 'a.xls'));
    assert.equal(x.datemode, 0);
    const cells = x.sheets[0].cells;
    assert.equal(x.sheets[0].nrows, TYPED.length);
    const col = (c: number) => cells.map((r) => r[c]);
    assert.deepEqual(
      col(0).map((c) => c.v),
      TYPED.map((r) => r[0] ?? ''),
    );
    assert.ok(col(0).every((c, i) => c.t === (TYPED[i][0] ? 1 : 0)));
    assert.deepEqual(
      col(1).slice(1).map((c) => [c.t, c.v]),
      TYPED.slice(1).map((r) => [2, r[1]]),
    );
    // Dates are numbers with a date format: 1900-01-01 is 1, 1900-02-28 is 59, 1900-03-01 is 61 (Excel's 29 February).
    assert.deepEqual(
      col(2).slice(1, 9).map((c) => [c.t, c.v, c.f]),
      [
        [3, 45306, 'yyyy-mm-dd'],
        [3, 45351 + (13 * 60 + 45) / 1440, 'yyyy-mm-dd hh:mm:ss'],
        [3, 0.75, 'hh:mm:ss'],
        [3, 1, 'yyyy-mm-dd'],
        [3, 59, 'yyyy-mm-dd'],
        [3, 61, 'yyyy-mm-dd'],
        [3, 2958465 + 86399 / 86400, 'yyyy-mm-dd hh:mm:ss'],
        [3, 45306 + (10 * 3600 + 20 * 60 + 30.25) / 86400, 'yyyy-mm-dd hh:mm:ss.000'],
      ],
    );
    assert.deepEqual(
      col(3).slice(0, 3).map((c) => [c.t, c.v]),
      [
        [1, 'Lógico'],
        [4, 1],
        [4, 0],
      ],
    );
    // xlrd gives error cells their BIFF code.
    assert.deepEqual(
      col(4).slice(1, 8).map((c) => [c.t, c.v]),
      [
        [5, 0x2a],
        [5, 0x07],
        [5, 0x17],
        [5, 0x1d],
        [5, 0x24],
        [5, 0x0f],
        [5, 0x00],
      ],
    );
    assert.deepEqual(
      col(5).slice(1, 5).map((c) => [c.t, c.v, c.f]),
      [
        [2, 0.25, '0%'],
        [2, 1234.5, '#,##0.00'],
        [3, 45352, 'dd/mm/yyyy'],
        [2, 45000.5, '0.000'],
      ],
    );
  });
});

test('xls writer: the project reader and SheetJS read the same cells back', async () => {
  const out = await writeXls(book(sheet('Datos', TYPED), sheet('Otra', [['a', 1]])));
  const own = ownReader(out.bytes);
  assert.deepEqual(own.sheetNames, ['Datos', 'Otra']);
  const expected = TYPED.map((r) => r.map((c) => (c instanceof CellError ? c.text : c instanceof FullCell ? c.value : c === '' ? null : c)));
  const trim = (rows: unknown[][]) => rows.map((r) => r.map((c) => (c === undefined ? null : c)));
  const pad = (rows: unknown[][], w: number) => rows.map((r) => [...r, ...new Array(Math.max(0, w - r.length)).fill(null)]);
  assert.deepEqual(pad(trim(own.sheets[0].rows), 6), expected);
  const wb = XLSX.read(out.bytes, { cellDates: true, dense: true });
  assert.deepEqual(wb.SheetNames, ['Datos', 'Otra']);
  const sj = XLSX.utils.sheet_to_json<unknown[]>(wb.Sheets.Datos, { header: 1, raw: true, defval: null });
  // SheetJS gives error cells' text in `w` (their values are the BIFF codes).
  const sjErrors = TYPED.slice(1, 8).map((_, i) => wb.Sheets.Datos['!data']![i + 1][4].w);
  assert.deepEqual(sjErrors, ['#N/A', '#DIV/0!', '#REF!', '#NAME?', '#NUM!', '#VALUE!', '#NULL!']);
  // SheetJS's own date rules differ on three cells (a time of day on 1899-12-31, 9999-12-31 23:59:59 as a
  // number, milliseconds rounded away): the others must match.
  const quirks = new Set(['3,2', '7,2', '8,2']);
  const skip = (rows: unknown[][]) => rows.map((r, ri) => r.map((c, i) => (i === 4 || quirks.has(`${ri},${i}`) ? null : c)));
  assert.deepEqual(skip(pad(sj, 6)), skip(expected));
});

test('xls writer: Gnumeric and LibreOffice open it with the same cells, sheets, visibility, merges and widths', async () => {
  const out = await writeXls(
    book(
      sheet('Oculta', [['escondida']], { visibility: 'hidden' }),
      sheet('Datos', TYPED.slice(0, 8), { columnWidths: [30, 12, undefined, 8], merges: [{ top: 9, left: 0, bottom: 10, right: 2 }] }),
      sheet('Vacía', []),
    ),
  );
  await withDir(async (dir) => {
    const path = join(dir, 'libro.xls');
    writeFileSync(path, out.bytes);
    const csv = ssconvertCsv(path, dir);
    assert.equal(csv.length, 3);
    assert.equal(csv[0].trim(), 'escondida');
    assert.equal(csv[2].trim(), '');
    const lines = csv[1].trim().split('\n');
    assert.equal(lines[0], 'Nombre,Número,Fecha,Lógico,Error,Formato');
    assert.equal(lines[1], '"Muñoz Peña",1,2024/01/15,TRUE,#N/A,0.25');
    assert.equal(lines[4], '=SUM(A1),536870911,1900/01/01,,#NAME?,45000.5');
    // As Gnumeric shows them: through each cell's number format.
    const shown = ssconvertShown(path, dir, 'Datos').trim().split('\n');
    assert.equal(shown[1], '"Muñoz Peña",1,2024-01-15,TRUE,#N/A,25%');
    assert.equal(shown[2], '"€uro ł Ελληνικά 東京 한국어 😀",\u22127,"2024-02-29 13:45:00",FALSE,#DIV/0!,"1,234.50"');
    assert.equal(shown[3], '00123,0.1,18:00:00,,#REF!,01/03/2024');
    assert.equal(shown[4], '=SUM(A1),536870911,1900-01-01,,#NAME?,45000.500');

    const x = xlrd(path);
    assert.deepEqual(
      x.sheets.map((s) => [s.name, s.visibility]),
      [
        ['Oculta', 1],
        ['Datos', 0],
        ['Vacía', 0],
      ],
    );
    assert.deepEqual(x.sheets[1].merged, [[9, 11, 0, 3]]);
    assert.deepEqual(x.sheets[1].widths, { '0': 30 * 256, '1': 12 * 256, '3': 8 * 256 });

    const xlsx = readFileSync(join(soffice([path], 'xlsx', dir), 'libro.xlsx'));
    const sheets = await readXlsx(xlsx);
    assert.deepEqual(
      sheets.map((s) => s.name),
      ['Oculta', 'Datos', 'Vacía'],
    );
    const lo = sheets[1].rows;
    // LibreOffice keeps a boolean as a number with a boolean format, and writes it to xlsx as TRUE()/FALSE().
    assert.deepEqual(lo[1].slice(0, 4), ['Muñoz Peña', 1, d(2024, 1, 15), { formula: 'TRUE()' }]);
    assert.deepEqual(lo[2].slice(0, 4), ['€uro ł Ελληνικά 東京 한국어 😀', -7, d(2024, 2, 29, 13, 45), { formula: 'FALSE()' }]);
    assert.equal(lo[4][0], '=SUM(A1)', 'formula-like text stays text');
    assert.equal(lo[6][1], -1234567.891);
    const wb = XLSX.read(xlsx);
    assert.deepEqual(
      wb.Workbook?.Sheets?.map((s) => s.Hidden ?? 0),
      [1, 0, 0],
    );
    assert.deepEqual(wb.Sheets.Datos['!merges'], [{ s: { r: 9, c: 0 }, e: { r: 10, c: 2 } }]);
  });
});

/** Records of a Workbook stream: [type, offset of the header, payload]. */
function records(stream: Uint8Array): [number, number, Buffer][] {
  const b = Buffer.from(stream.buffer, stream.byteOffset, stream.byteLength);
  const out: [number, number, Buffer][] = [];
  for (let p = 0; p + 4 <= b.length; ) {
    const type = b.readUInt16LE(p);
    const len = b.readUInt16LE(p + 2);
    if (type === 0 && len === 0) break; // the padding up to 4,096 bytes
    out.push([type, p, b.subarray(p + 4, p + 4 + len)]);
    p += 4 + len;
  }
  return out;
}

test('xls writer: strings cut by CONTINUE at every offset, in both encodings, read back whole', async () => {
  // Strings of every length from 1 to 40 after a filler, so that record ends fall on every byte of a string's
  // header and characters; wide strings with surrogate pairs; long strings over several CONTINUE records.
  const texts: string[] = [];
  for (let fill = 0; fill < 24; fill++) {
    for (let n = 1; n <= 40; n++) texts.push(`${'f'.repeat(fill)}|${n}|${'abcdefghij'.repeat(4).slice(0, n)}`);
    texts.push(`${fill}:${'Ωλ😀'.repeat(fill + 3)}`);
  }
  texts.push('x'.repeat(32_767), 'Ω'.repeat(32_767), `${'a'.repeat(9000)}${'ł'.repeat(9000)}`, `${'ł'.repeat(8200)}${'a'.repeat(8200)}`);
  const rows = texts.map((t) => [t, t]);
  const out = await writeXls(book(sheet('Textos', rows)));
  const stream = workbookStream(out.bytes);
  const recs = records(stream);
  const sst = recs.findIndex((r) => r[0] === 0x00fc);
  let continues = 0;
  for (let i = sst + 1; recs[i][0] === 0x003c; i++) continues++;
  assert.ok(continues > 20, `${continues} CONTINUE records`);
  assert.ok(recs.every(([, , p]) => p.length <= 8224));

  const own = ownReader(out.bytes).sheets[0].rows;
  assert.deepEqual(
    own.map((r) => r[0]),
    texts,
  );
  assert.deepEqual(XLSX.utils.sheet_to_json(XLSX.read(out.bytes, { dense: true }).Sheets.Textos, { header: 1 }), rows);
  withDir((dir) => {
    writeFileSync(join(dir, 't.xls'), out.bytes);
    const x = xlrd(join(dir, 't.xls')).sheets[0];
    assert.deepEqual(
      x.cells.map((r) => r[1].v),
      texts,
    );
  });

  // SST counts: every reference, each distinct text once.
  const sstPayload = recs[sst][2];
  assert.equal(sstPayload.readUInt32LE(0), texts.length * 2);
  assert.equal(sstPayload.readUInt32LE(4), texts.length);
  // EXTSST: each bucket's stream offset is where its string starts, and its offset counts from its record's header.
  const ext = recs.find((r) => r[0] === 0x00ff)![2];
  const dsst = ext.readUInt16LE(0);
  const buckets = (ext.length - 2) / 8;
  assert.equal(buckets, Math.ceil(texts.length / dsst));
  const holder = (pos: number) => recs.filter(([, p]) => p <= pos).pop()!;
  for (let k = 0; k < buckets; k++) {
    const ib = ext.readUInt32LE(2 + 8 * k);
    const cb = ext.readUInt16LE(6 + 8 * k);
    const [type, start] = holder(ib);
    assert.ok(type === 0x00fc || type === 0x003c);
    assert.equal(ib - start, cb, `bucket ${k}`);
    const s = texts[k * dsst];
    assert.equal(Buffer.from(stream).readUInt16LE(ib), s.length, `bucket ${k} points at its string`);
  }
});

test('xls writer: BOUNDSHEET offsets, INDEX and DBCELL point where they say', async () => {
  const big: AnyCell[][] = [];
  // Rows with gaps longer than a 32-row block, so that some blocks are empty.
  for (let r = 0; r < 300; r++) big.push(r % 100 < 40 ? [r, `t${r % 7}`, r % 3 === 0 ? null : r / 4] : []);
  const out = await writeXls(book(sheet('Uno', big), sheet('Dos', [['x']]), sheet('Tres', big.slice(0, 5))));
  const stream = workbookStream(out.bytes);
  const b = Buffer.from(stream);
  const recs = records(stream);
  const bofs = recs.filter((r) => r[0] === 0x0809).map((r) => r[1]);
  const bound = recs.filter((r) => r[0] === 0x0085).map((r) => r[2].readUInt32LE(0));
  assert.deepEqual(bound, bofs.slice(1));
  for (const [type, at, p] of recs) {
    if (type !== 0x020b) continue;
    assert.equal(b.readUInt16LE(p.readUInt32LE(12)), 0x0055, 'ibXF points at DEFCOLWIDTH');
    const first = p.readUInt32LE(4);
    const last = p.readUInt32LE(8);
    const dbcells = (p.length - 16) / 4;
    assert.equal(dbcells, first === last ? 0 : Math.floor((last - 1) / 32) - Math.floor(first / 32) + 1, `INDEX at ${at}`);
    for (let k = 0; k < dbcells; k++) {
      const pos = p.readUInt32LE(16 + 4 * k);
      assert.equal(b.readUInt16LE(pos), 0x00d7, 'a DBCELL');
      const back = b.readUInt32LE(pos + 4);
      if (back === 0) continue;
      const rowAt = pos - back;
      assert.equal(b.readUInt16LE(rowAt), 0x0208, 'dbRtrw points at the first ROW');
      const rowCount = (b.readUInt16LE(pos + 2) - 4) / 2;
      // First cell of each row: from the end of the first ROW record, then from the previous row's first cell.
      let cell = rowAt + 20 + b.readUInt16LE(pos + 8);
      for (let i = 0; i < rowCount; i++) {
        if (i > 0) cell += b.readUInt16LE(pos + 8 + 2 * i);
        const rowRecord = rowAt + 20 * i;
        assert.equal(b.readUInt16LE(cell + 4), b.readUInt16LE(rowRecord + 4), `row ${i} of the block starts at its first cell`);
      }
    }
  }
  const own = ownReader(out.bytes);
  assert.equal(own.sheets[0].rows.length, 240);
  assert.deepEqual(own.sheets[0].rows[239], [239, `t${239 % 7}`, 239 / 4]);
});

test('xls writer: past 65,536 rows, 256 columns or 32,767 characters, a FormatError names the limit, the count and where', async () => {
  const rows = (n: number, extraEmpty = 0) => function* () {
    for (let i = 0; i < n; i += 10_000) yield Array.from({ length: Math.min(10_000, n - i) }, (_, k) => [i + k] as AnyCell[]);
    for (let i = 0; i < extraEmpty; i++) yield [[null, '']];
  };
  const err = await writeXls(book({ name: 'Grande', rows: rows(70_000)() })).then(
    () => assert.fail('no error'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof FormatError);
  assert.equal(err.reason, 'format-limit');
  assert.deepEqual(limitOf(err), { what: 'rows', max: 65_536, found: 70_000 });
  assert.equal(err.params.sheet, 'Grande');

  // Exactly at the limit, with empty rows after it: written whole.
  const full = await writeXls(book({ name: 'Justa', rows: rows(65_536, 5)() }));
  assert.equal(full.sheets[0].rows, 65_536);

  const wide = await writeXls(book(sheet('Ancha', [['a'], [...new Array(300).fill(null), 'b'], ['c']]))).catch((e: unknown) => e);
  assert.ok(wide instanceof FormatError);
  assert.deepEqual(limitOf(wide), { what: 'columns', max: 256, found: 301 });
  // Empty cells past column 256 are no cells.
  await writeXls(book(sheet('Huecos', [['a', ...new Array(400).fill(null)]])));

  const long = await writeXls(book(sheet('Larga', [['a'], [null, 'x'.repeat(32_768)]]))).catch((e: unknown) => e);
  assert.ok(long instanceof FormatError);
  assert.deepEqual(limitOf(long), { what: 'characters', max: 32_767, found: 32_768 });
  assert.deepEqual([long.params.sheet, long.params.row, long.params.column], ['Larga', 2, 2]);
});

test('xls writer: what BIFF8 cannot hold is written as text and counted, with the first place', async () => {
  const out = await writeXls(book(sheet('S', [[d(1850, 1, 1), new CellError('#SPILL!'), Infinity], [d(1899, 12, 29, 12), new CellError('#CALC!'), NaN]])));
  assert.deepEqual(out.changed, [
    { kind: 'date_as_text', count: 2, first: { sheet: 'S', row: 1, column: 1 } },
    { kind: 'error_as_text', count: 2, first: { sheet: 'S', row: 1, column: 2 } },
    { kind: 'number_as_text', count: 2, first: { sheet: 'S', row: 1, column: 3 } },
  ]);
  assert.deepEqual(ownReader(out.bytes).sheets[0].rows, [
    ['1850-01-01', '#SPILL!', 'Infinity'],
    ['1899-12-29T12:00:00', '#CALC!', 'NaN'],
  ]);
});

test('xls writer: 65,536 rows × 10 columns (a stream past the 109 FAT sectors of the header) read back by xlrd and the project reader', async () => {
  const kinds = (r: number, c: number): AnyCell =>
    [r, `fila ${r}`, r * 1.25, d(2020, 1, 1 + (r % 1000)), r % 2 === 0, `Ω${r % 500}`, r / 3, null, `c${c}-${r % 97}`, r === 0 ? 0 : -r][c];
  function* batches() {
    for (let r = 0; r < 65_536; r += 4096) yield Array.from({ length: 4096 }, (_, k) => Array.from({ length: 10 }, (_, c) => kinds(r + k, c)));
  }
  const out = await writeXls(book({ name: 'Datos', rows: batches() }));
  assert.ok(out.bytes.length > 109 * 128 * 512, `${out.bytes.length} bytes need DIFAT sectors`);
  const own = ownReader(out.bytes).sheets[0].rows;
  assert.equal(own.length, 65_536);
  for (const r of [0, 1, 31, 32, 4095, 4096, 65_535]) assert.deepEqual(own[r], Array.from({ length: 10 }, (_, c) => kinds(r, c)), `row ${r}`);
  withDir((dir) => {
    writeFileSync(join(dir, 'big.xls'), out.bytes);
    const s = xlrd(join(dir, 'big.xls')).sheets[0];
    assert.equal(s.nrows, 65_536);
    assert.deepEqual(
      s.cells[65_535].map((c) => c.v),
      [65_535, 'fila 65535', 65_535 * 1.25, s.cells[65_535][3].v, 0, 'Ω35', 65_535 / 3, '', 'c8-60', -65_535],
    );
  });
});

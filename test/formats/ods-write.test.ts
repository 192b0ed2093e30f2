// tools/formats/ods/write.ts, opened by Gnumeric (ssconvert), LibreOffice headless and SheetJS: the same
// cells, types, dates and formats; the package layout ODF asks for; limits and changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as XLSX from 'xlsx';
import { CellError, FormatError, FullCell, type AnyCell } from '../../tools/formats/index.ts';
import { writeOds } from '../../tools/formats/ods/write.ts';
import { soffice, ssconvertCsv, ssconvertShown } from '../helpers/office.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';

/** The limit a FormatError 'format-limit' names. */
const limitOf = (e: FormatError) => ({ what: e.params.limit, max: e.params.max, found: e.params.found });
const d = (y: number, m: number, day: number, h = 0, min = 0, s = 0, ms = 0) => new Date(Date.UTC(y, m - 1, day, h, min, s, ms));

const ROWS: AnyCell[][] = [
  ['Nombre', 'Número', 'Fecha', 'Lógico', 'Error', 'Formato'],
  ['Muñoz  Peña ', 1, d(2024, 1, 15), true, new CellError('#N/A'), new FullCell(0.25, '0%')],
  [' €uro\tł Ελληνικά 東京 😀', -7, d(2024, 2, 29, 13, 45), false, new CellError('#DIV/0!'), new FullCell(1234.5, '#,##0.00')],
  ['00123', 0.1, d(1899, 12, 30, 18), null, new CellError('#REF!'), new FullCell(d(2024, 3, 1), 'dd/mm/yyyy')],
  ['=SUM(A1)', 536870911, d(1900, 1, 1), null, new CellError('#NAME?'), new FullCell(45000.5, '0.000')],
  ['línea 1\nlínea 2', 1e-300, d(1850, 2, 28), null, new CellError('#NUM!'), new FullCell(0.5, '0.00E+00')],
  ['a<b>&c"', 2 ** 40 + 0.5, d(2024, 1, 15, 10, 20, 30, 250), null, new CellError('#VALUE!'), new FullCell(d(2024, 1, 2, 3, 4, 5), 'd-mmm-yy h:mm AM/PM')],
  [null, null, null, null, new CellError('#NULL!'), null],
  [],
  [],
  ['tras vacías', null, null, null, null, null, null, null, 'lejos'],
];

async function written() {
  return writeOds({
    sheets: [
      { name: 'Oculta', visibility: 'hidden', rows: [[['x']]] },
      { name: 'Datos', rows: [ROWS.slice(0, 4), ROWS.slice(4)], columnWidths: [20, 12, undefined, 5], merges: [{ top: 7, left: 0, bottom: 8, right: 2 }, { top: 12, left: 0, bottom: 13, right: 1 }] },
      { name: 'Vacía', rows: [] },
    ],
  });
}

test('ods writer: Gnumeric reads the same cells, types, dates and formats', async () => {
  const out = await written();
  assert.deepEqual(out.sheets, [
    { name: 'Oculta', rows: 1 },
    { name: 'Datos', rows: 14 },
    { name: 'Vacía', rows: 0 },
  ]);
  assert.deepEqual(out.changed, []);
  const dir = mkdtempSync(join(tmpdir(), 'ods-write-'));
  try {
    const path = join(dir, 'libro.ods');
    writeFileSync(path, out.bytes);
    const csv = ssconvertCsv(path, dir);
    assert.equal(csv.length, 3);
    const lines = csv[1].trim().split('\n');
    assert.equal(lines[1], '"Muñoz  Peña ",1,2024/01/15,TRUE,#N/A,0.25,,,');
    assert.equal(lines[2], '" €uro\tł Ελληνικά 東京 😀",-7,"2024/02/29 13:45:00",FALSE,#DIV/0!,1234.5,,,');
    assert.equal(lines[3], '00123,0.1,18:00:00,,#REF!,2024/03/01,,,');
    assert.equal(lines[4], '=SUM(A1),536870911,1900/01/01,,#NAME?,45000.5,,,');
    assert.equal(`${lines[5]}\n${lines[6]}`, '"línea 1\nlínea 2",1E-300,1850/02/28,,#NUM!,0.5,,,');
    assert.equal(lines[7], '"a<b>&c""",1099511627776.5,"2024/01/15 10:20:30.250",,#VALUE!,"2024/01/02 03:04:05",,,');
    assert.equal(lines[8], ',,,,#NULL!,,,,');
    assert.equal(lines[11], '"tras vacías",,,,,,,,lejos');
    const shown = ssconvertShown(path, dir, 'Datos').trim().split('\n');
    assert.equal(shown[1], '"Muñoz  Peña ",1,2024-01-15,TRUE,#N/A,25%,,,');
    assert.equal(shown[2], '" €uro\tł Ελληνικά 東京 😀",\u22127,"2024-02-29 13:45:00",FALSE,#DIV/0!,"1,234.50",,,');
    assert.equal(shown[3], '00123,0.1,18:00:00,,#REF!,01/03/2024,,,');
    assert.equal(shown[5], '"línea 1');
    assert.equal(shown[6], 'línea 2",1E\u2212300,1850-02-28,,#NUM!,5.00E\u221201,,,');
    assert.equal(shown[7], '"a<b>&c""",1.0995E+12,"2024-01-15 10:20:30.250",,#VALUE!,"2-Jan-24 3:04 AM",,,');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ods writer: LibreOffice reads the same cells, dates, formats and merges', async () => {
  const out = await written();
  const dir = mkdtempSync(join(tmpdir(), 'ods-write-'));
  try {
    const path = join(dir, 'libro.ods');
    writeFileSync(path, out.bytes);
    const xlsx = readFileSync(join(soffice([path], 'xlsx', dir), 'libro.xlsx'));
    const sheets = await readXlsx(xlsx);
    assert.deepEqual(
      sheets.map((s) => s.name),
      ['Oculta', 'Datos', 'Vacía'],
    );
    const rows = sheets[1].rows;
    // LibreOffice keeps booleans as numbers with a boolean format (TRUE()/FALSE() in xlsx), and writes dates
    // before 1900-03-01 one day later in xlsx (it has no 29 February 1900): those cells are checked by Gnumeric.
    assert.deepEqual(rows[1].slice(0, 3), ['Muñoz  Peña ', 1, d(2024, 1, 15)]);
    assert.deepEqual(rows[2].slice(0, 3), [' €uroł Ελληνικά 東京 😀', -7, d(2024, 2, 29, 13, 45)], 'LibreOffice drops a tab in a cell');
    assert.deepEqual(rows[5][0], 'línea 1\nlínea 2');
    assert.deepEqual(rows[6].slice(0, 3), ['a<b>&c"', 2 ** 40 + 0.5, d(2024, 1, 15, 10, 20, 30, 250)]);
    assert.deepEqual(rows[10][8], 'lejos');
    assert.deepEqual(
      sheets[1].formats[1].slice(2, 6),
      ['yyyy-mm-dd', '"TRUE";"TRUE";"FALSE"', 'General', '0%'],
    );
    assert.deepEqual(sheets[1].formats[3][5], 'dd/mm/yyyy');
    assert.deepEqual(sheets[1].formats[5][5], '0.00E+00');
    const errors = rows.slice(1, 8).map((r) => r[4]);
    assert.deepEqual(
      errors.map((e) => (typeof e === 'object' && e && 'formula' in e ? 'formula' : e)),
      new Array(7).fill('formula'),
    );
    const wb = XLSX.read(xlsx);
    assert.deepEqual(wb.Sheets.Datos['!merges'], [
      { s: { r: 7, c: 0 }, e: { r: 8, c: 2 } },
      { s: { r: 12, c: 0 }, e: { r: 13, c: 1 } },
    ]);
    const errorTexts = [1, 2, 3, 4, 5, 6, 7].map((r) => wb.Sheets.Datos[XLSX.utils.encode_cell({ r, c: 4 })]?.w);
    assert.deepEqual(errorTexts, ['#N/A', '#DIV/0!', '#REF!', '#NAME?', '#NUM!', '#VALUE!', '#NULL!']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ods writer: the package starts with a stored mimetype at offset 38; SheetJS reads values, types and hidden state', async () => {
  const { bytes } = await written();
  const b = Buffer.from(bytes);
  assert.equal(b.toString('latin1', 30, 38), 'mimetype');
  assert.equal(b.readUInt16LE(8), 0, 'stored');
  assert.equal(b.readUInt16LE(28), 0, 'no extra field');
  assert.equal(b.toString('latin1', 38, 38 + 46), 'application/vnd.oasis.opendocument.spreadsheet');
  const wb = XLSX.read(bytes, { cellDates: true, dense: true });
  assert.deepEqual(wb.SheetNames, ['Oculta', 'Datos', 'Vacía']);
  const rows = XLSX.utils.sheet_to_json<unknown[]>(wb.Sheets.Datos, { header: 1, raw: true });
  assert.deepEqual(rows[1].slice(0, 4), ['Muñoz  Peña ', 1, d(2024, 1, 15), true]);
  assert.deepEqual(rows[6].slice(0, 3), ['a<b>&c"', 2 ** 40 + 0.5, d(2024, 1, 15, 10, 20, 30, 250)]);
  assert.deepEqual(rows[10], ['tras vacías', , , , , , , , 'lejos']);
});

test('ods writer: limits as FormatError; what ODS cannot hold is counted', async () => {
  const long = await writeOds({ sheets: [{ name: 'S', rows: [[['a'], [null, 'x'.repeat(32_768)]]] }] }).catch((e: unknown) => e);
  assert.ok(long instanceof FormatError);
  assert.deepEqual(limitOf(long), { what: 'characters', max: 32_767, found: 32_768 });
  assert.deepEqual([long.params.sheet, long.params.row, long.params.column], ['S', 2, 2]);
  const wide = await writeOds({ sheets: [{ name: 'S', rows: [[[...new Array(16_384).fill(null), 'x']]] }] }).catch((e: unknown) => e);
  assert.ok(wide instanceof FormatError);
  assert.deepEqual(limitOf(wide), { what: 'columns', max: 16_384, found: 16_385 });
  const out = await writeOds({ sheets: [{ name: 'S', rows: [[['a\u0001b', Infinity, new CellError('#SPILL!'), new FullCell(3, '[h]:mm:ss'), 'x\ry']]] }] });
  assert.deepEqual(
    out.changed.map((c) => [c.kind, c.count, c.first.column]),
    [
      ['xml_characters_removed', 1, 1],
      ['number_as_text', 1, 2],
      ['error_as_text', 1, 3],
      ['format_dropped', 1, 4],
      ['carriage_return_as_line_break', 1, 5],
    ],
  );
});

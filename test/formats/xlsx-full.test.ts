// A workbook read `full` (openWorkbook's `cells: 'full'`, the workbook-copying tools) gives the same cells and
// sheets through the fast xlsx reader as through SheetJS, which read every .xlsx `full` before: each cell's
// value, number format and formula, error cells, every sheet's name, visibility, origin, merged ranges and
// column widths, and the messages. Read: the committed xlsx fixtures (the real-world corpus included) and
// workbooks made here — by openpyxl (formats, merges, widths, hidden sheets, formulas saved without values,
// errors, ISO dates) and by hand (shared and array formulas with cached values, Strict ISO dates and durations).
//
// Where the two readers differ, openpyxl decides, cell by cell: the fast reader must give what openpyxl finds,
// and each difference must be one of the known faults of SheetJS below, named in WHY.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FormatError, NeedsFallback } from '../../tools/formats/errors.ts';
import { openWorkbook } from '../../tools/formats/open.ts';
import { CellError, columnLetter, FullCell, type AnyCell } from '../../tools/formats/model.ts';
import { soleRead, XlsxReader } from '../../tools/formats/xlsx/read.ts';
import { contextOf } from '../helpers/read-tables.ts';
import { openpyxlFull, pythonWorkbook, type JudgedCell, type JudgedSheet } from '../helpers/openpyxl-full.ts';
import { row, xlsxPackage } from '../helpers/xlsx-package.ts';

type Msg = { level: string; key: string; params?: Record<string, string | number> };
interface Norm {
  v: unknown;
  f: string | null;
  z: string | null;
}
interface FullSheet {
  name: string;
  visibility: string;
  origin: { row: number; col: number };
  merges: string[];
  widths: (number | null)[];
  cells: Map<string, Norm>;
}

const value = (c: AnyCell): unknown => {
  if (c instanceof Date) return { date: c.toISOString().replace(/\.000Z$|Z$/, '') };
  if (c instanceof CellError) return { error: c.text };
  if (typeof c === 'number' && Number.isNaN(c)) return 'NaN';
  return c;
};
const norm = (c: AnyCell): Norm => (c instanceof FullCell ? { v: value(c.value), f: c.formula, z: c.format } : { v: value(c), f: null, z: null });
const a1 = (r: number, c: number) => `${columnLetter(c)}${r + 1}`;
const rangeText = (m: { top: number; left: number; bottom: number; right: number }) => `${a1(m.top, m.left)}:${a1(m.bottom, m.right)}`;

/** Every sheet read `full`, its cells by sheet reference, and the messages of the read. */
function readFull(bytes: Uint8Array, reader?: 'sheetjs'): { sheets: FullSheet[]; msgs: Msg[] } {
  const msgs: Msg[] = [];
  const ctx = contextOf({ report: (level, key, params) => void msgs.push({ level, key, params }) });
  const book = openWorkbook({ name: 'libro.xlsx', bytes }, ctx, { hasHeader: false, cells: 'full', reader });
  const sheets = book.sheets.map((sheet) => {
    const table = sheet.table();
    const layout = table.layout!;
    assert.ok(layout, `${sheet.name}: a full read gives the layout`);
    const cells = new Map<string, Norm>();
    table.rows().forEach((r, i) =>
      r.forEach((c, j) => {
        if (c !== null) cells.set(a1(layout.origin.row + i, layout.origin.col + j), norm(c));
      }),
    );
    return { name: sheet.name, visibility: sheet.visibility, origin: layout.origin, merges: layout.merges.map(rangeText), widths: layout.widths, cells };
  });
  return { sheets, msgs };
}

/** The fast reader must read the file itself: a NeedsFallback would compare SheetJS with SheetJS. */
function readsItself(bytes: Uint8Array): boolean {
  try {
    const reader = new XlsxReader(bytes, true);
    reader.sheets.forEach((_, i) => reader.table(i, soleRead({ maxCells: 1e7, file: 'x', report: () => {} })));
    return true;
  } catch (err) {
    // Damage the fast reader leaves to the fallback (the corpus's case twins; test/formats/repair.test.ts).
    if (err instanceof NeedsFallback || (err instanceof FormatError && err.repairable === true)) return false;
    throw err;
  }
}

const iso = (x: unknown) => (x && typeof x === 'object' && 'date' in x ? String((x as { date: string }).date).replace(/(\.\d{3})\d*$/, '$1').replace(/\.000$/, '') : null);

/** Whether openpyxl's cell says what the fast reader's says, field by field. */
function judgedSame(field: keyof Norm, fast: Norm, py: JudgedCell | undefined): boolean {
  if (field === 'f') return (py?.f ?? null) === fast.f;
  if (field === 'z') return (py?.z ?? 'General') === (fast.z ?? 'General');
  // An empty text is no value, for openpyxl as for the model.
  const pv = py?.v === '' ? null : (py?.v ?? null);
  const fv = fast.v;
  // A duration openpyxl gives as a timedelta is, in a time format, a time of day on Excel's day 0.
  if (iso(fv) !== null && pv && typeof pv === 'object' && 'days' in pv) return Date.parse(`${iso(fv)}Z`) - Date.UTC(1899, 11, 30) === Math.round((pv as { days: number }).days * 86_400_000);
  if (iso(fv) !== null) return iso(fv) === iso(pv);
  if (typeof fv === 'number' && pv && typeof pv === 'object' && 'days' in pv) return Math.abs(fv - (pv as { days: number }).days) < 1e-9;
  return JSON.stringify(fv) === JSON.stringify(pv);
}

/** The known faults of SheetJS's full read of .xlsx, each recognised from the two cells. */
const WHY: [string, (fast: Norm, sheetjs: Norm | undefined) => boolean][] = [
  ['SheetJS drops the _xlfn. prefix by which Excel knows a newer function; openpyxl keeps it', (f, s) => f.f !== null && f.f.includes('_xlfn.') && s?.f === f.f.replace(/_xlfn\./g, '')],
  ['a formula saved without a value, or with empty text: SheetJS drops the formula, openpyxl keeps it', (f, s) => f.v === null && f.f !== null && s === undefined],
  ['an ISO 8601 date (t="d") before 1900-03-01: SheetJS reads it a day off (its serials there miscount 1900-02-29)', (f, s) => {
    const a = iso(f.v);
    const b = iso(s?.v);
    return a !== null && b !== null && a < '1900-03-01' && Math.abs(Date.parse(`${a}Z`) - Date.parse(`${b}Z`)) === 86_400_000;
  }],
  ['an ISO 8601 time or duration (t="d"): SheetJS reads NaN', (_f, s) => s?.v === 'NaN'],
  ['an ISO 8601 date (t="d") SheetJS gives as a serial number (in a General cell; before 1904 in a 1904 workbook), openpyxl as the date', (f, s) => iso(f.v) !== null && typeof s?.v === 'number'],
  ['a shared formula with quoted text: SheetJS moves "references" inside string literals and sheet names', (f, s) => f.f !== null && s?.f != null && f.f.replace(/"[^"]*"|'[^']*'/g, '') === s.f.replace(/"[^"]*"|'[^']*'/g, '') && f.f !== s.f],
  ['a CR LF in text (&#13; or _x000D_ before a line end): SheetJS makes it an LF, openpyxl keeps the CR', (f, s) => typeof f.v === 'string' && f.v.includes('\r\n') && s?.v === f.v.replace(/\r\n/g, '\n')],
  ['a character past U+FFFF written as a character reference (&#128512;): SheetJS loses it, openpyxl keeps it', (f, s) => typeof f.v === 'string' && /[\u{10000}-\u{10FFFF}]/u.test(f.v) && typeof s?.v === 'string' && s.v !== f.v],
];

/** Compares the two reads of `bytes`; differences are judged by openpyxl. Returns the reasons met. */
function compareBothWays(label: string, bytes: Uint8Array): Set<string> {
  assert.ok(readsItself(bytes), `${label}: the fast reader hands the file to SheetJS`);
  const fast = readFull(bytes);
  const sheetjs = readFull(bytes, 'sheetjs');
  let judge: JudgedSheet[] | null = null;
  const judged = () => (judge ??= openpyxlFull(bytes));
  const reasons = new Set<string>();
  assert.deepEqual(fast.sheets.map((s) => [s.name, s.visibility]), sheetjs.sheets.map((s) => [s.name, s.visibility]), `${label}: sheets`);
  fast.sheets.forEach((f, i) => {
    const s = sheetjs.sheets[i];
    const where = `${label} / ${f.name}`;
    assert.deepEqual([f.merges, f.widths], [s.merges, s.widths], `${where}: merged ranges and widths`);
    for (const ref of new Set([...f.cells.keys(), ...s.cells.keys()])) {
      const a = f.cells.get(ref) ?? { v: null, f: null, z: null };
      const b = s.cells.get(ref);
      if (JSON.stringify(a) === JSON.stringify(b ?? { v: null, f: null, z: null })) continue;
      const why = WHY.find(([, test]) => test(a, b));
      assert.ok(why, `${where} ${ref}: fast ${JSON.stringify(a)} vs SheetJS ${JSON.stringify(b)}, no known reason`);
      const py = judged()[i].cells[ref];
      for (const field of ['v', 'f', 'z'] as const) {
        if (JSON.stringify(a[field]) !== JSON.stringify(b?.[field] ?? null)) assert.ok(judgedSame(field, a, py), `${where} ${ref} ${field}: fast ${JSON.stringify(a)}, openpyxl ${JSON.stringify(py)} (${why[0]})`);
      }
      reasons.add(why[0]);
    }
    // Where both agree, the origin is the first non-empty row and column of the same cells.
    if (f.cells.size > 0 && [...f.cells.keys()].every((k) => s.cells.has(k))) assert.deepEqual(f.origin, s.origin, `${where}: origin`);
  });
  assert.deepEqual(fast.msgs, sheetjs.msgs, `${label}: messages`);
  return reasons;
}

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const XLSX_NAME = /\.(xlsx|xlsm|xltx|xltm)$/i;

test('full read, fast = SheetJS (openpyxl decides where they differ): every committed xlsx fixture', () => {
  const within = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => XLSX_NAME.test(n)).map((n) => join(dir, n)) : []);
  const files = [...within(FIXTURES), ...within(join(FIXTURES, 'real-world'))];
  assert.ok(files.length >= 3);
  let read = 0;
  for (const path of files) {
    const bytes = new Uint8Array(readFileSync(path));
    // A package the fast reader hands over (the corpus has a few on purpose) is read by SheetJS either way.
    if (!readsItself(bytes)) continue;
    compareBothWays(path.slice(FIXTURES.length + 1), bytes);
    read++;
  }
  assert.ok(read >= 3, `${read} fixtures read by the fast reader`);
});

const OPENPYXL_BOOK = `
import sys, datetime, openpyxl
# iso_dates: every date written as ISO 8601 text (t="d"), as Strict OOXML writes them.
wb = openpyxl.Workbook(iso_dates=True)
ws = wb.active
ws.title = 'Datos'
ws['B3'] = 'Título'; ws['C3'] = 'Importe'; ws['D3'] = 'Fecha'
rows = [
    ('texto', 1234.5, datetime.datetime(2024, 2, 29, 12, 30)),
    ('00123', 0.125, datetime.datetime(1900, 1, 15)),
    (True, -3, datetime.date(1900, 2, 28)),
    ('#DIV/0!', 1e-7, datetime.time(10, 30)),
]
for i, r in enumerate(rows):
    for j, v in enumerate(r): ws.cell(row=4 + i, column=2 + j, value=v)
for ref, fmt in [('C4', '#,##0.00 "€"'), ('C5', '0.00%'), ('C6', '0'), ('C7', '0.00E+00'), ('D4', 'dd/mm/yyyy hh:mm'),
                 ('D5', 'dd/mm/yyyy'), ('D6', 'yyyy-mm-dd'), ('D7', 'hh:mm'), ('B5', '@')]:
    ws[ref].number_format = fmt
ws['E4'] = datetime.timedelta(hours=30, minutes=11); ws['E4'].number_format = '[h]:mm:ss'
ws['E5'] = '=SUM(C4:C7)'
ws['E6'] = '=_xlfn.CONCAT("a","b")'
ws['E7'] = '#N/A'
ws['B1'] = 'Cabecera combinada'
ws.merge_cells('B1:D1')
ws.merge_cells('F4:G5')
ws.column_dimensions['B'].width = 18.5
ws.column_dimensions['D'].width = 12.14
h = wb.create_sheet('Oculta'); h.sheet_state = 'hidden'; h['A1'] = 1
v = wb.create_sheet('Muy oculta'); v.sheet_state = 'veryHidden'; v['C2'] = 'x'
iso = wb.create_sheet('ISO')
for i, x in enumerate([datetime.datetime(1900, 1, 1), datetime.datetime(1900, 1, 15, 6, 0), datetime.date(1900, 2, 28),
                       datetime.date(1900, 3, 1), datetime.datetime(2024, 2, 29, 23, 59, 59), datetime.time(10, 30)]):
    iso.cell(row=i + 1, column=1, value=x)
wb.save(sys.argv[1])
`;

test('full read, fast = SheetJS (openpyxl decides): a workbook openpyxl wrote with formats, merges, widths, hidden sheets, errors, formulas without values, ISO dates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'xlsx-full-'));
  try {
    pythonWorkbook(OPENPYXL_BOOK, join(dir, 'libro.xlsx'));
    const bytes = new Uint8Array(readFileSync(join(dir, 'libro.xlsx')));
    const reasons = compareBothWays('openpyxl', bytes);
    // Formulas openpyxl writes have no cached value; its ISO dates SheetJS reads right (1900-02-28 as serial 60,
    // which reads back as 1900-02-28).
    assert.deepEqual([...reasons], [WHY[1][0]]);
    // What the copy keeps, spelled out for a few cells.
    const { sheets } = readFull(bytes);
    const [datos, oculta, muyOculta, isoSheet] = sheets;
    assert.deepEqual([oculta.visibility, muyOculta.visibility, isoSheet.visibility], ['hidden', 'veryHidden', 'visible']);
    assert.deepEqual(datos.origin, { row: 0, col: 1 });
    assert.deepEqual(datos.merges, ['B1:D1', 'F4:G5']);
    assert.deepEqual(datos.widths, [null, 18.5, null, 12.14]);
    assert.deepEqual(datos.cells.get('C4'), { v: 1234.5, f: null, z: '#,##0.00 "€"' });
    assert.deepEqual(datos.cells.get('D5'), { v: { date: '1900-01-15T00:00:00' }, f: null, z: 'dd/mm/yyyy' });
    assert.deepEqual(datos.cells.get('B7'), { v: { error: '#DIV/0!' }, f: null, z: null });
    assert.deepEqual(datos.cells.get('E6'), { v: null, f: '_xlfn.CONCAT("a","b")', z: null });
    assert.deepEqual(isoSheet.cells.get('A2')?.v, { date: '1900-01-15T06:00:00' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('full read, fast = SheetJS (openpyxl decides): shared and array formulas with cached values, Strict ISO durations', () => {
  const c = (ref: string, inner: string, attrs = '') => `<c r="${ref}"${attrs}>${inner}</c>`;
  const xml = [
    row(1, c('A1', '<v>1</v>') + c('B1', '<v>2</v>') + c('C1', '<f t="shared" ref="C1:C3" si="0">A1+B1&amp;"A1"</f><v>3</v>', ' t="str"') + c('D1', '<f t="array" ref="D1:D2">A1:A2*2</f><v>2</v>')),
    row(2, c('A2', '<v>3</v>') + c('B2', '<v>4</v>') + c('C2', '<f t="shared" si="0"/><v>7</v>', ' t="str"') + c('D2', '<v>6</v>')),
    row(3, c('A3', '<v>5</v>') + c('B3', '<v>6</v>') + c('C3', '<f t="shared" si="0"/><v>11</v>', ' t="str"') + c('D3', '<f>$A$1/0</f><v>#DIV/0!</v>', ' t="e"')),
    row(4, c('A4', '<f>_xlfn.XLOOKUP(1,A1:A3,B1:B3)</f><v>2</v>') + c('B4', '<f>IF(A1&gt;5,"x","")</f><v></v>', ' t="str"') + c('C4', '<v>PT0H11M0S</v>', ' s="1" t="d"') + c('D4', '<v>PT30H0M0S</v>', ' s="2" t="d"')),
    row(5, c('A5', '<v>1900-02-10</v>', ' s="3" t="d"') + c('B5', '<v>2024-05-06T07:08:09</v>', ' s="3" t="d"') + c('C5', '<v>1899-12-31</v>', ' s="3" t="d"') + c('D5', '<v>2024-01-02</v>', ' t="d"')),
  ].join('');
  const bytes = xlsxPackage({ sheets: [{ name: 'Fórmulas', xml }], styles: { numFmts: { 164: 'h:mm', 165: '[h]:mm:ss', 166: 'dd/mm/yyyy' }, cellXfs: [0, 164, 165, 166] } });
  const reasons = compareBothWays('hand-made', bytes);
  assert.deepEqual([...reasons].sort(), WHY.slice(0, 6).map(([why]) => why).sort());
  const cells = readFull(bytes).sheets[0].cells;
  assert.deepEqual(cells.get('C3'), { v: '11', f: 'A3+B3&"A1"', z: null });
  assert.deepEqual(cells.get('D1'), { v: 2, f: 'A1:A2*2', z: null });
  assert.deepEqual(cells.get('D3'), { v: { error: '#DIV/0!' }, f: '$A$1/0', z: null });
  // A time of day in a time format, a duration in an elapsed-time format (a number, as any [h]:mm cell).
  assert.deepEqual(cells.get('C4'), { v: { date: '1899-12-30T00:11:00' }, f: null, z: 'h:mm' });
  assert.deepEqual(cells.get('D4'), { v: 1.25, f: null, z: '[h]:mm:ss' });
  assert.deepEqual(cells.get('A5'), { v: { date: '1900-02-10T00:00:00' }, f: null, z: 'dd/mm/yyyy' });
  assert.deepEqual(cells.get('B4'), { v: null, f: 'IF(A1>5,"x","")', z: null });
  assert.deepEqual(cells.get('C5'), { v: { date: '1899-12-31T00:00:00' }, f: null, z: 'dd/mm/yyyy' });
  assert.deepEqual(cells.get('D5'), { v: { date: '2024-01-02T00:00:00' }, f: null, z: null });

  // In the 1904 system an ISO date is the same day: the text names it.
  const xml1904 = row(1, c('A1', '<v>1900-01-15</v>', ' s="1" t="d"') + c('B1', '<v>2024-01-02T03:04:05</v>', ' s="1" t="d"') + c('C1', '<v>PT2H</v>', ' s="2" t="d"'));
  const book1904 = xlsxPackage({ sheets: [{ name: 'S', xml: xml1904 }], date1904: true, styles: { numFmts: { 164: 'dd/mm/yyyy hh:mm', 165: 'hh:mm' }, cellXfs: [0, 164, 165] } });
  assert.deepEqual([...compareBothWays('1904', book1904)].sort(), [WHY[3][0], WHY[4][0]].sort());
  const s1904 = readFull(book1904).sheets[0].cells;
  assert.deepEqual([s1904.get('A1')?.v, s1904.get('B1')?.v, s1904.get('C1')?.v], [{ date: '1900-01-15T00:00:00' }, { date: '2024-01-02T03:04:05' }, { date: '1899-12-30T02:00:00' }]);
});

test('full read: a read that is not full fills none of it (no FullCell, errors as text, no layout)', () => {
  const xml = row(1, '<c r="A1" s="1"><v>0.5</v></c><c r="B1"><f>1/0</f><v>#DIV/0!</v></c>'.replace('<c r="B1">', '<c r="B1" t="e">'));
  const bytes = xlsxPackage({ sheets: [{ name: 'S', xml }], styles: { numFmts: { 164: '0.0%' }, cellXfs: [0, 164] } });
  const t = openWorkbook({ name: 'x.xlsx', bytes }, contextOf(), { hasHeader: false }).first.table();
  assert.equal(t.layout, undefined);
  assert.deepEqual(t.rows(), [[0.5, '#DIV/0!']]);
});

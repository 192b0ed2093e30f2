// tools/formats/ods/read.ts on files LibreOffice and Gnumeric write (made here from an .xls and a CSV, so that
// nothing large is committed), compared cell for cell with SheetJS; its own writer's files round-trip; and the
// hostile cases: a repeated-row bomb, a ZIP bomb, a DTD, an encrypted package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { zipSync, strToU8 } from 'fflate';
import * as XLSX from 'xlsx';
import { CellError, FormatError, FullCell, type AnyCell } from '../../tools/formats/index.ts';
import { readOds } from '../../tools/formats/ods/read.ts';
import { writeOds } from '../../tools/formats/ods/write.ts';
import { writeXls } from '../../tools/formats/xls/write.ts';
import { soffice } from '../helpers/office.ts';
import { settledHeap } from '../helpers/heap.ts';

const d = (y: number, m: number, day: number, h = 0, min = 0, s = 0, ms = 0) => new Date(Date.UTC(y, m - 1, day, h, min, s, ms));
const plain = (v: AnyCell) => (v instanceof FullCell ? v.value : v instanceof CellError ? v.text : v);

const SOURCE: AnyCell[][] = [
  ['Nombre', 'Número', 'Fecha', 'Lógico', 'Error', 'Formato'],
  ['Muñoz  Peña', 1, d(2024, 1, 15), true, new CellError('#N/A'), new FullCell(0.25, '0%')],
  ['€uro ł Ελληνικά 東京 😀', -7, d(2024, 2, 29, 13, 45), false, new CellError('#DIV/0!'), new FullCell(1234.5, '#,##0.00')],
  ['00123', 0.1, d(1899, 12, 30, 18), null, null, new FullCell(d(2024, 3, 1), 'dd/mm/yyyy')],
  ['línea 1\nlínea 2', 123456789012345, d(2000, 1, 1), null, null, 3],
  [],
  ['tras vacía', 1e-300, null, null, null, null, null, 'lejos'],
];

/** SheetJS's reading of an .ods: values as it gives them (errors as their text), rows to the last value. */
function sheetjs(bytes: Uint8Array) {
  const wb = XLSX.read(bytes, { cellDates: true, dense: true });
  return wb.SheetNames.map((name) => {
    const data = wb.Sheets[name]['!data'] ?? [];
    // SheetJS puts a time of day on 1899-12-31 (the project's readers on 1899-12-30, Excel's day 0).
    const v = (c: XLSX.CellObject) => (c.v instanceof Date && c.v.getTime() >= Date.UTC(1899, 11, 31) && c.v.getTime() < Date.UTC(1900, 0, 1) ? new Date(c.v.getTime() - 86_400_000) : c.v);
    const rows = Array.from(data, (r) => Array.from(r ?? [], (c) => (c === undefined || c === null ? null : c.t === 'e' ? c.w : c.t === 'z' ? null : v(c))));
    return { name, rows: rows.map((r) => trimRow(r as AnyCell[])), merges: wb.Sheets[name]['!merges'] ?? [] };
  });
}

function trimRow(r: AnyCell[]): AnyCell[] {
  const out = [...r];
  while (out.length > 0 && (out[out.length - 1] === null || out[out.length - 1] === undefined)) out.pop();
  return out.map((c) => (c === undefined ? null : c));
}

test('ods reader = SheetJS, cell for cell, on files LibreOffice and Gnumeric write', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ods-read-'));
  try {
    const xls = await writeXls({ sheets: [{ name: 'Oculta', visibility: 'hidden', rows: [[['x']]] }, { name: 'Datos', rows: [SOURCE], merges: [{ top: 5, left: 0, bottom: 5, right: 3 }] }] });
    writeFileSync(join(dir, 'libro.xls'), xls.bytes);
    const lo = readFileSync(join(soffice([join(dir, 'libro.xls')], 'ods', dir), 'libro.ods'));
    execFileSync('ssconvert', [join(dir, 'libro.xls'), join(dir, 'gnumeric.ods')], { stdio: 'ignore', timeout: 120_000 });
    const gn = readFileSync(join(dir, 'gnumeric.ods'));
    for (const [label, bytes] of [
      ['LibreOffice', lo],
      ['Gnumeric', gn],
    ] as const) {
      const ours = readOds(bytes).sheets;
      const theirs = sheetjs(bytes);
      assert.deepEqual(
        ours.map((s) => s.name),
        theirs.map((s) => s.name),
        label,
      );
      ours.forEach((s, i) => {
        const mine = s.rows[0].map((r) => trimRow(r.map(plain)));
        // LibreOffice saves booleans as the formulas TRUE() and FALSE() with a float result: SheetJS gives 1 and 0,
        // we give what LibreOffice shows (as the corpus checks with openpyxl, test/formats/real-world.test.ts).
        const sheetjsRows = theirs[i].rows.map((r, ri) => r.map((v, ci) => (typeof mine[ri]?.[ci] === 'boolean' && label === 'LibreOffice' && v === (mine[ri][ci] ? 1 : 0) ? mine[ri][ci] : v)));
        assert.deepEqual(
          mine,
          sheetjsRows.slice(0, s.rows[0].length),
          `${label}: ${s.name}`,
        );
        assert.ok(theirs[i].rows.slice(s.rows[0].length).every((r) => r.length === 0), `${label}: nothing after the last row`);
      });
      const datos = ours[1];
      assert.equal(datos.rows[0][1][2] instanceof FullCell ? (datos.rows[0][1][2] as FullCell).format : null, 'yyyy-mm-dd', label);
      // SheetJS reads no merge of these files, and Gnumeric's ODS export carries none: LibreOffice's is checked.
      if (label === 'LibreOffice') assert.deepEqual(datos.merges, [{ top: 5, left: 0, bottom: 5, right: 3 }]);
      assert.equal(ours[0].hidden, true, `${label}: hidden state`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ods reader: its own writer round-trips every cell, format, merge, width and hidden table', async () => {
  const ods = await writeOds({
    sheets: [
      { name: 'Oculta', visibility: 'hidden', rows: [[['x']]] },
      { name: 'Datos', rows: [SOURCE], columnWidths: [20, 12, undefined, 5], merges: [{ top: 5, left: 0, bottom: 5, right: 3 }] },
    ],
  });
  const back = readOds(ods.bytes).sheets;
  assert.deepEqual(
    back.map((s) => [s.name, s.hidden]),
    [
      ['Oculta', true],
      ['Datos', false],
    ],
  );
  const expect = SOURCE.map((r) =>
    trimRow(
      r.map((c) => {
        if (c instanceof Date) return new FullCell(c, c.getTime() < Date.UTC(1899, 11, 31) ? 'hh:mm:ss' : c.getUTCHours() ? 'yyyy-mm-dd hh:mm:ss' : 'yyyy-mm-dd');
        return c;
      }),
    ),
  );
  assert.deepEqual(back[1].rows[0], expect);
  assert.deepEqual(back[1].merges, [{ top: 5, left: 0, bottom: 5, right: 3 }]);
  assert.deepEqual(back[1].columnWidths, [20, 12, undefined, 5]);
});

/** An .ods package around a content.xml body. */
function ods(body: string, extra: Record<string, Uint8Array> = {}): Uint8Array {
  const content = `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>${body}</office:spreadsheet></office:body></office:document-content>`;
  return zipSync({ mimetype: [strToU8('application/vnd.oasis.opendocument.spreadsheet'), { level: 0 }], 'content.xml': strToU8(content), ...extra });
}

test('ods reader: repeated empty rows and cells cost nothing; text:s, tab, line-break, annotations', () => {
  const bomb = ods(
    '<table:table table:name="B"><table:table-column table:number-columns-repeated="16384"/>' +
      '<table:table-row><table:table-cell office:value-type="float" office:value="1"/><table:table-cell table:number-columns-repeated="16383"/></table:table-row>' +
      '<table:table-row table:number-rows-repeated="1048574"><table:table-cell table:number-columns-repeated="16384"/></table:table-row>' +
      '<table:table-row><table:table-cell table:number-columns-repeated="3"/><table:table-cell office:value-type="string"><text:p>a<text:s text:c="3"/>b<text:tab/>c<text:line-break/>d</text:p><text:p>  e  </text:p>' +
      '<office:annotation><text:p>nota</text:p></office:annotation></table:table-cell></table:table-row></table:table>',
  );
  const t0 = process.memoryUsage().heapUsed;
  const s = readOds(bomb).sheets[0];
  assert.equal(s.rows[0].length, 1_048_576);
  assert.deepEqual(s.rows[0][0], [1]);
  assert.deepEqual(s.rows[0][1_048_575], [null, null, null, 'a   b\tc\nd\n e ']);
  assert.ok(process.memoryUsage().heapUsed - t0 < 200 * 2 ** 20, 'the empty rows are no arrays of cells');
  // Trailing repeated empty rows are never rows at all.
  const tail = ods('<table:table table:name="T"><table:table-row><table:table-cell office:value-type="string"><text:p>x</text:p></table:table-cell></table:table-row><table:table-row table:number-rows-repeated="1048575"><table:table-cell table:number-columns-repeated="16384"/></table:table-row></table:table>');
  assert.deepEqual(readOds(tail).sheets[0].rows[0], [['x']]);
});

test('ods reader: a ZIP bomb, a DTD, an encrypted package and a non-ODS are FormatErrors', () => {
  const huge = new Uint8Array(64 * 2 ** 20).fill(0x20);
  const bomb = zipSync({ mimetype: [strToU8('application/vnd.oasis.opendocument.spreadsheet'), { level: 0 }], 'content.xml': [huge, { level: 9 }] });
  const e1 = (() => {
    try {
      readOds(bomb);
    } catch (e) {
      return e;
    }
  })();
  assert.ok(e1 instanceof FormatError && (e1.reason === 'zip-ratio' || e1.reason === 'zip-size'), String(e1));
  const dtd = ods('<table:table table:name="X"/>').slice();
  const withDtd = zipSync({
    mimetype: [strToU8('application/vnd.oasis.opendocument.spreadsheet'), { level: 0 }],
    'content.xml': strToU8('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><office:document-content/>'),
  });
  assert.ok(dtd.length > 0);
  assert.throws(() => readOds(withDtd), (e: unknown) => e instanceof FormatError && e.reason === 'xml-dtd');
  const encrypted = ods('<table:table table:name="X"/>', { 'META-INF/manifest.xml': strToU8('<manifest:manifest><manifest:file-entry><manifest:encryption-data/></manifest:file-entry></manifest:manifest>') });
  assert.throws(() => readOds(encrypted), (e: unknown) => e instanceof FormatError && e.reason === 'password');
  const odt = zipSync({ mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }], 'content.xml': strToU8('<x/>') });
  assert.throws(() => readOds(odt), (e: unknown) => e instanceof FormatError && e.reason === 'unreadable');
  assert.ok(deflateRawSync);
});

test('ods reader: text with entity references is held as one string (heap after full collections), its whitespace collapsed as before', () => {
  const rows = 20_000;
  const cell = (i: number) => `<table:table-cell office:value-type="string"><text:p>Pedido ${i}, entrega &quot;muy urgente&quot; a la calle &amp; número</text:p></table:table-cell>`;
  const file = ods(`<table:table table:name="P">${Array.from({ length: rows }, (_, i) => `<table:table-row>${cell(i)}${cell(i + 1)}</table:table-row>`).join('')}</table:table>`);
  const base = settledHeap();
  const sheet = readOds(file).sheets[0];
  const held = settledHeap() - base;
  assert.equal(sheet.rows[0].length, rows);
  assert.deepEqual(sheet.rows[0][rows - 1], [`Pedido ${rows - 1}, entrega "muy urgente" a la calle & número`, `Pedido ${rows}, entrega "muy urgente" a la calle & número`]);
  // 40,000 values of 60 characters and their rows: about 7 MB with each value one string; 31 MB as trees of pieces.
  assert.ok(held < 15 * 2 ** 20, `held ${(held / 2 ** 20).toFixed(1)} MB`);
  const spaced = ods('<table:table table:name="S"><table:table-row><table:table-cell office:value-type="string"><text:p>a &amp;  b&#9;c&#10;d</text:p></table:table-cell></table:table-row></table:table>');
  assert.deepEqual(readOds(spaced).sheets[0].rows[0], [['a & b c d']]);
});

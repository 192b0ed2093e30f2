// Cells of real-world xlsx that the fast reader once got wrong (issue 16), each package made here and read
// cell for cell by openpyxl too: lower-case references (`r="a1"`), whitespace between `<is>` and `<t>`, CR LF
// written as `&#13;&#10;` or as a CR LF in the markup. The OOXML `_xHHHH_` escapes are decoded as Excel shows
// them (ECMA-376 §22.4.2.4), `_x000D_` before a line end giving the CR of a CR LF; openpyxl 3.0 and Gnumeric
// leave those escapes as written, so there the expected text is spelled out. Parts in UTF-16 with a BOM are read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readXlsx } from '../../tools/formats/xlsx/read.ts';
import { writeXlsx } from '../../tools/formats/xlsx/write.ts';
import { readTables } from '../helpers/read-tables.ts';
import { inputFile } from '../helpers/run-tool.ts';
import { zipSync } from 'fflate';
import { packageParts, row, xlsxPackage, type PackageSpec } from '../helpers/xlsx-package.ts';

const OPENPYXL = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], data_only=True)
print(json.dumps([[[c.value for c in r] for r in ws.iter_rows()] for ws in wb.worksheets]))
`;

/** Every sheet's rows as openpyxl reads them (None → null, trailing empties as openpyxl gives them). */
function openpyxl(bytes: Uint8Array): unknown[][][] {
  const dir = mkdtempSync(join(tmpdir(), 'xlsx-cells-'));
  try {
    writeFileSync(join(dir, 'x.xlsx'), bytes);
    return JSON.parse(execFileSync('/usr/bin/python3', ['-c', OPENPYXL, join(dir, 'x.xlsx')], { encoding: 'utf8' }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The rows the fast reader gives (it must read the file itself, not hand it to SheetJS), padded as openpyxl pads. */
function ours(bytes: Uint8Array): unknown[][][] {
  readXlsx(bytes, { sheets: 'all', maxCells: 1e6, file: 'x', report: () => {} });
  return readTables(inputFile('x.xlsx', bytes), { hasHeader: false, sheets: 'all', detectTypes: true }).tables.map((t) => t.rows.map((r) => [...r]));
}

const pad = (rows: unknown[][]) => {
  const width = Math.max(0, ...rows.map((r) => r.length));
  return rows.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? null));
};

test('xlsx cells = openpyxl: lower-case references, whitespace around inline <t>, CR LF from character references', () => {
  const spec: PackageSpec = {
    sheets: [
      {
        name: 'Minúsculas',
        xml:
          row(1, '<c r="a1" t="inlineStr"><is><t>id</t></is></c><c r="c1" t="inlineStr"><is><t>nota</t></is></c>') +
          row(2, '<c r="a2"><v>7</v></c><c r="c2" t="s"><v>0</v></c>') +
          row(3, '<c r="aB3"><v>2.5</v></c>'),
      },
      {
        name: 'Espacios',
        xml:
          row(1, '<c r="A1" t="inlineStr"><is>\n    <t>Logroño</t>\n  </is></c><c r="B1" t="inlineStr"><is> <r> <t>dos </t> </r> <r><rPr><i/></rPr><t>partes</t></r> </is></c>') +
          row(2, '<c r="A2" t="inlineStr"><is><t>a&#13;&#10;b</t></is></c><c r="B2" t="s"><v>1</v></c>') +
          row(3, '<c r="A3" t="inlineStr"><is><t xml:space="preserve">  fuera  </t></is></c><c r="B3" t="s"><v>2</v></c>'),
      },
    ],
    sharedStrings: ['<t>x</t>', '<t>c&#13;&#10;d</t>', '<t>línea\r\nen el marcado</t>'],
  };
  const bytes = xlsxPackage(spec);
  const expected = openpyxl(bytes);
  assert.deepEqual(ours(bytes).map(pad), expected.map(pad));
  // What openpyxl found, so that this test cannot pass on two readers agreeing on nothing.
  assert.deepEqual(expected[0].map((r) => r.filter((x) => x !== null)), [['id', 'nota'], [7, 'x'], [2.5]]);
  assert.equal(expected[0][2].length, 28, 'AB3 is column 28');
  assert.deepEqual(expected[1], [['Logroño', 'dos partes'], ['a\r\nb', 'c\r\nd'], ['  fuera  ', 'línea\nen el marcado']]);
});

test('xlsx cells: every _xHHHH_ escape is decoded in inline strings, shared strings and formula text; _x000D_ keeps CR LF', () => {
  const shared = ['<t>línea 1_x000D_\nlínea 2</t>', '<t>_x005F_x0041_ es literal</t>', '<t>tab_x0009_fin _x00e9_ _x0001_</t>', '<r><t>ri_x000D_</t></r><r><t>\nco</t></r>'];
  const xml =
    row(1, '<c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="C1" t="s"><v>2</v></c><c r="D1" t="s"><v>3</v></c>') +
    row(2, '<c r="A2" t="inlineStr"><is><t>x_x000D_\ny</t></is></c><c r="B2" t="inlineStr"><is><t>_x005f_x000D_ literal</t></is></c><c r="C2" t="str"><f>A1</f><v>f_x000D_\ng</v></c><c r="D2" t="inlineStr"><is><t>_x00D_ corto</t></is></c>');
  const bytes = xlsxPackage({ sheets: [{ name: 'Escapes', xml }], sharedStrings: shared });
  assert.deepEqual(ours(bytes), [
    [
      ['línea 1\r\nlínea 2', '_x0041_ es literal', 'tab\tfin é \u0001', 'ri\r\nco'],
      ['x\r\ny', '_x000D_ literal', 'f\r\ng', '_x00D_ corto'],
    ],
  ]);
  // openpyxl reads the same cells at the same places; only the escapes differ, left as written there.
  const raw = openpyxl(bytes)[0];
  assert.deepEqual(raw[1][0], 'x_x000D_\ny');
  assert.deepEqual(raw[0][2], 'tab_x0009_fin _x00e9_ _x0001_');
});

test('xlsx cells: a CR LF this service writes comes back as CR LF, and openpyxl reads it so', () => {
  const ctx = { t: (k: string) => k, name: (k: string) => k };
  const bytes = writeXlsx([{ name: 'S', header: ['nota'], rows: [['x\r\ny'], ['solo\rCR'], ['_x000D_ literal']] }], ctx);
  assert.deepEqual(ours(bytes), [[['nota'], ['x\r\ny'], ['solo\rCR'], ['_x000D_ literal']]]);
  // openpyxl leaves the writer's `_x005F_` (a literal `_x000D_`) as written in inline strings: the last row is Excel's reading.
  assert.deepEqual(openpyxl(bytes)[0].slice(0, 3), ours(bytes)[0].slice(0, 3));
});

test('xlsx cells = openpyxl: XML parts in UTF-16 with a BOM (little- and big-endian) are decoded, not refused', () => {
  const utf16 = (xml: string, order: 'le' | 'be') => {
    const le = Buffer.from('\uFEFF' + xml.replace('encoding="UTF-8"', 'encoding="UTF-16"'), 'utf16le');
    return order === 'le' ? le : Buffer.from(le).swap16();
  };
  const spec: PackageSpec = {
    sheets: [{ name: 'Ünïcode', xml: row(1, '<c r="A1" t="s"><v>0</v></c><c r="B1" t="inlineStr"><is><t>€ 東京 😀</t></is></c>') + row(2, '<c r="A2"><v>42</v></c>') }],
    sharedStrings: ['<t>Muñoz</t>'],
  };
  const parts = packageParts(spec);
  const bytes = zipParts({
    ...parts,
    'xl/worksheets/sheet1.xml': utf16(parts['xl/worksheets/sheet1.xml'] as string, 'le'),
    'xl/sharedStrings.xml': utf16(parts['xl/sharedStrings.xml'] as string, 'be'),
    'xl/workbook.xml': utf16(parts['xl/workbook.xml'] as string, 'le'),
  });
  const expected = openpyxl(bytes);
  assert.deepEqual(expected, [[['Muñoz', '€ 東京 😀'], [42, null]]]);
  assert.deepEqual(ours(bytes).map(pad), expected);
  assert.deepEqual(readTables(inputFile('x.xlsx', bytes), { hasHeader: false, sheets: 'all', detectTypes: true }).sheetNames, ['Ünïcode']);
});

function zipParts(parts: Record<string, string | Uint8Array>): Uint8Array {
  const enc = new TextEncoder();
  return zipSync(Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, typeof v === 'string' ? enc.encode(v) : v])));
}

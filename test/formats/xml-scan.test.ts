// The streaming tokenizer of the xlsx reader: whatever the chunks the inflater happens to deliver (one byte at a
// time, a few bytes, everything at once), the tokens and the cells are the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readTables } from '../helpers/read-tables.ts';
import { CellBudget, SheetGrid } from '../../tools/formats/grid.ts';
import { readSheet } from '../../tools/formats/xlsx/sheet-xml.ts';
import { attributesOf, decodeEntities, XmlScanner } from '../../tools/formats/xml/scan.ts';
import { InflateBudget, openZip } from '../../tools/formats/zip/read.ts';
import { inputFile } from '../helpers/run-tool.ts';
import { throwsVerdict } from '../helpers/tool-error.ts';
import { rawEntries, rawZip, row, worksheet } from '../helpers/xlsx-package.ts';

/** The tokens of `xml` fed in chunks of `size` bytes, text between two tags joined and decoded. */
function tokens(xml: Buffer, size: number): string[] {
  const out: string[] = [];
  let text = '';
  const flush = () => {
    if (text) out.push(`text ${JSON.stringify(text)}`);
    text = '';
  };
  const scanner = new XmlScanner({
    open(b, ln, le, ae, self) {
      flush();
      out.push(`open ${b.toString('utf8', ln, le)} ${JSON.stringify(attributesOf(b, le, ae))}${self ? ' /' : ''}`);
    },
    close(b, ln, le) {
      flush();
      out.push(`close ${b.toString('utf8', ln, le)}`);
    },
    text(b, s, e, literal) {
      const piece = b.toString('utf8', s, e);
      text += literal ? piece : decodeEntities(piece);
    },
  });
  for (let i = 0; i < xml.length; i += size) scanner.push(xml.subarray(i, i + size));
  scanner.end();
  flush();
  return out;
}

const AROUND = [0, 1, 14, 15, 16, 17, 18, 40];

test('xml-scan: the same tokens whatever the chunk size', () => {
  const long = 'ñ'.repeat(70_000) + '&amp;' + 'x'.repeat(70_000);
  const xml = Buffer.from(
    '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<x:root xmlns:x="urn:x" a="1 > 0" b=\'"q"\'>' +
      '<!-- a comment with <tags> and -- dashes --><?pi data?>' +
      '<x:c r="A1" t="s"><x:v>12</x:v></x:c><c r="B1"/>' +
      '<t xml:space="preserve"> Muñoz &lt;&#233;&#x1F600;&gt; </t>' +
      '<t><![CDATA[<b> & ]]]]><![CDATA[>]]></t>' +
      `<t>${long}</t>` +
      // Texts, quoted values and end tags on both sides of the length searched byte by byte before indexOf.
      AROUND.map((k) => `<v q="${'>'.repeat(k)}">${'9'.repeat(k)}</v${' '.repeat(k)}>`).join('') +
      // References right where a 64 KB piece ends when the text comes a byte at a time.
      `<t>${'a'.repeat(65530)}&amp;&#233;&lt;ñ</t>` +
      '</x:root>',
  );
  const whole = tokens(xml, xml.length);
  assert.ok(whole.includes('open root {"xmlns:x":"urn:x","a":"1 > 0","b":"\\"q\\""}'));
  assert.ok(whole.includes('open c {"r":"B1"} /'));
  assert.ok(whole.includes('text " Muñoz <é😀> "'));
  assert.ok(whole.includes('text "<b> & ]]>"'));
  assert.ok(whole.includes(`text ${JSON.stringify('ñ'.repeat(70_000) + '&' + 'x'.repeat(70_000))}`));
  assert.ok(whole.includes(`text ${JSON.stringify('a'.repeat(65530) + '&é<ñ')}`));
  for (const k of AROUND) {
    const at = whole.indexOf(`open v ${JSON.stringify({ q: '>'.repeat(k) })}`);
    const expected = k > 0 ? [`text "${'9'.repeat(k)}"`, 'close v'] : ['close v'];
    assert.deepEqual(whole.slice(at + 1, at + 1 + expected.length), expected, `${k} bytes`);
  }
  for (const size of [1, 2, 3, 7, 64, 4093]) assert.deepEqual(tokens(xml, size), whole, `chunks of ${size}`);
});

test('xml-scan: a DTD, even cut across chunks, is refused; a part that ends inside a tag is damaged', () => {
  const dtd = Buffer.from('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e "x">]><r>&e;</r>');
  for (const size of [1, 5, dtd.length]) throwsVerdict(() => tokens(dtd, size), { messageKey: 'error-details.xml-dtd' }, `chunks of ${size}`);
  assert.throws(() => tokens(Buffer.from('<r><c r="A1'), 3), { message: /ends inside a token/ });
});

test('xml-scan: a sheet streamed in small inflated chunks gives the cells of the whole part', () => {
  // Enough rows for many chunks; mixed cell kinds so that chunk ends fall inside every kind of token.
  const rows = Array.from({ length: 3000 }, (_, i) =>
    row(
      i + 1,
      `<c r="A${i + 1}" t="inlineStr"><is><t>fila ñ ${i} &amp; más</t></is></c><c r="B${i + 1}"><v>${i * 1.25}</v></c>` +
        `<c r="C${i + 1}" t="b"><v>${i % 2}</v></c><c r="D${i + 1}" t="e"><v>#N/A</v></c>`,
    ),
  ).join('\n');
  const entries = rawEntries({ sheets: [{ name: 'S', xml: worksheet(rows) }] });
  const cellsOf = (bytes: Uint8Array, wholeUpTo: number, streamer: 'zlib' | 'fflate' = 'zlib') => {
    const zip = openZip(bytes);
    const grid = new SheetGrid(new CellBudget(1e6));
    readSheet(zip, zip.get('xl/worksheets/sheet1.xml')!, new InflateBudget(undefined, wholeUpTo, streamer), { grid, sheet: 'S', strings: [], dateKinds: [], date1904: false });
    return grid.rows('x', 'S');
  };
  const deflated = rawZip(entries);
  const stored = rawZip(entries.map((e) => ({ ...e, method: 0 })));
  const whole = cellsOf(deflated, Infinity);
  assert.equal(whole.length, 3000);
  assert.deepEqual(whole[2999], ['fila ñ 2999 & más', 3748.75, true, '#N/A']);
  assert.deepEqual(cellsOf(deflated, 0), whole, 'streamed through native zlib');
  assert.deepEqual(cellsOf(deflated, 0, 'fflate'), whole, 'streamed through fflate');
  assert.deepEqual(cellsOf(stored, 0), whole, 'stored, in 16 KB views');
  assert.deepEqual(readTables(inputFile('x.xlsx', stored), { hasHeader: false, sheets: 'first', detectTypes: true }).tables[0].rows, whole);
});

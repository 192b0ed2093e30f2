// The ODS reader finds a package's tables (names, hidden state) in content.xml's bytes before reading any
// (ods/table-tags.ts): wherever the 16 KB pieces of a stored part cut the tags, and where bytes could
// mislead (a comment or CDATA holding table markup, a table inside a cell, another prefix), it finds what
// reading the part finds, and each table read gives its own rows. A sheet streamed gives the table a whole read
// gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { strToU8, zipSync } from 'fflate';
import { openWorkbook } from '../../tools/formats/index.ts';
import { OdsBook } from '../../tools/formats/ods/read.ts';
import { contextOf } from '../helpers/read-tables.ts';
import { inputFile } from '../helpers/run-tool.ts';

const HEAD =
  '<office:automatic-styles><style:style style:name="h" style:family="table"><style:table-properties table:display="false"/></style:style></office:automatic-styles>';

function ods(body: string, table = 'table'): Uint8Array {
  const content =
    `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:${table}="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ` +
    `xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0">${HEAD}<office:body><office:spreadsheet>${body}</office:spreadsheet></office:body></office:document-content>`;
  return zipSync({ mimetype: [strToU8('application/vnd.oasis.opendocument.spreadsheet'), { level: 0 }], 'content.xml': [strToU8(content), { level: 0 }] });
}

const table = (name: string, value: number, hidden = false, t = 'table') =>
  `<${t}:table ${t}:name="${name}"${hidden ? ` ${t}:style-name="h"` : ''}><${t}:table-row><${t}:table-cell office:value-type="float" office:value="${value}"/></${t}:table-row></${t}:table>`;

/** Names and hidden states, and each table's first cell read alone, in reverse order (every read a new pass). */
function read(bytes: Uint8Array) {
  const book = new OdsBook(bytes, 1_000_000);
  const order = book.tables.map((_, i) => i).reverse();
  const cells = order.map((i) => book.whole(i).rows[0][0]?.[0] ?? null).reverse();
  return { tables: book.tables.map((t) => `${t.name}${t.hidden ? ' (oculta)' : ''}`), cells };
}

test('ods tables: found wherever the part is cut, names decoded, hidden ones known', () => {
  const body = Array.from({ length: 40 }, (_, i) => table(`T&amp;${i}`, i, i % 3 === 1)).join('\n');
  const expected = Array.from({ length: 40 }, (_, i) => `T&${i}${i % 3 === 1 ? ' (oculta)' : ''}`);
  // Stored parts come 16 KB at a time: padding moves every cut across the tags.
  for (let pad = 0; pad < 420; pad += 13) {
    const r = read(ods(' '.repeat(16_000 + pad) + body));
    assert.deepEqual(r.tables, expected, `pad ${pad}`);
    assert.deepEqual(r.cells, Array.from({ length: 40 }, (_, i) => i), `pad ${pad}`);
  }
});

test('ods tables: markup in a comment or CDATA, a table inside a cell, another prefix', () => {
  const comment = read(ods(`${table('A', 1)}<!-- <table:table table:name="falsa"> -->${table('B', 2)}`));
  assert.deepEqual(comment.tables, ['A', 'B']);
  const cdata = read(ods(`<table:table table:name="A"><table:table-row><table:table-cell office:value-type="string"><text:p><![CDATA[<table:table table:name="falsa">]]></text:p></table:table-cell></table:table-row></table:table>`));
  assert.deepEqual(cdata.tables, ['A']);
  assert.deepEqual(cdata.cells, ['<table:table table:name="falsa">']);
  const nested = read(ods(`<table:table table:name="A"><table:table-row><table:table-cell>${table('dentro', 9)}</table:table-cell><table:table-cell office:value-type="float" office:value="1"/></table:table-row></table:table>${table('B', 2)}`));
  assert.deepEqual(nested.tables, ['A', 'B']);
  assert.deepEqual(nested.cells, [null, 2]);
  const prefix = read(ods(table('T', 5, true, 't'), 't'));
  assert.deepEqual(prefix, { tables: ['T (oculta)'], cells: [5] });
});

test('ods stream: the same table as a whole read, also when a late row reaches left of the columns decided', () => {
  const row = (cells: string) => `<table:table-row>${cells}</table:table-row>`;
  const num = (v: number) => `<table:table-cell office:value-type="float" office:value="${v}"/>`;
  const gap = '<table:table-cell/>';
  // Past GATHER_ROWS rows starting at column B, one with a value in A: the stream restarts as a whole read.
  for (const late of [false, true]) {
    const rows = [row(`${gap}${num(0)}${num(0)}`), ...Array.from({ length: 1500 }, (_, i) => row(`${gap}${num(i)}${num(i * 2)}`))];
    if (late) rows.push(row(`${num(-1)}${gap}${num(7)}`));
    const bytes = ods(`<table:table table:name="S">${rows.join('')}</table:table>`);
    const whole = openWorkbook(inputFile('s.ods', bytes), contextOf(), { hasHeader: true }).table();
    const streamed = openWorkbook(inputFile('s.ods', bytes), contextOf(), { hasHeader: true }).stream((s) => {
      const out: unknown[][] = [];
      for (const batch of s) out.push(...batch.rows());
      return { header: s.header, rows: out };
    });
    assert.deepEqual(streamed, { header: whole.header, rows: whole.rows() }, `late: ${late}`);
    assert.equal(whole.rows().length, late ? 1501 : 1500);
  }
});

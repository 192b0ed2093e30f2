// Why the vCard reader is ical.js (2.2.1, Mozilla's, used by Thunderbird) line by line, with cards, folding and
// 2.1 encodings handled around it: the two parsers measured on the same real-world file. `vcf` (2.1.2) splits N
// at an escaped `\;` and unescapes nothing; ical.js parses escapes and parameters right but refuses a whole file
// for one 2.1 parameter without a name, a card left open or a line outside the cards, and its own vCard text
// keeps `\;`. The reader must read every card of this file as the table below.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ICAL from 'ical.js';
import vCard from 'vcf';
import type { FormatContext } from '../../tools/formats/model.ts';
import { readVcards, vcardTable } from '../../tools/formats/vcard/read.ts';

const ctx: Pick<FormatContext, 'message'> = { message: () => {} };
const t = (k: string) => k.replace('names.vcard-', '');

const FILE = [
  'BEGIN:VCARD',
  'VERSION:3.0',
  'N:Pé\\;rez;Jo\\,sé;;;',
  'FN:José\\; Pérez',
  'NOTE:a\\, b\\; c\\\\ d',
  'END:VCARD',
].join('\r\n') + '\r\n';
const REAL = FILE + ['BEGIN:VCARD', 'VERSION:2.1', 'FN:Ana', 'TEL;CELL;HOME:600', 'END:VCARD', 'BEGIN:VCARD', 'FN:Sin cierre', ''].join('\r\n');

test('vcard reader: reads what vcf and ical.js get wrong or refuse', () => {
  const read = readVcards(REAL, ctx);
  assert.deepEqual(vcardTable(read, t, 'Contactos'), {
    name: 'Contactos',
    header: ['fn', 'given', 'family', 'tel-cell', 'note'],
    rows: [
      ['José; Pérez', 'Jo,sé', 'Pé;rez', null, 'a, b; c\\ d'],
      ['Ana', null, null, '600', null],
      ['Sin cierre', null, null, null, null],
    ],
  });

  // vcf: N split at the escaped semicolon, escapes left in.
  const [card] = vCard.parse(FILE) as { toJSON(): [string, [string, object, string, unknown][]] }[];
  const props = card.toJSON()[1];
  assert.deepEqual(props.find((p) => p[0] === 'n')?.[3], ['Pé\\', 'rez', 'Jo\\,sé', '', '', '']);
  assert.equal(props.find((p) => p[0] === 'note')?.[3], 'a\\, b\\; c\\\\ d');

  // ical.js: right on the 3.0 card but for `\;` in text, and refuses the whole real file.
  const parsed = ICAL.parse(FILE) as [string, [string, object, string, unknown][]];
  assert.equal(parsed[1].find((p) => p[0] === 'note')?.[3], 'a, b\\; c\\ d');
  assert.deepEqual(parsed[1].find((p) => p[0] === 'n')?.[3], ['Pé;rez', 'Jo,sé', '', '', '']);
  assert.throws(() => ICAL.parse(REAL));
});

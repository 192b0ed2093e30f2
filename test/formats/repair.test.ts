// Damage a fast reader knows costs no data (FormatError.repairable) gets the fallback's chance before the file is
// refused (book.ts), as Excel repairs such files: the fallback's read is used, with a warning naming the file and
// where the damage was. Damage that cuts data, or a file the fallback cannot read either, stays invalid_file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Book, type BookReader } from '../../tools/formats/book.ts';
import { damaged, repairableDamage, FormatError } from '../../tools/formats/errors.ts';
import { gridTable } from '../../tools/formats/grid.ts';
import { openZip } from '../../tools/formats/zip/read.ts';
import { contextOf, readTables } from '../helpers/read-tables.ts';
import { inputFile } from '../helpers/run-tool.ts';
import { rawEntries, rawZip, row, worksheet } from '../helpers/xlsx-package.ts';

type Msg = [string, string, Record<string, string | number>?];
const spec = { sheets: [{ name: 'Hoja', xml: row(1, '<c r="A1" t="inlineStr"><is><t>id</t></is></c>') + row(2, '<c r="A2"><v>7</v></c>') }] };

test('an OOXML package with a part twice, in two cases, same bytes: read by SheetJS with the repair named', () => {
  const entries = rawEntries(spec);
  const sheet = entries.find((e) => e.name === 'xl/worksheets/sheet1.xml');
  assert.ok(sheet);
  const bytes = rawZip([...entries, { ...sheet, name: 'xl/worksheets/Sheet1.xml' }]);
  assert.throws(() => openZip(bytes), (err: FormatError) => err.repairable === true && /differing only in case/.test(err.message));
  const msgs: Msg[] = [];
  const { tables } = readTables(inputFile('gemelas.xlsx', bytes), { hasHeader: true, sheets: 'all', detectTypes: true, report: (...m) => void msgs.push(m) });
  assert.deepEqual(tables.map((t) => [t.header, t.rows]), [[['id'], [[7]]]]);
  assert.deepEqual(msgs.filter((m) => m[1].startsWith('read_repaired')), [['warning', 'read_repaired_at', { name: 'gemelas.xlsx', where: 'xl/worksheets/Sheet1.xml' }]]);
  // Twins that differ leave the data in doubt: refused by both paths.
  const differ = rawZip([...entries, { name: 'xl/worksheets/Sheet1.xml', data: worksheet('') }]);
  assert.throws(() => openZip(differ), (err: FormatError) => err.repairable !== true);
  for (const reader of [undefined, 'sheetjs' as const]) {
    assert.throws(() => readTables(inputFile('gemelas.xlsx', differ), { hasHeader: true, sheets: 'all', detectTypes: true, reader }), { code: 'invalid_file' });
  }
});

/** A reader of one sheet that gives `rows`, or throws `fail` when opened or read. */
function fake(o: { rows?: unknown[][]; failOpen?: () => Error; failRead?: () => Error }): () => BookReader {
  return () => {
    if (o.failOpen) throw o.failOpen();
    return {
      format: 'xlsx',
      sheets: [{ name: 'S', visibility: 'visible' }],
      table: (_i, read) => {
        if (o.failRead) throw o.failRead();
        return gridTable('S', (o.rows ?? []) as never, read.hasHeader);
      },
    };
  };
}

function readWith(fast: () => BookReader, fallback: () => BookReader) {
  const msgs: Msg[] = [];
  const ctx = contextOf({ report: (...m) => void msgs.push(m) });
  const book = Book.open({ name: 'f.xls', bytes: new Uint8Array(1) }, ctx, { hasHeader: false, detectTypes: true }, 'all', fast, fallback);
  return { rows: book.sheets.map((s) => s.table().rows()), msgs: msgs.map((m) => m[1]), book };
}

test('repairable damage at open or while a sheet is read: the fallback reads it, one warning; neither reads it: the fast verdict', () => {
  const good = fake({ rows: [['a', 1]] });
  const atOpen = readWith(fake({ failOpen: () => repairableDamage('leftover bytes') }), good);
  assert.deepEqual(atOpen.rows, [[['a', 1]]]);
  assert.deepEqual(atOpen.msgs, ['read_repaired']);
  assert.equal(atOpen.book.readBy, 'sheetjs');
  const inRead = readWith(fake({ failRead: () => repairableDamage('row index past the sheet', 'Sheet1!A70000') }), good);
  assert.deepEqual(inRead.rows, [[['a', 1]]]);
  assert.deepEqual(inRead.msgs, ['read_repaired_at']);
  // The fallback fails too: the file is refused with the fast reader's verdict, and no repair is announced.
  for (const where of ['open', 'read'] as const) {
    const verdict = repairableDamage(`fast: ${where}`);
    const fast = where === 'open' ? fake({ failOpen: () => verdict }) : fake({ failRead: () => verdict });
    assert.throws(() => readWith(fast, fake({ failOpen: () => damaged('fallback: no sheet') })), (err) => err === verdict && verdict.file === 'f.xls');
  }
  // Damage that cuts data is never handed over.
  let asked = false;
  const cut = damaged('XML cut short');
  assert.throws(() => readWith(fake({ failRead: () => cut }), () => ((asked = true), fake({ rows: [] })())), (err) => err === cut);
  assert.equal(asked, false);
});

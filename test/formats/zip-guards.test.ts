// The container guards of every ZIP workbook (tools/formats/zip/read.ts and the guards of fallback.ts): a directory that lies,
// entries that overlap or repeat, too many entries, encryption, bombs. The same bytes are tried under .xlsx
// (fast path) and under .ods/.xls (the guards run before SheetJS): both must refuse them alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import * as XLSX from 'xlsx';
import { readTables } from '../helpers/read-tables.ts';
import { inflateEntry, InflateBudget, MAX_ENTRIES, openZip, RATIO_FREE_BYTES } from '../../tools/formats/zip/read.ts';
import { inputFile } from '../helpers/run-tool.ts';
import { throwsVerdict } from '../helpers/tool-error.ts';
import { rawEntries, rawZip, row, worksheet, type RawEntry } from '../helpers/xlsx-package.ts';

const spec = { sheets: [{ name: 'Hoja', xml: row(1, '<c r="A1" t="inlineStr"><is><t>id</t></is></c>') + row(2, '<c r="A2"><v>7</v></c>') }] };
const SHEET = 'xl/worksheets/sheet1.xml';

/** The package's entries with the named one changed. */
const withEntry = (name: string, change: (e: RawEntry) => RawEntry) => rawEntries(spec).map((e) => (e.name === name ? change(e) : e));

const read = (name: string, bytes: Uint8Array, reader?: 'sheetjs') => readTables(inputFile(name, bytes), { hasHeader: true, sheets: 'all', detectTypes: true, option: 'files', reader });

/**
 * Refused with `code` (and `messageKey` when given) by every path (the fast reader, and SheetJS after the guards
 * in front of it), naming the file and the option.
 */
function refused(bytes: Uint8Array, code: string, messageKey?: string, paths: ('fast' | 'sheetjs')[] = ['fast', 'sheetjs']) {
  const name = 'libro.xlsx';
  for (const path of paths) {
    assert.throws(
      () => read(name, bytes, path === 'sheetjs' ? 'sheetjs' : undefined),
      (err: { code: string; detail: { option: string; messageKey?: string; params: Record<string, unknown> } }) => {
        assert.equal(err.code, code, path);
        assert.equal(err.detail.option, 'files');
        assert.equal(err.detail.params.name, name);
        if (messageKey) assert.equal(err.detail.messageKey, messageKey, path);
        return true;
      },
    );
  }
}

test('zip: the hand-written package is read through both paths (the writer itself is sound)', () => {
  const bytes = rawZip(rawEntries(spec));
  for (const reader of [undefined, 'sheetjs'] as const) assert.deepEqual(read('libro.xlsx', bytes, reader).tables[0].rows, [[7]], reader);
  const stored = rawZip(rawEntries(spec).map((e) => ({ ...e, method: 0 })));
  assert.deepEqual(read('libro.xlsx', stored).tables[0].rows, [[7]]);
});

test('zip: a central directory that disagrees with the local headers or with itself is invalid_file', () => {
  // Each with the check that must catch it: the verdict alone could come from a later, unrelated check.
  const lies: [RegExp, Uint8Array][] = [
    [/local sizes disagree/, rawZip(withEntry(SHEET, (e) => ({ ...e, claims: { size: 10 }, localClaims: { size: Buffer.byteLength(String(e.data)) } })))],
    [/local name disagrees/, rawZip(withEntry(SHEET, (e) => ({ ...e, localClaims: { name: 'xl/worksheets/otra.xml' } })))],
    [/local header disagrees/, rawZip(withEntry(SHEET, (e) => ({ ...e, localClaims: { method: 0 } })))],
    [/central directory entry missing/, rawZip(rawEntries(spec), { count: rawEntries(spec).length + 1 })],
    [/past the directory/, rawZip(rawEntries(spec), { cdSizeDelta: -10 })],
    [/local header missing/, rawZip(withEntry(SHEET, (e) => ({ ...e, offset: 10_000_000 })))],
  ];
  for (const [reason, bytes] of lies) {
    assert.throws(() => openZip(bytes), { name: 'FormatError', message: reason });
    refused(bytes, 'invalid_file');
  }
});

test('zip: entries that overlap, or repeat a name (ignoring case), are invalid_file', () => {
  // A stored entry whose (consistent) sizes run over the next entry's header: one byte range read twice.
  const overlap = rawEntries(spec);
  overlap.unshift({ name: 'xl/media/a.bin', data: 'AAAA', method: 0, claims: { size: 60, compressedSize: 60 } });
  assert.throws(() => openZip(rawZip(overlap)), { message: /overlapping/ });
  refused(rawZip(overlap), 'invalid_file');
  const twice = [...rawEntries(spec), { name: 'XL/Worksheets/Sheet1.xml', data: worksheet('') }];
  assert.throws(() => openZip(rawZip(twice)), { message: /duplicate/ });
  refused(rawZip(twice), 'invalid_file');
});

test(`zip: more than ${MAX_ENTRIES} entries is invalid_file, before any is inflated`, () => {
  const many = [...rawEntries(spec), ...Array.from({ length: MAX_ENTRIES }, (_, i) => ({ name: `x/${i}`, data: '', method: 0 }))];
  assert.throws(() => openZip(rawZip(many)), { message: /more than/ });
  refused(rawZip(many), 'invalid_file');
  // At the bound it is read.
  assert.equal(read('libro.xlsx', rawZip(many.slice(0, MAX_ENTRIES))).tables.length, 1);
});

test('zip: only stored and deflated entries; a damaged stream, a wrong CRC or a wrong size is invalid_file', () => {
  const cases: [string, Uint8Array][] = [
    ['bzip2', rawZip(withEntry(SHEET, (e) => ({ ...e, claims: { method: 12 } })))],
    ['crc', rawZip(withEntry(SHEET, (e) => ({ ...e, claims: { crc: 12345 } })))],
    ['longer than claimed', rawZip(withEntry(SHEET, (e) => ({ ...e, claims: { size: 20 } })))],
    ['shorter than claimed', rawZip(withEntry(SHEET, (e) => ({ ...e, claims: { size: Buffer.byteLength(String(e.data)) + 1 } })))],
    ['damaged deflate', rawZip(withEntry(SHEET, (e) => ({ ...e, rawData: new Uint8Array(200).fill(0xff) })))],
    ['cut deflate', rawZip(withEntry(SHEET, (e) => ({ ...e, rawData: deflateRawSync(Buffer.from(String(e.data))).subarray(0, 40) })))],
  ];
  for (const [label, bytes] of cases) {
    assert.throws(() => read('libro.xlsx', bytes), { code: 'invalid_file' }, label);
    refused(bytes, 'invalid_file');
  }
});

/** Every way an entry inflates: whole, streamed by native zlib, streamed by fflate. */
const budgets = () => [new InflateBudget(undefined, Infinity), new InflateBudget(undefined, 0, 'zlib'), new InflateBudget(undefined, 0, 'fflate')];

test('zip: a damaged, cut, longer or shorter deflate stream is invalid_file whichever way it inflates', () => {
  const xml = Buffer.from(worksheet(Array.from({ length: 5000 }, (_, i) => row(i + 1, `<c r="A${i + 1}"><v>${i}</v></c>`)).join('')));
  const packed = deflateRawSync(xml);
  const damagedStream = Buffer.from(packed);
  for (let k = 100; k < 140; k++) damagedStream[k] ^= 0xa5;
  const cases: [string, RawEntry][] = [
    ['damaged', { name: SHEET, rawData: damagedStream, data: xml }],
    ['cut', { name: SHEET, rawData: packed.subarray(0, packed.length >> 1), data: xml }],
    ['longer than claimed', { name: SHEET, data: xml, claims: { size: xml.length - 1 } }],
    ['shorter than claimed', { name: SHEET, data: xml, claims: { size: xml.length + 1 } }],
    ['empty stream', { name: SHEET, rawData: new Uint8Array(0), data: xml }],
  ];
  for (const [label, entry] of cases) {
    const zip = openZip(rawZip(withEntry(SHEET, () => entry)));
    for (const budget of budgets()) {
      throwsVerdict(() => inflateEntry(zip, zip.get(SHEET)!, budget, () => {}), { code: 'invalid_file' }, `${label}, ${budget.wholeEntryBytes} ${budget.streamer}`);
    }
  }
  // And the honest entry comes out the same every way.
  const zip = openZip(rawZip(withEntry(SHEET, () => ({ name: SHEET, data: xml }))));
  for (const budget of budgets()) {
    const parts: Buffer[] = [];
    inflateEntry(zip, zip.get(SHEET)!, budget, (c) => void parts.push(Buffer.from(c)));
    assert.ok(Buffer.concat(parts).equals(xml), `${budget.wholeEntryBytes} ${budget.streamer}`);
  }
});

test('zip: an encrypted entry, or an OLE EncryptedPackage, is a password-protected file', () => {
  refused(rawZip(withEntry(SHEET, (e) => ({ ...e, claims: { flags: 0x0801 } }))), 'invalid_file', 'error-details.password');
  const cfb = XLSX.CFB.utils.cfb_new();
  XLSX.CFB.utils.cfb_add(cfb, '/EncryptionInfo', new Uint8Array(64));
  XLSX.CFB.utils.cfb_add(cfb, '/EncryptedPackage', new Uint8Array(4096));
  const ole = new Uint8Array(XLSX.CFB.write(cfb, { type: 'array' }) as number[]);
  refused(ole, 'invalid_file', 'error-details.password');
});

/** A sheet part of `mb` MB of blanks between its elements: valid XML, deflated at about 1000:1. */
function blankSheet(mb: number): RawEntry {
  const head = '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1"><v>1</v></c></row>';
  const text = Buffer.concat([Buffer.from(head), Buffer.alloc(mb * 1024 * 1024, 0x20), Buffer.from('</sheetData></worksheet>')]);
  return { name: SHEET, data: new Uint8Array(text) };
}

test('zip: a bomb is too_complex once it passes the ratio bound, through both paths', () => {
  const bomb = rawZip(withEntry(SHEET, () => blankSheet(2 * (RATIO_FREE_BYTES >> 20))));
  refused(bomb, 'too_complex', 'error-details.zip-ratio');
});

test('zip: an honest high ratio (a sheet of repeated text, over 300:1) still reads', () => {
  const text = 'Calle Mayor 1, Madrid; '.repeat(1400);
  const rows = Array.from({ length: 700 }, (_, i) => row(i + 1, `<c r="A${i + 1}" t="inlineStr"><is><t>${text}</t></is></c>`)).join('');
  const entries = withEntry(SHEET, (e) => ({ ...e, data: worksheet(rows) }));
  const bytes = rawZip(entries);
  const zip = openZip(bytes);
  const sheet = zip.get(SHEET)!;
  assert.ok(sheet.size > RATIO_FREE_BYTES && sheet.size / sheet.compressedSize > 300, `ratio ${Math.round(sheet.size / sheet.compressedSize)}:1`);
  const t = read('calles.xlsx', bytes).tables[0];
  assert.equal(t.rows.length, 699);
  assert.equal(t.rows[698][0], text);
});

test('zip: no more bytes come out of an entry than its header claims, whole or streamed', () => {
  // The header says 100 KB; the stream holds 2 MB.
  const lie = rawZip(withEntry(SHEET, (e) => ({ ...blankSheet(2), claims: { size: 100 * 1024 } })));
  const zip = openZip(lie);
  for (const budget of budgets()) {
    let seen = 0;
    assert.throws(() => inflateEntry(zip, zip.get(SHEET)!, budget, (c) => void (seen += c.length)), { message: /longer than its header/ });
    assert.ok(seen <= 100 * 1024, `handed out ${seen} bytes`);
  }
  refused(lie, 'invalid_file');
  // A claim past the bound for the whole file is refused before anything is inflated.
  const claim = rawZip(withEntry(SHEET, (e) => ({ ...e, claims: { size: 0xfffffff0 } })));
  refused(claim, 'too_complex', 'error-details.zip-size');
});

test('zip: while streaming, the ratio and the total are counted on the bytes that come out', () => {
  const bomb = rawZip(withEntry(SHEET, () => blankSheet(2 * (RATIO_FREE_BYTES >> 20))));
  const zip = openZip(bomb);
  for (const streamer of ['zlib', 'fflate'] as const) {
    let seen = 0;
    throwsVerdict(
      () => inflateEntry(zip, zip.get(SHEET)!, new InflateBudget(undefined, 0, streamer), (c) => void (seen += c.length)),
      { code: 'too_complex', messageKey: 'error-details.zip-ratio' },
    );
    assert.ok(seen > 0 && seen <= RATIO_FREE_BYTES + 17 * 1024 * 1024, `${streamer}: stopped after ${seen} bytes`);
  }
  // Two honest entries whose sum passes the bound: the second is refused on its claim, the first was counted.
  const budget = new InflateBudget(2 * 1024 * 1024, 0);
  const two = rawZip([...rawEntries(spec), { ...blankSheet(2), name: 'xl/media/b.bin' }]);
  const z2 = openZip(two);
  inflateEntry(z2, z2.get(SHEET)!, budget, () => {});
  throwsVerdict(() => inflateEntry(z2, z2.get('xl/media/b.bin')!, budget, () => {}), { messageKey: 'error-details.zip-size' });
  inflateEntry(z2, z2.get('xl/media/b.bin')!, new InflateBudget(3 * 1024 * 1024, 0), () => {});
});

test('zip: entries the workbook does not reference are never inflated by the fast path', () => {
  // A part that would be a bomb (and a lie) if it were read: the fast path does not touch it; the guards
  // in front of SheetJS, which unzips everything, do.
  const extra = { name: 'xl/media/image1.png', data: 'x', claims: { size: 0xfffffff0 } };
  const bytes = rawZip([...rawEntries(spec), extra]);
  assert.deepEqual(read('libro.xlsx', bytes).tables[0].rows, [[7]]);
  refused(bytes, 'too_complex', 'error-details.zip-size', ['sheetjs']);
});

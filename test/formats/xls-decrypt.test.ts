// .xls encrypted with Excel's default password (tools/formats/xls/decrypt.ts): read as Excel reads them, by the
// fast path and by SheetJS alike; a real password refused as before. The files are in test/fixtures/real-world/
// (their make scripts say who wrote and who encrypted them, and which independent decryptor checked them); the
// corpus test compares their cells with xlrd's, this one the two readers with each other and the refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readXls } from '../../tools/formats/xls/read.ts';
import { biffStream } from '../../tools/formats/xls/cfb.ts';
import { decryptedFile, decryptStream, filePassAt, xorArray, xorVerifier } from '../../tools/formats/xls/decrypt.ts';
import { FormatError } from '../../tools/formats/errors.ts';
import { assertSameBothWays, readAll } from '../helpers/both-readers.ts';
import { biff8, cell, record, RT } from '../helpers/biff8.ts';

const realWorld = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/real-world/${name}`, import.meta.url)));
const expected = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/real-world/${name}.json`, import.meta.url), 'utf8')) as { sheets: { name: string; rows: unknown[][] }[] };
const fast = (bytes: Uint8Array) => readXls(bytes, { sheets: 'all', maxCells: 1e7, file: 'x', report: () => {} });

const isPassword = (err: unknown) => err instanceof FormatError && err.reason === 'password';
const refusedAsPassword = (err: { code?: string; detail?: { messageKey?: string } }) => err.code === 'invalid_file' && err.detail?.messageKey === 'error-details.password';

test('xls default password: RC4 (LibreOffice), RC4 CryptoAPI and XOR (hand-built) read by the fast path as by SheetJS', () => {
  for (const name of ['xls-velvet-rc4.xls', 'xls-velvet-cryptoapi.xls', 'xls-velvet-xor.xls']) {
    const bytes = realWorld(name);
    assert.ok(filePassAt(biffStream(bytes)) > 0, `${name} is encrypted`);
    assertSameBothWays(() => fast(bytes), bytes, name, 'libro.xls');
    const { all } = readAll('libro.xls', bytes, false);
    assert.deepEqual(all.sheetNames, ['Ventas', 'Notas', 'Datos'], name);
    // The first rows as xlrd read them after msoffcrypto-tool (or LibreOffice) decrypted the file.
    const want = expected(name).sheets;
    assert.deepEqual(all.tables[0].rows[1].slice(0, 3), want[0].rows[1].slice(0, 3), name);
    assert.deepEqual(all.tables[0].rows[2][0], 'Груша €', name);
    assert.equal(all.tables[2].rows.length, want[2].rows.length, name);
    assert.deepEqual(all.tables[2].rows.at(-1), want[2].rows.at(-1), name);
  }
});

test('xls default password: BIFF5 XOR goes to SheetJS decrypted', () => {
  const bytes = realWorld('xls-biff5-xor.xls');
  const { all } = readAll('libro.xls', bytes, false);
  const want = expected('xls-biff5-xor.xls').sheets[0].rows;
  assert.equal(all.tables[0].rows.length, want.length);
  assert.deepEqual(all.tables[0].rows[1].slice(0, 2), ['Manzana ñ', 3]);
  assert.deepEqual(all.tables[0].rows.at(-1)?.slice(0, 2), want.at(-1)?.slice(0, 2));
});

test('xls protected against writing only reads as any workbook', () => {
  const bytes = realWorld('xls-write-protected.xls');
  assertSameBothWays(() => fast(bytes), bytes, 'write-protected', 'libro.xls');
  assert.deepEqual(readAll('libro.xls', bytes, false).all.tables[0].rows[1].slice(0, 2), ['Manzana ñ', 3]);
});

test('xls with a password to open is refused as before, by both readers', () => {
  const bytes = realWorld('xls-password.xls');
  assert.throws(() => fast(bytes), isPassword);
  assert.throws(() => decryptedFile(bytes), isPassword);
  assert.throws(() => readAll('libro.xls', bytes, true), refusedAsPassword);
  assert.throws(() => readAll('libro.xls', bytes, true, undefined, 'sheetjs'), refusedAsPassword);
});

test('xls decryption: broken or foreign FILEPASS records are refused as needing a password, never a crash', () => {
  const base = { sheets: [{ name: 'H', records: [cell.rk(0, 0, 1)] }] };
  const cases: [string, number[]][] = [
    ['empty', []],
    ['XOR with another key', [0, 0, 0x12, 0x34, 0x56, 0x78]],
    ['XOR cut short', [0, 0, 0x12]],
    ['RC4 of an unknown version', [1, 0, 9, 0, 9, 0]],
    ['RC4 cut short', [1, 0, 1, 0, 1, 0, 1, 2, 3]],
    ['RC4 with another password', [1, 0, 1, 0, 1, 0, ...new Array(48).fill(7)]],
    ['CryptoAPI cut short', [1, 0, 2, 0, 2, 0, 4, 0, 0, 0, 0xff, 0xff, 0, 0]],
    ['encryption type 7', [7, 0]],
  ];
  for (const [label, payload] of cases) {
    const bytes = biff8({ ...base, extraGlobals: [record(RT.FILEPASS, payload)] });
    assert.throws(() => fast(bytes), isPassword, label);
    assert.throws(() => readAll('libro.xls', bytes, true), refusedAsPassword, label);
  }
  // Not encrypted: nothing to do.
  assert.equal(decryptStream(biffStream(biff8(base))), null);
  const plain = biff8(base);
  assert.equal(decryptedFile(plain), plain);
});

test('xls XOR obfuscation: the verifier and array of [MS-OFFCRYPTO] 2.3.7 for the default password', () => {
  const pw = new Uint8Array(Buffer.from('VelvetSweatshop', 'latin1'));
  // FILEPASS of Excel's XOR files with the default password: key 0xB359, verifier 0x9A0A (make/_biff.py, an
  // implementation in another language, wrote the same, and LibreOffice decrypts its files).
  assert.equal(xorVerifier(pw), 0x9a0a);
  assert.equal(xorArray(pw).length, 16);
  const bytes = realWorld('xls-velvet-xor.xls');
  const at = filePassAt(biffStream(bytes));
  assert.deepEqual([...biffStream(bytes).subarray(at + 4, at + 10)], [0, 0, 0x59, 0xb3, 0x0a, 0x9a]);
});

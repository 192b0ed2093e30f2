import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFiles, decodeBase64, extensionOf } from '../../tools/core/files.ts';
import { safeName, uniqueNames } from '../../tools/core/output.ts';

test('files: base64 is decoded strictly, standard or URL-safe', () => {
  assert.deepEqual([...decodeBase64('aG9sYQ==', 'file')], [...Buffer.from('hola')]);
  assert.deepEqual([...decodeBase64('aG9s\nYQ==', 'file')], [...Buffer.from('hola')]);
  assert.deepEqual([...decodeBase64('-_8', 'file')], [0xfb, 0xff]);
  assert.throws(() => decodeBase64('no es base64!', 'file'), { code: 'invalid_option', detail: { option: 'file', messageKey: 'error-details.base64' } });
});

test('files: extension decides the format, counts are checked', () => {
  assert.equal(extensionOf('Ventas.XLSX'), 'xlsx');
  assert.equal(extensionOf('.hidden'), '');
  const spec = { kind: 'files', formats: ['xlsx', 'csv'], min: 2, max: 3 } as const;
  const f = (name: string) => ({ name, bytes: new Uint8Array(1) });
  assert.throws(() => checkFiles(spec, []), { code: 'missing_file' });
  assert.throws(() => checkFiles(spec, [f('a.csv')]), { code: 'too_few_files', detail: { option: 'files', params: { min: 2 } } });
  assert.throws(() => checkFiles(spec, [f('a.csv'), f('b.csv'), f('c.csv'), f('d.csv')]), { code: 'too_many_files' });
  assert.throws(() => checkFiles(spec, [f('a.csv'), f('b.pdf')]), (e: any) => e.code === 'unsupported_format' && e.detail.option === 'files');
  checkFiles(spec, [f('a.csv'), f('b.XLSX')]);
});

test('output names: no folders, no control characters, at most 100 characters, unique ignoring case', () => {
  assert.equal(safeName('../../etc/passwd.csv'), 'etc_passwd.csv');
  assert.equal(safeName('/abs/name.xlsx'), 'abs_name.xlsx');
  assert.equal(safeName('a\u0000b.csv'), 'a_b.csv');
  assert.equal(safeName('CON.csv'), '_CON.csv');
  assert.equal(safeName('..'), 'file');
  assert.equal(safeName(' .xlsx', 'hoja'), 'hoja.xlsx');
  assert.equal([...safeName('x'.repeat(500) + '.xlsx')].length, 100);
  assert.deepEqual(uniqueNames(['a.csv', 'A.csv', 'a.csv']), ['a.csv', 'A (2).csv', 'a (3).csv']);
});

// Result ZIPs are checked with Python's zipfile (CRCs, sizes, names), not with the library that wrote them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipFiles } from '../../tools/core/output.ts';

const PY = `
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
for i in z.infolist():
    print(i.filename, i.compress_type, i.file_size, i.date_time[0], z.read(i)[:12].decode('latin1').replace('\\r', '\\\\r').replace('\\n', '\\\\n'))
`;

test('zipFiles: text deflated in several pieces, compressed formats stored, empty files, one fixed date; Python reads every CRC', () => {
  const big = new TextEncoder().encode('a;b\r\n'.repeat(600_000)); // 3 MB: several deflate pieces
  const xlsx = new Uint8Array([0x50, 0x4b, 3, 4, 9, 9, 9]);
  const zip = zipFiles(
    [
      { name: 'parte-001.csv', contentType: 'text/csv', bytes: big },
      { name: 'libro.xlsx', contentType: 'x', bytes: xlsx },
      { name: 'vacío.csv', contentType: 'text/csv', bytes: new Uint8Array(0) },
    ],
    'resultado.zip',
  );
  assert.equal(zip.name, 'resultado.zip');
  assert.ok(zip.bytes.length < big.length / 50, `deflated: ${zip.bytes.length} bytes`);
  const dir = mkdtempSync(join(tmpdir(), 'zip-'));
  try {
    writeFileSync(join(dir, 'r.zip'), zip.bytes);
    const out = execFileSync('python3', ['-c', PY, join(dir, 'r.zip')], { encoding: 'utf8' });
    assert.deepEqual(out.trim().split('\n'), [
      'parte-001.csv 8 3000000 2000 a;b\\r\\na;b\\r\\na;',
      'libro.xlsx 0 7 2000 PK\u0003\u0004\t\t\t',
      'vacío.csv 8 0 2000',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

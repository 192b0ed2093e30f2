// Result ZIPs are checked with Python's zipfile (CRCs, sizes, names), not with the library that wrote them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, crc32, deflateRawSync, inflateRawSync } from 'node:zlib';
import { zipFiles } from '../../tools/core/output.ts';
import { crc32Combine, deflatePieces, zipBuilder } from '../../tools/formats/zip/write.ts';

const PY = `
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
for i in z.infolist():
    print(i.filename, i.compress_type, i.file_size, i.date_time[0], z.read(i)[:12].decode('latin1').replace('\\r', '\\\\r').replace('\\n', '\\\\n'))
`;

test('zipFiles: text deflated in several pieces, compressed formats stored, empty files, one fixed date; Python reads every CRC', async () => {
  const big = new TextEncoder().encode('a;b\r\n'.repeat(600_000)); // 3 MB: several deflate pieces
  const xlsx = new Uint8Array([0x50, 0x4b, 3, 4, 9, 9, 9]);
  const zip = await zipFiles(
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

test('zipFiles: text that barely compresses (each piece deflated in several output steps) reads back whole; Python checks the CRC and the bytes', async () => {
  // Seeded letters and digits: a 1 MB piece deflates to ~750 KB, past one async output step (ASYNC_OUT_BYTES).
  let seed = 20261127;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const text = new Uint8Array(2_500_000);
  for (let i = 0; i < text.length; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    text[i] = i % 64 === 63 ? 10 : alphabet.charCodeAt(seed >>> 26);
  }
  const zip = await zipFiles([{ name: 'ruido.csv', contentType: 'text/csv', bytes: text }, { name: 'otro.csv', contentType: 'text/csv', bytes: text.subarray(0, 1000) }], 'r.zip');
  assert.ok(zip.bytes.length > text.length / 2, `barely compressed: ${zip.bytes.length} bytes`);
  const dir = mkdtempSync(join(tmpdir(), 'zip-'));
  try {
    writeFileSync(join(dir, 'r.zip'), zip.bytes);
    const sha = execFileSync('python3', ['-c', 'import sys, zipfile, hashlib; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(hashlib.sha256(z.read("ruido.csv")).hexdigest())', join(dir, 'r.zip')], { encoding: 'utf8' });
    assert.equal(sha.trim(), createHash('sha256').update(text).digest('hex'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('deflatePieces: the deflate stream is byte for byte zlib deflateRaw of each 1 MB piece (sync-flushed, the last finished), and the CRC and size are those of the bytes', async () => {
  let seed = 11;
  const noise = Buffer.from(Array.from({ length: 2_300_000 }, () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24));
  const text = Buffer.from('fecha;importe;ñandú "x"\r\n'.repeat(150_000)); // ~3.9 MB
  for (const [label, bytes] of [['noise', noise], ['text', text], ['exactly one piece', text.subarray(0, 1 << 20)], ['one byte past', text.subarray(0, (1 << 20) + 1)], ['small', Buffer.from('a,b\r\n')], ['empty', Buffer.alloc(0)]] as const) {
    for (const level of [1, 4]) {
      const d = await deflatePieces(bytes, level);
      const expected: Buffer[] = [];
      for (let at = 0; at < bytes.length || at === 0; at += 1 << 20) {
        const last = at + (1 << 20) >= bytes.length;
        expected.push(deflateRawSync(bytes.subarray(at, at + (1 << 20)), { level, finishFlush: last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH }));
      }
      assert.equal(d.pieces.length, expected.length, label);
      d.pieces.forEach((p, i) => assert.ok(Buffer.from(p).equals(expected[i]), `${label}, level ${level}, piece ${i}`));
      assert.deepEqual([d.size, d.crc], [bytes.length, crc32(bytes)], label);
      assert.ok(inflateRawSync(Buffer.concat(d.pieces)).equals(bytes), label);
    }
  }
});

test('zipBuilder.deflatedText: a repeated part deflated once gives the same archive; different texts never share bytes', () => {
  const build = (styles: string, sheet: string) => {
    const zip = zipBuilder();
    zip.deflatedText('xl/styles.xml', 4, styles);
    zip.deflated('xl/worksheets/sheet1.xml', 4, (push) => push(sheet));
    zip.deflatedText('docProps/app.xml', 4, 'ñ€'.repeat(20_000)); // past the memo's size bound: deflated each time
    return zip.finish();
  };
  const first = build('<styleSheet>uno</styleSheet>', '<sheetData>1</sheetData>');
  const again = build('<styleSheet>uno</styleSheet>', '<sheetData>1</sheetData>');
  const other = build('<styleSheet>dos</styleSheet>', '<sheetData>2</sheetData>');
  assert.deepEqual(again, first);
  const dir = mkdtempSync(join(tmpdir(), 'zip-'));
  try {
    const lines = (bytes: Uint8Array, name: string) => {
      writeFileSync(join(dir, name), bytes);
      return execFileSync('python3', ['-c', PY, join(dir, name)], { encoding: 'utf8' }).trim().split('\n');
    };
    assert.deepEqual(lines(again, 'a.zip'), [
      'xl/styles.xml 8 28 2000 <styleSheet>',
      'xl/worksheets/sheet1.xml 8 24 2000 <sheetData>1',
      `docProps/app.xml 8 100000 2000 ${Buffer.from('ñ€'.repeat(3)).subarray(0, 12).toString('latin1')}`,
    ]);
    assert.deepEqual(lines(other, 'b.zip').slice(0, 2), ['xl/styles.xml 8 28 2000 <styleSheet>', 'xl/worksheets/sheet1.xml 8 24 2000 <sheetData>2']);
    const styles = execFileSync('python3', ['-c', 'import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read("xl/styles.xml").decode())', join(dir, 'b.zip')], { encoding: 'utf8' });
    assert.equal(styles.trim(), '<styleSheet>dos</styleSheet>');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('zipBuilder.deflatedHeadLast: a head written last reads first; CRC combined over several pieces; Python checks every CRC', () => {
  const zip = zipBuilder();
  const body = Array.from({ length: 120_000 }, (_, i) => `<row r="${i + 1}"><c><v>${(i * 7919) % 100_003}</v></c></row>`).join(''); // ~5 MB: several pieces
  zip.deflatedHeadLast('xl/worksheets/sheet1.xml', 4, (push) => {
    for (let at = 0; at < body.length; at += 300_000) push(body.slice(at, at + 300_000));
    return '<worksheet><dimension ref="A1:A120000"/>';
  });
  zip.deflatedHeadLast('empty.xml', 4, () => '');
  zip.deflatedHeadLast('head-only.xml', 4, () => 'ñ');
  // Content that never left the staging buffer: head and content are one stream.
  zip.deflatedHeadLast('small.xml', 4, (push) => {
    push('<row>ñ€</row>');
    push(Buffer.from('<row>2</row>'));
    return '<ws>ü';
  });
  // Content under a piece with a head too big to go in front of it in the staging buffer: deflated apart.
  const bigHead = '<cols>' + 'é'.repeat(600_000) + '</cols>';
  zip.deflatedHeadLast('big-head.xml', 4, (push) => {
    push('x'.repeat(900_000));
    return bigHead;
  });
  const dir = mkdtempSync(join(tmpdir(), 'zip-'));
  try {
    writeFileSync(join(dir, 'h.zip'), zip.finish());
    // Bits 1-2 of each entry's flags, local header and central directory: the deflate level it names.
    const script = `${PY}\nimport hashlib, struct\nprint(hashlib.sha256(z.read('xl/worksheets/sheet1.xml')).hexdigest())\n` +
      `raw = open(sys.argv[1], 'rb').read()\n` +
      `print(' '.join('%s:%d/%d%s' % (i.filename, i.flag_bits & 6, struct.unpack('<H', raw[i.header_offset + 6:i.header_offset + 8])[0] & 6, ':%d' % i.compress_size if i.file_size < 1000 else '') for i in z.infolist()))`;
    const out = execFileSync('python3', ['-c', script, join(dir, 'h.zip')], { encoding: 'utf8' }).trim().split('\n');
    const whole = '<worksheet><dimension ref="A1:A120000"/>' + body;
    assert.deepEqual(out, [
      `xl/worksheets/sheet1.xml 8 ${Buffer.byteLength(whole)} 2000 <worksheet><`,
      'empty.xml 8 0 2000 ',
      `head-only.xml 8 2 2000 ${Buffer.from('ñ').toString('latin1')}`,
      `small.xml 8 ${Buffer.byteLength('<ws>ü<row>ñ€</row><row>2</row>')} 2000 ${Buffer.from('<ws>ü<row>ñ€</row><row>2</row>').subarray(0, 12).toString('latin1')}`,
      `big-head.xml 8 ${Buffer.byteLength(bigHead) + 900_000} 2000 <cols>${Buffer.from('é'.repeat(3)).toString('latin1')}`,
      createHash('sha256').update(whole).digest('hex'),
      // Entries deflated whole and small are deflated at level 1 ("super fast", 6), and say so; the others at
      // the level asked for (4: "fast", 4).
      [
        'xl/worksheets/sheet1.xml:4/4',
        `empty.xml:6/6:${deflateRawSync('', { level: 1 }).length}`,
        `head-only.xml:6/6:${deflateRawSync('ñ', { level: 1 }).length}`,
        `small.xml:6/6:${deflateRawSync('<ws>ü<row>ñ€</row><row>2</row>', { level: 1 }).length}`,
        'big-head.xml:4/4',
      ].join(' '),
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('crc32Combine: the CRC-32 of A then B, from the CRCs of each, for lengths from 0 to past 2^32 bits', () => {
  let seed = 7;
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24));
  for (const [a, b] of [[0, 0], [1, 0], [0, 1], [3, 5], [1000, 1], [17, 65_537], [5, 600_001]]) {
    const x = bytes(a);
    const y = bytes(b);
    assert.equal(crc32Combine(crc32(x), crc32(y), b), crc32(Buffer.concat([x, y])), `${a} + ${b}`);
  }
  // 600 MB of zeros (past 2^32 bits): the combined CRC equals zlib's running CRC over the same bytes.
  const zeros = Buffer.alloc(1 << 20);
  let running = crc32(Buffer.from('head'));
  for (let i = 0; i < 600; i++) running = crc32(zeros, running);
  let zerosCrc = 0;
  for (let i = 0; i < 600; i++) zerosCrc = crc32(zeros, zerosCrc);
  assert.equal(crc32Combine(crc32(Buffer.from('head')), zerosCrc, 600 * (1 << 20)), running);
});

test('A download of several files: each file is deflated as the tool makes it (from the second on) and the ZIP holds exactly the files an inline run gives; Python checks every CRC', async () => {
  const { runTool, inputFile } = await import('../helpers/run-tool.ts');
  const splitByColumn = (await import('../../tools/merge-split/split-by-column.ts')).default;
  const splitRows = (await import('../../tools/merge-split/split-rows.ts')).default;
  // 3 groups, one past a deflate piece (1 MB), with UTF-8 text and quotes kept as written.
  const rows = ['zona,texto,n'];
  for (let i = 0; i < 120_000; i++) rows.push(`${['norte', 'sur', 'año'][i % 3]},"dijo ""hola"" ñandú ${i}",${i * 1.5}`);
  const input = inputFile('datos.csv', rows.join('\r\n') + '\r\n');
  const dir = mkdtempSync(join(tmpdir(), 'zip-'));
  try {
    // split-rows names its parts as they are cut (the count is known), split-by-column after grouping.
    for (const [tool, opts, parts] of [[splitByColumn, { column: 'zona', format: 'csv' }, 3], [splitRows, { 'rows-per-file': 50_000, format: 'csv' }, 3]] as const) {
      const inline = await runTool(tool as never, [input], opts);
      const download = await runTool(tool as never, [input], opts, { download: true });
      assert.equal(inline.files.length, parts);
      assert.equal(download.files.length, 1);
      assert.ok(inline.files[0].bytes.length > 1 << 20, 'one part spans several deflate pieces');
      writeFileSync(join(dir, 'd.zip'), download.files[0].bytes);
      const script = 'import sys, zipfile, hashlib\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nfor i in z.infolist(): print(i.filename, i.compress_type, hashlib.sha256(z.read(i)).hexdigest())';
      const out = execFileSync('python3', ['-c', script, join(dir, 'd.zip')], { encoding: 'utf8' }).trim().split('\n');
      assert.deepEqual(out, inline.files.map((f) => `${f.name} 8 ${createHash('sha256').update(f.bytes).digest('hex')}`));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

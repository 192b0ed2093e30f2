// The record scan in WebAssembly (csv/records.wat) against the JavaScript loop of csv/records.ts, which is the
// grammar's reference and what runs where the module cannot: the same records, field offsets, flags, counts
// and plain quotes, on generated CSVs cut into windows of every small size (so that records, quoted fields,
// CRLFs and final delimiters fall across window ends) and on files longer than a real window.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scanRecords, type Scan } from '../../tools/formats/csv/records.ts';
import { WINDOW, windowScanner, type WindowScanner } from '../../tools/formats/csv/records-wasm.ts';
import { generator } from '../helpers/hard-csv.ts';

const module = windowScanner(44);

/** The module's scan with windows of at most `size` bytes. */
const windowsOf =
  (size: number): WindowScanner =>
  (b, from, to, _last, d) => {
    const end = Math.min(to, from + size);
    return module!(b, from, end, end === b.length, d);
  };

/** The parts of a scan a reader uses, as plain values. */
function plain(s: Scan) {
  return {
    size: s.size,
    used: s.used,
    starts: [...s.starts.subarray(0, s.size)],
    ends: [...s.ends.subarray(0, s.size)],
    counts: [...s.counts.subarray(0, s.size)],
    flags: [...s.flags.subarray(0, s.size)],
    literal: [...s.literal].sort((a, b) => a - b),
    fieldAt: s.fieldAt && [...s.fieldAt],
    firsts: s.firsts && [...s.firsts.subarray(0, s.size)],
  };
}

test('the module runs here (WebAssembly with SIMD), so the tests below compare it with the loop', () => {
  assert.ok(module, 'records.wasm did not load: WebAssembly SIMD missing?');
});

test('record scan: the module gives what the loop gives, on 3,000 generated CSVs cut into windows of 1 to 40 bytes', () => {
  const next = generator(20261127);
  for (let t = 0; t < 3000; t++) {
    const b = Buffer.from(next());
    for (const d of [0x2c, 0x3b, 0x09, 0x7c]) {
      const want = plain(scanRecords(b, d, null));
      for (const size of [1, 2, 3, 5, 8, 16, 17, 40]) {
        assert.deepEqual(plain(scanRecords(b, d, windowsOf(size))), want, `${JSON.stringify(b.toString('latin1'))} delimiter ${d} windows of ${size}`);
      }
    }
  }
});

test('record scan: the same on texts built around the window ends — quotes, CRLF and delimiters at every offset', () => {
  const pieces = ['a', '"', '""', ',', '\r', '\n', '\r\n', 'ñ', '"x"', '"a,b"', '"a""b"', '"q"t', 'x"y', ''];
  let s = 7;
  const rnd = () => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (let t = 0; t < 4000; t++) {
    let text = '';
    for (let k = Math.floor(rnd() * 12); k > 0; k--) text += pieces[Math.floor(rnd() * pieces.length)];
    const b = Buffer.from(text, 'utf8');
    const want = plain(scanRecords(b, 0x2c, null));
    for (let size = 1; size <= Math.max(1, b.length); size++) {
      assert.deepEqual(plain(scanRecords(b, 0x2c, windowsOf(size))), want, `${JSON.stringify(text)} windows of ${size}`);
    }
  }
});

test('record scan: the same across real windows — long files, records and quoted fields longer than a window, a quote that never closes', () => {
  const row = (i: number) => `${i},Nuria Castaño,2022-05-20,${i * 7.5},true,"Pedido ${i}, entrega ""urgente""",x\r\n`;
  const rows = Array.from({ length: 3000 }, (_, i) => row(i)).join('');
  const texts = [
    rows,
    // A record longer than a window (its field offsets no longer fit 16 bits: none kept for the file).
    rows + 'a,' + 'b'.repeat(WINDOW + 10) + ',c\n' + rows,
    // A quoted field longer than a window, with line ends inside.
    rows + '"' + 'x\n'.repeat(WINDOW) + '",y\n' + rows,
    // A quote that never closes: read as a plain character, with every record after it.
    rows + 'a,"b\n' + rows.replaceAll('"', ''),
    rows + 'last,,',
    rows.replaceAll('\r\n', '\r'),
  ];
  for (const text of texts) {
    const b = Buffer.from(text, 'utf8');
    assert.deepEqual(plain(scanRecords(b, 0x2c, module)), plain(scanRecords(b, 0x2c, null)));
  }
});

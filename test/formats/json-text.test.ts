// excel-to-json's two writers: from a CSV's bytes (csvJsonBytes) and from typed rows (jsonBytes). On generated
// CSVs, the first must give exactly the bytes the second gives for readCsv's typed table, in every layout;
// and the second is JSON.stringify's layout (test/tools/convert/excel-to-json.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readCsv } from '../../tools/formats/csv/read.ts';
import { readCsvRecords } from '../../tools/formats/csv/records.ts';
import { csvJsonBytes, jsonBytes, type Layout } from '../../tools/formats/json/write.ts';
import { generator } from '../helpers/hard-csv.ts';
import { inputFile } from '../helpers/run-tool.ts';

test('csvJsonBytes: the bytes jsonBytes writes for the typed table, on 1,500 generated CSVs in every layout', () => {
  const next = generator(5);
  let compared = 0;
  for (let t = 0; t < 1500; t++) {
    const file = inputFile('f.csv', next());
    const hasHeader = t % 2 === 0;
    let src;
    try {
      src = readCsvRecords(file, { hasHeader });
    } catch {
      continue;
    }
    const { table } = readCsv(file, { hasHeader, detectTypes: true });
    const label = JSON.stringify(Buffer.from(file.bytes).toString('latin1'));
    const width = src.width;
    const keys = Array.from({ length: width }, (_, i) => `k${i}"\\${i}`);
    for (const pretty of [true, false]) {
      for (const layout of [{ keys, skipEmpty: false }, { keys, skipEmpty: true }, { keys: null, skipEmpty: false }]) {
        const o: Layout = { pretty, width, ...layout };
        const titles = layout.keys === null && table.header ? table.header : null;
        const rows = titles ? [titles, ...table.rows] : table.rows;
        const want = Buffer.from(jsonBytes(rows.length, (r) => rows[r], o)).toString();
        assert.equal(Buffer.from(csvJsonBytes(src, o, titles)).toString(), want, label);
      }
    }
    compared++;
  }
  assert.ok(compared > 1000, `only ${compared} files compared`);
});

test('csvJsonBytes: fields longer than the escaping block (quoted and not, escapes on the block edges)', () => {
  const long = (n: number) => Array.from({ length: n }, (_, i) => (i % 16_384 === 16_383 ? '\\' : i % 997 === 0 ? '\u0001' : i % 5 === 0 ? 'ñ' : 'x')).join('');
  const text = `a|b\n${long(40_000)}|"${long(50_000).replaceAll('x', '"')}"\nx${long(16_383)}|"${'"'.repeat(32_768)}"\n`;
  const file = inputFile('l.csv', text);
  const src = readCsvRecords(file, { hasHeader: true });
  const { table } = readCsv(file, { hasHeader: true, detectTypes: true });
  const o: Layout = { pretty: true, width: 2, keys: ['a', 'b'], skipEmpty: false };
  assert.equal(Buffer.from(csvJsonBytes(src, o, null)).toString(), Buffer.from(jsonBytes(table.rows.length, (r) => table.rows[r], o)).toString());
});

test('csvJsonBytes: numbers, boolean words and days copied from the bytes type as detectType types them (every form at the edge of the copy)', () => {
  const values = ['0', '-0', '00', '-00', '007', '5', '-5', '0.5', '-0.5', '.5', '-.5', '5.', '1.50', '1.0', '10', '100.25', '0.000001', '0.0000001', '-0.000001', '1.0000001',
    '123456789012345', '1234567890123456', '-123456789012345', '0.123456789012345', '0.1234567890123456', '12345678.1234567', '12345678.12345678', '1-2', '1.2.3', '12a', '-', '--1', '1e5', '0x1', '1,5', '+1',
    'true', 'false', 'TRUE', 'False', 'truex', 'tru', 'verdadero', 'falso', 'fals', 'trueish',
    '2024-02-29', '2023-02-29', '1900-02-29', '2000-02-29', '1900-01-01', '1899-12-30', '1899-12-31', '0999-01-01', '2024-13-01', '2024-00-10', '2024-04-31', '2024-04-30', '2024-12-00',
    '2024-1-01', '2024-01-1x', '2024/01/01', '9999-12-31', '2024-01-01 10:00', '31/12/2023'];
  for (const delim of [',', ';']) {
    const text = 'v' + delim + 'w\n' + values.map((v) => `${v}${delim}${v}x`).join('\n') + '\n' + values.join(delim) + '\n';
    const file = inputFile('n.csv', text);
    const src = readCsvRecords(file, { hasHeader: true });
    const { table } = readCsv(file, { hasHeader: true, detectTypes: true });
    for (const pretty of [true, false]) {
      const o: Layout = { pretty, width: src.width, keys: null, skipEmpty: false };
      const want = Buffer.from(jsonBytes(table.rows.length, (r) => table.rows[r], o)).toString();
      assert.equal(Buffer.from(csvJsonBytes(src, o, null)).toString(), want);
    }
    // The comparison means something: numbers came out as numbers, the rest as text (with `;`, no value splits).
    if (delim === ',') continue;
    const last = JSON.parse(Buffer.from(csvJsonBytes(src, { pretty: false, width: src.width, keys: null, skipEmpty: false }, null)).toString()).at(-1);
    assert.equal(last[values.indexOf('0.5')], 0.5);
    assert.equal(last[values.indexOf('-0')], 0);
    assert.equal(last[values.indexOf('007')], '007');
    assert.equal(last[values.indexOf('0.0000001')], 1e-7);
    assert.equal(last[values.indexOf('1234567890123456')], '1234567890123456');
    assert.equal(last[values.indexOf('true')], true);
    assert.equal(last[values.indexOf('TRUE')], true);
    assert.equal(last[values.indexOf('2024-02-29')], '2024-02-29');
    assert.equal(last[values.indexOf('1899-12-30')], '00:00:00');
    assert.equal(last[values.indexOf('2023-02-29')], '2023-02-29');
  }
});

test('csvJsonBytes: texts copied a word at a time, with escapes, quotes and multibyte characters at every offset; keys of every length', () => {
  let s = 7;
  const rnd = () => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const plain = ['a', 'b', 'xyz', ' ', 'ñ', '€', '😀', '~', '{', '0', '-', '.'];
  const special = ['"', '\\', '\u0001', '\t', '\u001f', '\n', '\r', ',', ';', '|', '\u007f'];
  // Up to 40 characters, an escaped one now and then, so that one falls at every offset of a 4-byte word.
  const textOf = () => {
    let v = pick(['a', 'ñ', 'Z', '😀']);
    for (let n = Math.floor(rnd() * 40); n > 0; n--) v += rnd() < 0.12 ? pick(special) : pick(plain);
    return v;
  };
  for (const delim of [',', ';', '\t', '|']) {
    for (let t = 0; t < 40; t++) {
      const width = 1 + Math.floor(rnd() * 6);
      const lines: string[] = [];
      for (let r = 0; r < 1 + Math.floor(rnd() * 12); r++) {
        const fields: string[] = [];
        for (let c = 0; c < width; c++) {
          const m = rnd();
          const v = textOf();
          // Quoted (the quotes doubled, sometimes text after the closing quote), or unquoted when it may be.
          if (m < 0.5 || /["\n\r]/.test(v) || v.includes(delim)) fields.push('"' + v.replaceAll('"', '""') + '"' + (m < 0.1 ? pick(['x', 'ñ', '\\']) : ''));
          else if (m < 0.8) fields.push(v);
          else fields.push(pick(['12', '-0.5', '2024-02-29', 'true', '123456789012345', '']));
        }
        lines.push(fields.join(delim));
      }
      // Numbers and days last in a file without a final line end: copied where the file ends.
      const text = lines.join('\n') + delim + pick(['7', '2024-02-29', '1.25', 'false']) + (rnd() < 0.5 ? '\n' : '');
      const file = inputFile('w.csv', text);
      const src = readCsvRecords(file, { hasHeader: false });
      const { table } = readCsv(file, { hasHeader: false, detectTypes: true });
      const keys = Array.from({ length: src.width }, (_, i) => 'ñ😀k"'.slice(0, i % 5) + 'x'.repeat((t + i) % 9) + i);
      for (const o of [{ pretty: true, keys, skipEmpty: false }, { pretty: false, keys, skipEmpty: true }, { pretty: true, keys: null, skipEmpty: false }]) {
        const layout: Layout = { ...o, width: src.width };
        const want = Buffer.from(jsonBytes(table.rows.length, (r) => table.rows[r], layout)).toString();
        assert.equal(Buffer.from(csvJsonBytes(src, layout, null)).toString(), want, JSON.stringify(text));
      }
      // JSON reads the texts back as readCsv read them.
      const back = JSON.parse(Buffer.from(csvJsonBytes(src, { pretty: false, keys: null, skipEmpty: false, width: src.width }, null)).toString());
      const texts = (rows: readonly (readonly unknown[])[]) => rows.flatMap((row, r) => row.filter((_, i) => typeof table.rows[r][i] === 'string'));
      assert.deepEqual(texts(back), texts(table.rows));
    }
  }
});

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

// The records path (CSV to CSV without a table) against the table path it replaces in split-rows and
// split-by-column: readCsv without typing then writeCsv. On generated CSVs full of what makes CSV hard —
// quoted and unquoted fields, doubled quotes, quotes in the middle or after a closing quote, delimiters and
// line ends inside quotes, CR/LF/CRLF mixes, ragged and blank rows, BOMs, UTF-16, Windows-1252, stray bytes —
// both must give the same bytes, rows, titles, messages and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readCsv } from '../../tools/formats/csv/read.ts';
import { writeCsv } from '../../tools/formats/csv/write.ts';
import { readCsvRecords, type CsvRecords } from '../../tools/formats/csv/records.ts';
import { RecordTable } from '../../tools/formats/csv/book.ts';
import { csvWriter } from '../../tools/formats/csv/write.ts';
import type { Written } from '../../tools/formats/model.ts';

/**
 * The data records `partOf` puts in part `part` (or all of them), written by the CSV writer from the records
 * themselves (copied where they can be), with `header` as its titles and without column `dropColumn`.
 */
function writeRecords(src: CsvRecords, o: { header: readonly string[] | null; dropColumn?: number; partOf?: Int32Array; part?: number }): Written {
  const drop = o.dropColumn ?? -1;
  const rows = Array.from({ length: src.rowCount }, (_, j) => j).filter((j) => o.partOf === undefined || o.partOf[j] === o.part);
  const batch = new RecordTable(src, false).pick(rows);
  const out = csvWriter({ name: 'p', header: o.header as string[] | null, width: src.width - (drop >= 0 ? 1 : 0), delimiter: src.delimiter });
  out.write(drop >= 0 ? batch.without(drop) : batch);
  return out.end();
}

/** All data records as one file. */
const writeAll = (src: CsvRecords, o: { header: readonly string[] | null; dropColumn?: number }) => writeRecords(src, o).bytes;

/** The data records grouped by the text of field `col`, groups in order of first appearance ('' is the empty group). */
function groups(src: CsvRecords, col: number): { partOf: Int32Array; values: string[] } {
  const texts = src.column(Int32Array.from({ length: src.rowCount }, (_, j) => src.first + j), col).map((t) => t ?? '');
  const values = [...new Set(texts)];
  return { partOf: Int32Array.from(texts, (t) => values.indexOf(t)), values };
}
import { inputFile } from '../helpers/run-tool.ts';
import { generator } from '../helpers/hard-csv.ts';

const latin = (b: Uint8Array) => Buffer.from(b).toString('latin1');

function outcome<T>(f: () => T): { value?: T; error?: unknown } {
  try {
    return { value: f() };
  } catch (error) {
    return { error };
  }
}

test('records path: the same bytes, rows, titles, messages and errors as readCsv + writeCsv on 4,000 generated CSVs', () => {
  const next = generator(20261123);
  let compared = 0;
  for (let t = 0; t < 2000; t++) {
    const file = inputFile('f.csv', next());
    const label = JSON.stringify(latin(file.bytes));
    for (const hasHeader of [true, false]) {
      const ma: unknown[] = [];
      const mb: unknown[] = [];
      const a = outcome(() => readCsv(file, { hasHeader, detectTypes: false, report: (...m) => void ma.push(m) }));
      const b = outcome(() => readCsvRecords(file, { hasHeader, report: (...m) => void mb.push(m) }));
      assert.deepEqual(mb, ma, label);
      if (a.error || b.error) {
        assert.deepEqual(b.error, a.error, label);
        continue;
      }
      const { table, delimiter } = a.value!;
      const src = b.value!;
      assert.equal(src.delimiter, delimiter, label);
      assert.deepEqual(src.header, table.header, label);
      assert.equal(src.rowCount, table.rows.length, label);
      const whole = writeRecords(src, { header: src.header });
      assert.equal(latin(whole.bytes), latin(writeCsv({ ...table, delimiter })), label);
      assert.deepEqual(whole.preview?.rows, table.rows.slice(0, 20), label);
      // Every column dropped in turn (split-by-column without keep-column), and each field read alone.
      for (let col = 0; col < src.width; col++) {
        const header = table.header && table.header.filter((_, i) => i !== col);
        const rows = table.rows.map((r) => r.filter((_, i) => i !== col));
        const got = writeAll(src, { header, dropColumn: col });
        assert.equal(latin(got), latin(writeCsv({ name: 't', header, rows, delimiter })), `${label} without column ${col}`);
        for (let k = src.first; k < src.size; k++) assert.equal(src.field(k, col), table.rows[k - src.first][col] ?? '', label);
        // Grouped by the field's text, groups in order of first appearance.
        const texts = table.rows.map((r) => (r[col] ?? '') as string);
        const values = [...new Set(texts)];
        assert.deepEqual(groups(src, col), { partOf: Int32Array.from(texts, (t) => values.indexOf(t)), values }, label);
      }
      // Typed as readCsv types them (excel-to-json reads CSV records one at a time).
      const typed = readCsv(file, { hasHeader, detectTypes: true }).table.rows;
      for (let r = 0; r < typed.length; r++) assert.deepEqual(src.typedRow(src.first + r), typed[r], label);
      // Records spread over three files (every third one to the same file, some to none), as the split tools
      // spread them; each file keeps its records' order and its own titles.
      const partOf = Int32Array.from({ length: src.rowCount }, (_, j) => (j % 4 === 3 ? -1 : j % 3));
      for (let g = 0; g < 3; g++) {
        const part = writeRecords(src, { header: g === 1 ? null : src.header, partOf, part: g });
        const rows = table.rows.filter((_, j) => partOf[j] === g);
        assert.equal(latin(part.bytes), latin(writeCsv({ ...table, header: g === 1 ? null : table.header, rows, delimiter })), `${label} part ${g}`);
        assert.deepEqual([part.preview?.rows, part.preview?.rowCount], [rows.slice(0, 20), rows.length], label);
      }
      // Runs of consecutive records to each file, as split-rows cuts them (the writer copies a run at once).
      const runOf = Int32Array.from({ length: src.rowCount }, (_, j) => Math.floor(j / 3) % 2);
      for (let g = 0; g < 2; g++) {
        const part = writeRecords(src, { header: src.header, partOf: runOf, part: g });
        const rows = table.rows.filter((_, j) => runOf[j] === g);
        assert.equal(latin(part.bytes), latin(writeCsv({ ...table, rows, delimiter })), `${label} run part ${g}`);
      }
      compared++;
    }
  }
  assert.ok(compared > 2500, `only ${compared} files compared`);
});

test('records path: a semicolon file keeps its semicolon, an unclosed quote is a plain character with a warning', () => {
  const msgs: unknown[] = [];
  const src = readCsvRecords(inputFile('s.csv', 'a;b\r\n"x;1";"sin cerrar\n2;3\n'), { hasHeader: true, report: (...m) => void msgs.push(m) });
  assert.deepEqual(msgs, [['warning', 'csv_unclosed_quote', { name: 's.csv', line: 2, count: 1 }]]);
  assert.equal(src.delimiter, ';');
  assert.equal(Buffer.from(writeAll(src, { header: src.header })).toString(), '\uFEFFa;b\r\n"x;1";"""sin cerrar"\r\n2;3\r\n');
});

test('records path: maxCells counts the non-empty fields before padding, and the extent, as readCsv does', () => {
  const ragged = 'a,b\n' + '1\n'.repeat(50) + 'x,' + ','.repeat(200) + 'y\n';
  for (const [text, maxCells] of [
    ['a,b,c\n1,2,3\n4,,6\n', 7],
    ['a,b,c\n1,2,3\n4,,6\n', 8],
    [ragged, 60],
    [ragged, 20],
    [ragged, 200],
  ] as const) {
    const file = inputFile('m.csv', text);
    const a = outcome(() => readCsv(file, { hasHeader: true, detectTypes: false, maxCells }));
    const b = outcome(() => readCsvRecords(file, { hasHeader: true, maxCells }));
    assert.deepEqual(b.error, a.error, `${maxCells}`);
    assert.equal(b.value?.rowCount, a.value?.table.rows.length);
  }
});

/** Each column's groups, and the file written without it, as readCsv + writeCsv give them; returns readCsv's row count. */
function sameColumnsAsReadCsv(file: ReturnType<typeof inputFile>, src: ReturnType<typeof readCsvRecords>): number {
  const { table, delimiter } = readCsv(file, { hasHeader: true, detectTypes: false });
  for (let col = 0; col < src.width; col++) {
    const texts = table.rows.map((r) => (r[col] ?? '') as string);
    const values = [...new Set(texts)];
    assert.deepEqual(groups(src, col), { partOf: Int32Array.from(texts, (t) => values.indexOf(t)), values });
    const header = table.header!.filter((_, i) => i !== col);
    const rows = table.rows.map((r) => r.filter((_, i) => i !== col));
    assert.equal(latin(writeAll(src, { header, dropColumn: col })), latin(writeCsv({ name: 't', header, rows, delimiter })));
  }
  return table.rows.length;
}

test('records path: with a record over 64 KB (no field offsets) the columns, bounds and dropped columns are as readCsv gives them', () => {
  const long = 'x'.repeat(70_000);
  const text = `a,b,c\n1,"${long}, ""q""",z\n2,,"y,1"\n"3",${long},\n`;
  const file = inputFile('long.csv', text);
  const src = readCsvRecords(file, { hasHeader: true });
  // The path taken when a record is too long for 16-bit offsets (the other path is the 4,000 files above).
  assert.equal(src.fieldAt, null);
  sameColumnsAsReadCsv(file, src);
  // A file of short records has them, and they give the same fields.
  const short = readCsvRecords(inputFile('s.csv', 'a,b,c\n1,"x,y",\n,,\n'), { hasHeader: true });
  assert.notEqual(short.fieldAt, null);
  assert.deepEqual(short.column(Int32Array.from([1, 2]), 1), ['x,y', null]);
  assert.deepEqual(short.span(1, 1), [8, 13]);
});

test('records path: a file whose first 64 KB hold a few long records and the rest many short ones (the arrays outgrow their first sizes) reads as readCsv reads it', () => {
  const long = (i: number) => `${i},"${'w'.repeat(30_000)}",${i}\r\n`;
  const text = `a,b,c\r\n${long(1)}${long(2)}${long(3)}` + Array.from({ length: 10_000 }, (_, i) => `${i},"x${i % 7}",${i % 3 ? '' : 'q'}\r\n`).join('');
  const file = inputFile('grow.csv', text);
  const src = readCsvRecords(file, { hasHeader: true });
  assert.notEqual(src.fieldAt, null);
  assert.equal(src.rowCount, sameColumnsAsReadCsv(file, src));
});

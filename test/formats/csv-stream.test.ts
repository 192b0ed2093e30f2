// streamCsv hands rows to a sink as it parses, piece by piece; readCsv and csv-to-excel are built on it. Checked
// here against a reference written from the parts it does not own (parseCsv on the whole decoded text, then the
// table rules spelled out: blank records trimmed at both ends, the first record with a value as the header,
// fields typed by detectType, rows padded), on generated files small and large (many 64 KB pieces, a quote left
// open at the end so that the piecewise read starts again, UTF-16 and Windows-1252); and csv-to-excel's streamed
// workbook against writeXlsx of readCsv's table, byte for byte, with its messages given once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createContext } from '../../tools/core/execute.ts';
import { NOT_XML } from '../../tools/formats/removed.ts';
import type { Cell, Row } from '../../tools/formats/model.ts';
import tool from '../../tools/convert/csv-to-excel.ts';
import { decodeText, detectDelimiter, parseCsv, readCsv } from '../../tools/formats/csv/read.ts';
import { detectType } from '../../tools/formats/csv/detect-type.ts';
import { writeXlsx } from '../../tools/formats/xlsx/write.ts';
import type { Report } from '../../tools/formats/report.ts';
import { generator } from '../helpers/hard-csv.ts';
import { inputFile, runTool } from '../helpers/run-tool.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';

const blank = (r: readonly string[]) => r.every((f) => f === '');

/** The table readCsv must give, from the whole text and the rules alone. */
function reference(bytes: Uint8Array, hasHeader: boolean): { header: string[] | null; rows: Cell[][] } | null {
  const { text } = decodeText(bytes);
  const delimiter = detectDelimiter(text);
  const records = parseCsv(text, delimiter).rows;
  let start = 0;
  let end = records.length;
  while (end > 0 && blank(records[end - 1])) end--;
  while (start < end && blank(records[start])) start++;
  const kept = records.slice(start, end);
  if (kept.length === 0) return null;
  const width = Math.max(...kept.map((r) => r.length));
  const pad = <T>(r: T[], fill: T) => [...r, ...new Array<T>(width - r.length).fill(fill)];
  const typed = (r: string[]): Cell[] => pad(r.map((f) => (f === '' ? null : detectType(f, { decimalComma: delimiter !== ',' }))), null);
  if (!hasHeader) return { header: null, rows: kept.map(typed) };
  return { header: pad(kept[0], ''), rows: kept.slice(1).map(typed) };
}

function messages(): { report: Report; list: string[] } {
  const list: string[] = [];
  return { list, report: (level, key, params) => void list.push(`${level} ${key} ${JSON.stringify(params)}`) };
}

/** A large file: many generated files' rows one after another, around blank lines, in one encoding. */
function bigFile(seed: number, o: { rows: number; openQuoteAtEnd?: boolean; encoding?: 'utf16le' | 'latin1' }): Uint8Array {
  const next = generator(seed);
  const parts = ['\n\n;;\n'];
  let rows = 0;
  while (rows < o.rows) {
    const text = Buffer.from(next()).toString('utf8').replace(/^\uFEFF/, '').replaceAll('\u0000', '');
    parts.push(text.endsWith('\n') || text.endsWith('\r') ? text : text + '\n');
    rows += text.split('\n').length;
    if (rows % 7 === 0) parts.push('\n\r\n');
  }
  parts.push(o.openQuoteAtEnd ? 'x;"still open\n' + 'tail;row\n'.repeat(50) : '\n\n');
  const text = parts.join('');
  if (o.encoding === 'utf16le') return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  if (o.encoding === 'latin1') return Buffer.from(text.replace(/[^\u0000-\u00ff]/g, '?') + 'caf\u00e9', 'latin1');
  return Buffer.from(text, 'utf8');
}

test('readCsv (streamed in pieces) gives the reference table on 2,000 generated files, with and without titles', () => {
  const next = generator(424242);
  let compared = 0;
  for (let t = 0; t < 2000; t++) {
    const bytes = next();
    const hasHeader = t % 2 === 0;
    const want = reference(bytes, hasHeader);
    const file = inputFile('g.csv', bytes);
    if (want === null || (bytes.includes(0) && !decodeText(bytes).encoding.startsWith('utf-16'))) {
      assert.throws(() => readCsv(file, { hasHeader, detectTypes: true }));
      continue;
    }
    const { table } = readCsv(file, { hasHeader, detectTypes: true });
    assert.deepEqual({ header: table.header, rows: table.rows }, want, JSON.stringify(Buffer.from(bytes).toString('latin1')));
    compared++;
  }
  assert.ok(compared > 1500, `only ${compared} compared`);
});

test('readCsv gives the reference table on large files: many pieces, a quote open until the end, UTF-16, Windows-1252', () => {
  const cases = [
    { seed: 1, rows: 40_000 },
    { seed: 2, rows: 30_000, openQuoteAtEnd: true },
    { seed: 3, rows: 20_000, encoding: 'utf16le' as const },
    { seed: 4, rows: 30_000, encoding: 'latin1' as const },
  ];
  for (const c of cases) {
    const bytes = bigFile(c.seed, c);
    assert.ok(bytes.length > 4 * 65_536, `${c.seed}: ${bytes.length} bytes`);
    for (const hasHeader of [true, false]) {
      const { table } = readCsv(inputFile('big.csv', bytes), { hasHeader, detectTypes: true });
      const want = reference(bytes, hasHeader)!;
      assert.equal(table.rows.length, want.rows.length, `seed ${c.seed}`);
      assert.deepEqual(table.header, want.header);
      for (let r = 0; r < want.rows.length; r++) assert.deepEqual(table.rows[r], want.rows[r], `seed ${c.seed}, row ${r}`);
    }
  }
});

test('csv-to-excel: the streamed workbook is writeXlsx of readCsv\'s table, byte for byte; each message comes once', async () => {
  const ctx = createContext('es', new AbortController().signal, []);
  const next = generator(77);
  const files: Uint8Array[] = [bigFile(5, { rows: 30_000 }), bigFile(6, { rows: 30_000, openQuoteAtEnd: true }), bigFile(7, { rows: 8_000, encoding: 'latin1' })];
  for (let i = 0; i < 300; i++) files.push(next());
  let compared = 0;
  for (const [i, bytes] of files.entries()) {
    if ((bytes.includes(0) && !decodeText(bytes).encoding.startsWith('utf-16')) || reference(bytes, true) === null) continue;
    const file = inputFile('datos.csv', bytes);
    const read = messages();
    const { table } = readCsv(file, { hasHeader: true, detectTypes: true, report: read.report });
    const out = await runTool(tool, [file]);
    assert.deepEqual(out.files[0].bytes, writeXlsx([{ ...table, name: 'datos' }], ctx), `file ${i}`);
    const texts = out.messages.map((m) => m.text);
    assert.equal(new Set(texts).size, texts.length, `file ${i}: a message twice: ${texts.join(' | ')}`);
    // The writer's one warning for characters XML cannot hold, when the table has some.
    const removed = [table.header ?? [], ...table.rows].some((r) => r.some((c) => typeof c === 'string' && NOT_XML.test(c))) ? 1 : 0;
    assert.equal(out.messages.length, read.list.length + 1 + removed, `file ${i}: ${texts.join(' | ')}`);
    assert.equal(out.preview?.totalRows, table.rows.length);
    assert.deepEqual(out.preview?.columns, table.header);
    compared++;
  }
  assert.ok(compared > 200, `only ${compared} compared`);
});

test('csv-to-excel: a large streamed file reads back in exceljs as the table, blank rows inside (one right after the titles) kept in place', async () => {
  const rows: Row[] = [[null, null, null]]; // the blank line after the titles is a row of the table
  let text = 'id;nombre;importe\n\n';
  for (let i = 0; i < 30_000; i++) {
    const row: Row = [i, `n${i % 97}; "c"`, i % 5 === 0 ? null : i / 4];
    rows.push(row);
    text += `${i};"n${i % 97}; ""c""";${row[2] === null ? '' : String(row[2]).replace('.', ',')}\n`;
    if (i === 12_345) {
      text += '\n';
      rows.push([null, null, null]);
    }
  }
  const out = await runTool(tool, [inputFile('grande.csv', text + '\n\n')]);
  const [sheet] = await readXlsx(out.files[0].bytes);
  assert.deepEqual(sheet.rows[0], ['id', 'nombre', 'importe']);
  assert.equal(sheet.rows.length, rows.length + 1);
  for (let r = 0; r < rows.length; r++) assert.deepEqual(sheet.rows[r + 1], rows[r], `row ${r + 2}`);
});

// CSV slash dates (issue 16): a column's `a/b/yyyy` values take one order, decided from all of them before the
// first row is handed on, even when the file is read in pieces and the proof is in its last line; a column whose
// values prove both orders stays text; the language decides when nothing proves an order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openWorkbook, type Cell } from '../../tools/formats/index.ts';
import { contextOf } from '../helpers/read-tables.ts';

const iso = (c: Cell) => (c instanceof Date ? c.toISOString().slice(0, 10) : c);

/** The rows of a CSV read whole (records) and in one pass (pieces), which must agree. */
function bothWays(text: string, lang: 'es' | 'en' = 'es'): Cell[][] {
  const file = { name: 'fechas.csv', bytes: new Uint8Array(Buffer.from(text)) };
  const ctx = { ...contextOf(), lang };
  const whole = openWorkbook(file, ctx, { hasHeader: true }).table().rows();
  const batches: number[] = [];
  const streamed = openWorkbook(file, ctx, { hasHeader: true }).stream((rows) => {
    const out: Cell[][] = [];
    for (const b of rows) {
      batches.push(b.length);
      out.push(...b.rows());
    }
    return out;
  }, { onePass: true });
  assert.deepEqual(streamed.map((r) => r.map(iso)), whole.map((r) => r.map(iso)), 'one pass = whole read');
  return whole.map((r) => r.map(iso));
}

test('a column proven month-first by one value reads all of its dates month-first; both orders proven: text', () => {
  assert.deepEqual(bothWays('id,a,b,c\n1,2/4/2012,3/4/2020,13/1/2020\n2,5/19/2006,,1/13/2020\n3,12/31/2010 10:30,,2/2/2020\n'), [
    [1, '2012-02-04', '2020-04-03', '13/1/2020'],
    [2, '2006-05-19', null, '1/13/2020'],
    [3, '2010-12-31', null, '2/2/2020'],
  ]);
});

test('the language decides a column nothing proves: Spanish day first, English month first', () => {
  const text = 'id,fecha\n1,3/4/2020\n2,10/11/2021\n';
  assert.deepEqual(bothWays(text, 'es'), [[1, '2020-04-03'], [2, '2021-11-10']]);
  assert.deepEqual(bothWays(text, 'en'), [[1, '2020-03-04'], [2, '2021-10-11']]);
  // A proof overrides the language: English, but 25/12 is day first.
  assert.deepEqual(bothWays('id,fecha\n1,3/4/2020\n2,25/12/2021\n', 'en'), [[1, '2020-04-03'], [2, '2021-12-25']]);
});

test('read in pieces, the first batch takes the order the last line proves', () => {
  // ~1.5 MB: many 64 KB pieces and batches; only the last record proves month-first.
  const lines = ['id,fecha,nota'];
  for (let i = 1; i <= 60_000; i++) lines.push(`${i},${(i % 12) + 1}/${(i % 12) + 1}/2020,"texto ${i}"`);
  lines.push('60001,5/19/2006,fin');
  const rows = bothWays(lines.join('\n') + '\n');
  assert.equal(rows[0][1], '2020-02-02');
  assert.equal(rows[9][1], '2020-11-11');
  assert.equal(rows.at(-1)?.[1], '2006-05-19');
  const mixed = ['id,fecha', '1,2/4/2012', ...Array.from({ length: 60_000 }, (_, i) => `${i + 2},x${i}`), '60002,5/19/2006'];
  const m = bothWays(mixed.join('\n'));
  assert.equal(m[0][1], '2012-02-04', 'the first batch is month-first too');
});

test('read in pieces across a quoted field longer than a piece, and with a quote open until the end', () => {
  // The field of 200 KB with line feeds makes its piece grow; the proof (5/19) comes after it.
  const long = `"${'línea larga\n'.repeat(17_000)}"`;
  const lines = ['id,fecha,nota'];
  for (let i = 1; i <= 20_000; i++) lines.push(`${i},${(i % 12) + 1}/${(i % 12) + 1}/2020,${i === 7_000 ? long : `t${i}`}`);
  lines.push('20001,5/19/2006,fin');
  const rows = bothWays(lines.join('\n') + '\n');
  assert.equal(rows[0][1], '2020-02-02');
  assert.equal(rows[6_999][2], long.slice(1, -1), 'the long field whole');
  assert.equal(rows.at(-1)?.[1], '2006-05-19');
  // A quote left open until the end is read as a literal character (csv_unclosed_quote): the lines after it are
  // records, and their dates take part in the proof (one day-first value among them: the column stays text).
  const open = ['id,fecha,nota', '1,3/4/2020,a', ...Array.from({ length: 20_000 }, (_, i) => `${i + 2},5/19/2006,b${i}`), '20002,1/1/2020,"sin cerrar', ...Array.from({ length: 5_000 }, (_, i) => `${i},12/30/2020,c`)];
  const o = bothWays(open.join('\n') + '\n');
  assert.equal(o[0][1], '2020-03-04', 'month-first, as the values on both sides of the open quote prove');
  assert.equal(o.length, 25_002);
  assert.deepEqual(o[20_001], [20002, '2020-01-01', '"sin cerrar']);
  assert.deepEqual(o.at(-1), [4999, '2020-12-30', 'c']);
  const both = bothWays([...open, '1,25/12/2020,d'].join('\n') + '\n');
  assert.equal(both[0][1], '3/4/2020', 'a day-first value after the open quote: both orders proven, text');
});

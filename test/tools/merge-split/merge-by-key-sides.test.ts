// merge-by-key against a plain nested-loop join written here, on generated tables with repeated, empty, spaced,
// numeric and differently-cased keys and unmatched rows on both sides: every join type and duplicate policy,
// when the main file is the larger side and when it is the smaller, CSV and xlsx, the results re-read by
// independent readers (papaparse, exceljs). Whatever the sizes, the result is the same join.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import tool from '../../../tools/merge-split/merge-by-key.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { readXlsx } from '../../helpers/read-xlsx.ts';
import { textOf } from '../../helpers/typed-titles.ts';

type V = string | number | null;

/** Numbers in [0, 1) that look random and are the same on every run (the fractions of a scaled sine). */
function prng(seed: number): () => number {
  let i = seed * 1000;
  return () => {
    const v = Math.sin(++i * 12.9898) * 43758.5453;
    return v - Math.floor(v);
  };
}

/** A key drawn from [from, to): mostly `K<n>`, sometimes spaced, lower-case, a bare number, or empty. */
function keyCell(rand: () => number, from: number, to: number): V {
  const n = from + Math.floor(rand() * (to - from));
  const r = rand();
  if (r < 0.05) return null;
  if (r < 0.12) return ` K${n} `;
  if (r < 0.18) return `k${n}`;
  if (r < 0.26) return n;
  return `K${n}`;
}

interface Sides {
  main: V[][];
  lookup: V[][];
}

const MAIN_TITLES = ['Pedido', 'Clave', 'Importe'];
const LOOKUP_TITLES = ['Ref', 'Clave', 'Nombre', 'Peso'];

function sides(mainRows: number, mainKeys: [number, number], lookupRows: number, lookupKeys: [number, number], seed: number): Sides {
  const rand = prng(seed);
  const main = Array.from({ length: mainRows }, (_, i) => [`P${i}`, keyCell(rand, ...mainKeys), i * 3] as V[]);
  const lookup = Array.from({ length: lookupRows }, (_, i) => [`R${i}`, keyCell(rand, ...lookupKeys), `n${i}`, i % 7 === 0 ? null : i * 10] as V[]);
  // One key that only ignore-case matches, whatever was drawn.
  main.push(['Pcase', `k${lookupKeys[0]}`, -1]);
  lookup.push(['Rcase', `K${lookupKeys[0]}`, 'case', -10]);
  return { main, lookup };
}

/** The main file larger (3 batches of rows against a small lookup table), and the smaller (3 batches of lookup rows). */
const LARGER = sides(1500, [0, 80], 120, [20, 100], 11);
const SMALLER = sides(45, [0, 60], 1400, [30, 400], 12);

const keyText = (c: V, ignoreCase: boolean): string | null => {
  if (c === null) return null;
  const t = String(c).trim();
  if (t === '') return null;
  return ignoreCase ? t.toLowerCase() : t;
};

/** The join as the spec words it, by nested loops: the rows expected, and the counts the messages give. */
function expected(s: Sides, join: string, matches: string, ignoreCase: boolean, notFound: V) {
  const rows: V[][] = [];
  const used = new Set<string>();
  let unmatched = 0;
  for (const m of s.main) {
    const k = keyText(m[1], ignoreCase);
    const hits = k === null ? [] : s.lookup.filter((l) => keyText(l[1], ignoreCase) === k);
    if (hits.length === 0) {
      unmatched++;
      if (join !== 'inner') rows.push([...m, notFound, notFound]);
      continue;
    }
    used.add(k!);
    for (const h of matches === 'all' ? hits : hits.slice(0, 1)) rows.push([...m, h[2], h[3]]);
  }
  let appended = 0;
  if (join === 'full') {
    for (const l of s.lookup) {
      const k = keyText(l[1], ignoreCase);
      if (k !== null && used.has(k)) continue;
      rows.push([null, l[1], null, l[2], l[3]]);
      appended++;
    }
  }
  const seen = new Map<string, number>();
  for (const l of s.lookup) {
    const k = keyText(l[1], ignoreCase);
    if (k !== null) seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  const repeated = [...seen.values()].filter((n) => n > 1).length;
  return { rows, unmatched, appended, repeated };
}

const csvOf = (titles: string[], rows: V[][]) => [titles, ...rows].map((r) => r.map((c) => (c === null ? '' : String(c))).join(',')).join('\r\n') + '\r\n';

async function xlsxOf(name: string, titles: string[], rows: V[][]): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet(name).addRows([titles, ...rows]);
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

const CASES = [
  { join: 'left', matches: 'first' },
  { join: 'inner', matches: 'first' },
  { join: 'full', matches: 'first' },
  { join: 'left', matches: 'all' },
  { join: 'inner', matches: 'all' },
  { join: 'full', matches: 'all' },
];

for (const [label, s] of [
  ['main larger', LARGER],
  ['main smaller', SMALLER],
] as const) {
  test(`merge-by-key (${label}), CSV: every join type and duplicate policy gives the nested-loop join, read back by papaparse`, async () => {
    const main = inputFile('main.csv', csvOf(MAIN_TITLES, s.main));
    const lookup = { ...inputFile('lookup.csv', csvOf(LOOKUP_TITLES, s.lookup)), field: 'lookup-file' };
    // The side read whole and the side streamed follow the files' sizes.
    assert.equal(main.bytes.length > lookup.bytes.length, s === LARGER);
    for (const { join, matches } of CASES) {
      for (const ignoreCase of join === 'left' ? [false, true] : [false]) {
        const notFound = join === 'left' ? '#N/D' : '';
        const opts = { key: 'Clave', columns: 'Nombre,Peso', 'join-type': join, 'multiple-matches': matches, 'ignore-case': ignoreCase, 'not-found-value': notFound, language: 'en' };
        const out = await runTool(tool, [main, lookup], opts);
        const parsed = Papa.parse<string[]>(textOf(out.files[0].bytes).replace(/^\uFEFF/, ''), { skipEmptyLines: true });
        assert.deepEqual(parsed.errors, []);
        const want = expected(s, join, matches, ignoreCase, notFound || null);
        const where = `${join}/${matches}${ignoreCase ? '/ignore-case' : ''}`;
        assert.deepEqual(parsed.data[0], [...MAIN_TITLES, 'Nombre', 'Peso'], where);
        assert.deepEqual(
          parsed.data.slice(1),
          want.rows.map((r) => r.map((c) => (c === null ? '' : String(c)))),
          where,
        );
        const texts = out.messages.map((m) => m.text);
        assert.ok(texts.some((t) => t.startsWith(`${s.main.length} row(s) read`) && t.includes(`${want.unmatched} not; ${want.rows.length} row(s) written`)), `${where}: ${texts.join('\n')}`);
        assert.equal(texts.some((t) => t.startsWith(`${want.unmatched} row(s) found no match`)), want.unmatched > 0, where);
        assert.equal(texts.some((t) => t.startsWith(`${want.repeated} key(s) repeat`)), matches === 'first' && want.repeated > 0, where);
        assert.equal(texts.some((t) => t.startsWith(`${want.appended} row(s) of «lookup.csv»`)), want.appended > 0, where);
      }
    }
  });

  test(`merge-by-key (${label}), xlsx: every join type and duplicate policy gives the nested-loop join with types kept, read back by exceljs`, async () => {
    const main = inputFile('main.xlsx', await xlsxOf('Datos', MAIN_TITLES, s.main));
    const lookup = { ...inputFile('lookup.xlsx', await xlsxOf('Tabla', LOOKUP_TITLES, s.lookup)), field: 'lookup-file' };
    // The side read whole and the side streamed follow the files' sizes.
    assert.equal(main.bytes.length > lookup.bytes.length, s === LARGER);
    for (const { join, matches } of CASES) {
      const out = await runTool(tool, [main, lookup], { key: 'Clave', columns: ['Nombre', 'Peso'], 'join-type': join, 'multiple-matches': matches, language: 'en' });
      const [sheet] = await readXlsx(out.files[0].bytes);
      const want = expected(s, join, matches, false, null);
      assert.deepEqual(sheet.rows[0], [...MAIN_TITLES, 'Nombre', 'Peso']);
      // exceljs leaves out trailing empty rows and pads rows to the widest: the same shape as the rows expected.
      assert.deepEqual(sheet.rows.slice(1), want.rows, `${join}/${matches}`);
      const texts = out.messages.map((m) => m.text);
      assert.ok(texts.some((t) => t.startsWith(`${s.main.length} row(s) read`) && t.includes(`${want.unmatched} not; ${want.rows.length} row(s) written`)), texts.join('\n'));
    }
  });
}

test('merge-by-key sides: the generated tables exercise every rule (repeats, misses on both sides, empty keys)', () => {
  for (const s of [LARGER, SMALLER]) {
    const first = expected(s, 'full', 'first', false, null);
    const all = expected(s, 'full', 'all', false, null);
    assert.ok(first.repeated > 0 && first.unmatched > 0 && first.appended > 0, JSON.stringify(first).slice(0, 200));
    assert.ok(all.rows.length > first.rows.length);
    assert.ok(expected(s, 'left', 'first', true, null).unmatched < first.unmatched, 'ignore-case matches more rows');
    assert.ok(s.main.some((r) => r[1] === null) && s.lookup.some((r) => r[1] === null));
  }
});

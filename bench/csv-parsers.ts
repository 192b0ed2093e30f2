// Micro-benchmark of CSV parsers on the benchmark's medium CSV (100,000 rows × 10 mixed columns), and the
// correctness cases our reader must meet: which parser the service should use is settled here, by numbers.
//
// Ours (tools/formats/csv/read.ts) and papaparse (a dev dependency) always run. Other well-kept parsers run when they are
// installed OUTSIDE the project (they are candidates, not dependencies):
//   mkdir /tmp/csvbench && cd /tmp/csvbench && npm i csv-parse d3-dsv udsv csv-simple-parser
//   CSV_BENCH_MODULES=/tmp/csvbench/node_modules node --import tsx bench/csv-parsers.ts
// Environment: BENCH_ROWS (100000), BENCH_RUNS (9). Each parser parses the decoded text (decoding is the
// same for all); the time is the median, runs interleaved so that a busy moment hurts every parser alike.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCsv } from '../tools/formats/csv/read.ts';
import { mediumRows, TITLES, toCsv } from './inputs.ts';

type Parse = (text: string, delimiter: string) => string[][];
interface Candidate {
  name: string;
  version: string;
  parse: Parse;
}

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const MODULES = process.env.CSV_BENCH_MODULES ?? '';
const require = createRequire(import.meta.url);

const version = (dir: string) => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;

async function optional(name: string, entry: string, make: (mod: any) => Parse): Promise<Candidate | null> {
  const dir = join(MODULES, name);
  if (!MODULES || !existsSync(join(dir, entry))) return null;
  return { name, version: version(dir), parse: make(await import(pathToFileURL(join(dir, entry)).href)) };
}

async function candidates(): Promise<Candidate[]> {
  const Papa = require('papaparse') as typeof import('papaparse');
  const list: Array<Candidate | null> = [
    { name: 'ours (tools/formats/csv/read.ts)', version: '-', parse: (t, d) => parseCsv(t, d).rows },
    { name: 'papaparse', version: version(join(require.resolve('papaparse'), '..')), parse: (t, d) => Papa.parse<string[]>(t, { delimiter: d }).data },
    await optional('csv-parse', 'lib/sync.js', (m) => (t, d) =>
      // Its most tolerant settings: every line end, ragged rows, quotes inside unquoted fields.
      m.parse(t, { delimiter: d, record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true, relax_quotes: true, skip_empty_lines: false }),
    ),
    await optional('d3-dsv', 'dist/d3-dsv.mjs', (m) => (t, d) => m.dsvFormat(d).parseRows(t)),
    await optional('udsv', 'dist/uDSV.mjs', (m) => (t, d) => m.initParser(m.inferSchema(t, { col: d })).stringArrs(t)),
    await optional('csv-simple-parser', 'dist/index.js', (m) => (t, d) => m.default(t, { delimiter: d })),
  ];
  return list.filter((c): c is Candidate => c !== null);
}

/** What our reader must do; each case's expected records are what parseCsv gives. */
const CASES: Array<{ name: string; text: string; rows: string[][] }> = [
  { name: 'CRLF, LF and CR mixed', text: 'a,b\r\n1,2\n3,4\r5,6\r\n7,8\n', rows: [['a', 'b'], ['1', '2'], ['3', '4'], ['5', '6'], ['7', '8']] },
  { name: 'quoted newlines, doubled quotes', text: 'a,"x\r\ny ""z""",c\n1,2,3\n', rows: [['a', 'x\r\ny "z"', 'c'], ['1', '2', '3']] },
  { name: 'ragged rows', text: 'a,b,c\n1,2\n3,4,5,6\n', rows: [['a', 'b', 'c'], ['1', '2'], ['3', '4', '5', '6']] },
  { name: 'quote inside a plain field', text: '5" pipe,x\n"ab"cd,y\n', rows: [['5" pipe', 'x'], ['abcd', 'y']] },
  { name: 'quote never closed', text: 'a,b\n"open,1\n2,3\n', rows: [['a', 'b'], ['"open', '1'], ['2', '3']] },
  { name: 'blank line inside', text: 'a,b\n\n1,2\n', rows: [['a', 'b'], [''], ['1', '2']] },
];

function check(c: Candidate): string[] {
  const failed: string[] = [];
  for (const k of CASES) {
    let got: unknown;
    try {
      got = c.parse(k.text, ',');
    } catch (err) {
      got = `throws: ${(err as Error).message.slice(0, 60)}`;
    }
    // A parser may report the final line end as one empty record more; that alone is not a fault.
    const rows = Array.isArray(got) && got.length === k.rows.length + 1 && JSON.stringify(got.at(-1)) === '[""]' ? got.slice(0, -1) : got;
    if (JSON.stringify(rows) !== JSON.stringify(k.rows)) failed.push(`${k.name}: ${JSON.stringify(got).slice(0, 90)}`);
  }
  return failed;
}

const text = Buffer.from(toCsv(TITLES, mediumRows(ROWS))).toString('utf8');
const list = await candidates();
const reference = parseCsv(text, ',').rows;
const times = new Map<string, number[]>(list.map((c) => [c.name, []]));
const same = new Map<string, boolean>();
for (const c of list) {
  const rows = c.parse(text, ',');
  const trimmed = rows.length === reference.length + 1 ? rows.slice(0, -1) : rows;
  same.set(c.name, JSON.stringify(trimmed) === JSON.stringify(reference));
}
for (let run = 0; run < RUNS; run++) {
  for (const c of list) {
    const t0 = performance.now();
    c.parse(text, ',');
    times.get(c.name)!.push(performance.now() - t0);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${ROWS} rows, ${(Buffer.byteLength(text) / 2 ** 20).toFixed(1)} MB, median of ${RUNS} runs (Node ${process.version})\n`);
console.log(`${'parser'.padEnd(28)} ${'version'.padEnd(8)} ${'ms'.padStart(6)}  ${'MB/s'.padStart(5)}  same records  correctness cases`);
for (const c of list) {
  const ms = median(times.get(c.name)!);
  const failed = check(c);
  const mbs = Buffer.byteLength(text) / 2 ** 20 / (ms / 1000);
  console.log(`${c.name.padEnd(28)} ${c.version.padEnd(8)} ${ms.toFixed(0).padStart(6)}  ${mbs.toFixed(0).padStart(5)}  ${same.get(c.name) ? 'yes' : 'NO '}           ${failed.length === 0 ? 'all' : `${CASES.length - failed.length}/${CASES.length}`}`);
  for (const f of failed) console.log(`    fails ${f}`);
}
if (!MODULES) console.log('\n(CSV_BENCH_MODULES not set: only ours and papaparse ran)');

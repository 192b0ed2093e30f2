// `node --import tsx bench/xls-writer.ts`: xlsx → xls on one sheet of BENCH_XLS_ROWS rows (65,536, the
// format's limit: titles and 65,535 rows) × 10 mixed columns, three ways alternated in one run, each in a
// fresh process: this project (its xlsx reader, then tools/formats/xls/write.ts, with a 1 GB heap, the default
// job bound), SheetJS (read + biff8 write) and Gnumeric's ssconvert. Prints each one's median time and peak
// RSS, and checks that our result reads back (xlrd) with every row. BENCH_RUNS (3), BENCH_SHEETJS=0 skips
// SheetJS (minutes and gigabytes at this size).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mediumRows, sheetjsWorkbook, TITLES } from './inputs.ts';
import { HAS_GNU_TIME, median, timeCommand } from './measure.ts';
import { PYTHON, q } from './peers.ts';

const ROWS = Number(process.env.BENCH_XLS_ROWS ?? 65_536);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const SHEETJS = process.env.BENCH_SHEETJS !== '0';
const DIR = fileURLToPath(new URL('./out/xls-writer/', import.meta.url));
const JOB = fileURLToPath(new URL('./xls-writer-job.ts', import.meta.url));
mkdirSync(DIR, { recursive: true });

const input = join(DIR, `entrada-${ROWS}.xlsx`);
if (!existsSync(input)) writeFileSync(input, sheetjsWorkbook(TITLES, mediumRows(ROWS - 1), 'xlsx'));

interface Way {
  name: string;
  command: (out: string) => string;
}
const ways: Way[] = [
  { name: 'ours (1 GB heap)', command: (out) => `node --max-old-space-size=1024 --import tsx ${q(JOB)} ours ${q(input)} ${q(out)}` },
  { name: 'ssconvert', command: (out) => `ssconvert -T Gnumeric_Excel:excel_biff8 ${q(input)} ${q(out)}` },
  ...(SHEETJS ? [{ name: 'SheetJS', command: (out: string) => `node --import tsx ${q(JOB)} sheetjs ${q(input)} ${q(out)}` }] : []),
];

const results = new Map<string, { ms: number[]; rss: number[]; inner: number[]; bytes: number }>();
for (let run = 0; run < RUNS; run++) {
  for (const way of run % 2 === 0 ? ways : [...ways].reverse()) {
    const out = join(DIR, `${way.name.split(' ')[0]}.xls`);
    const r = await timeCommand(way.command(out), { timeoutMs: 900_000, rssFile: join(DIR, 'rss') });
    if (!r.ok) {
      console.log(`${way.name}: ${r.error}`);
      continue;
    }
    const e = results.get(way.name) ?? { ms: [], rss: [], inner: [], bytes: 0 };
    e.ms.push(r.ms);
    if (r.peakRssMb !== null) e.rss.push(r.peakRssMb);
    if (r.stdout.trim()) e.inner.push(JSON.parse(r.stdout).ms);
    e.bytes = Number(execFileSync('stat', ['-c', '%s', out], { encoding: 'utf8' }));
    results.set(way.name, e);
    console.log(`run ${run + 1} ${way.name}: ${Math.round(r.ms)} ms, peak ${r.peakRssMb?.toFixed(0) ?? '?'} MB`);
  }
}

const rows = Number(execFileSync(PYTHON, ['-c', `import xlrd,sys; print(xlrd.open_workbook(sys.argv[1]).sheet_by_index(0).nrows)`, join(DIR, 'ours.xls')], { encoding: 'utf8' }).trim());
if (rows !== ROWS) throw new Error(`xlrd reads ${rows} rows of our .xls, not ${ROWS}`);
console.log(`\nxlsx → xls, ${ROWS} rows × 10 columns, ${RUNS} runs alternated${HAS_GNU_TIME ? '' : ' (no /usr/bin/time: no peak RSS)'}`);
for (const [name, e] of results) {
  const inner = e.inner.length ? `, in-process ${Math.round(median(e.inner)!)} ms` : '';
  console.log(`${name.padEnd(18)} ${String(Math.round(median(e.ms)!)).padStart(7)} ms${inner}, peak RSS ${median(e.rss)?.toFixed(0) ?? '?'} MB, ${(e.bytes / 2 ** 20).toFixed(1)} MB out`);
}

// `npm run bench`: times the merge/split tools through the kernel on generated inputs, next to plain
// SheetJS doing the same read → write job in the same run, and prints medians, ratios and peak memory.
// Output: a table on the terminal and bench/out/results.json. Inputs are generated, never committed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import * as XLSX from 'xlsx';
import { execute } from '../tools/core/execute.ts';
import type { InputFile } from '../tools/core/files.ts';
import { getTool } from '../tools/core/registry.ts';
import { optionsSchema, parseOptions } from '../tools/core/schema.ts';
import { bigCsv } from '../test/helpers/generate.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function timeIt(fn: () => unknown): Promise<{ ms: number; heapMb: number }> {
  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const probe = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  clearInterval(probe);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return { ms, heapMb: (peak - before) / 2 ** 20 };
}

function runTool(id: string, files: InputFile[], options: Record<string, unknown>) {
  const tool = getTool(id);
  return execute(tool, files, parseOptions(optionsSchema(tool), options), { lang: 'es', download: true });
}

/** The same job done naively with SheetJS: read every input, write one xlsx per output table. */
function sheetjsPeer(files: InputFile[], split: (rows: unknown[][]) => unknown[][][]) {
  const rows = files.flatMap((f) => {
    const wb = XLSX.read(f.bytes, { type: 'array', dense: true });
    return XLSX.utils.sheet_to_json<unknown[]>(wb.Sheets[wb.SheetNames[0]], { header: 1 });
  });
  for (const part of split(rows)) {
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(part, { dense: true }), 'Sheet1');
    XLSX.write(wb, { type: 'buffer', bookType: 'xlsx', compression: true });
  }
}

const enc = new TextEncoder();
const csv = bigCsv(ROWS);
const csvFile: InputFile = { name: 'datos.csv', bytes: enc.encode(csv) };
const xlsxOut = await runTool('split-rows', [csvFile], { 'rows-per-file': 1_000_000 });
const xlsxFile: InputFile = { name: 'datos.xlsx', bytes: xlsxOut.files[0].bytes };
const fifth = Math.ceil(ROWS / 5);
const parts = Array.from({ length: 5 }, (_, i) => ({ name: `p${i}.csv`, bytes: enc.encode(bigCsv(fifth)) }));

const tasks: Array<{ name: string; run: () => unknown; peer: () => unknown }> = [
  { name: `split-rows csv ${ROWS} rows, 10,000/file`, run: () => runTool('split-rows', [csvFile], { 'rows-per-file': 10_000 }), peer: () => sheetjsPeer([csvFile], (r) => chunk(r, 10_000)) },
  { name: `split-rows xlsx ${ROWS} rows, 10,000/file`, run: () => runTool('split-rows', [xlsxFile], { 'rows-per-file': 10_000 }), peer: () => sheetjsPeer([xlsxFile], (r) => chunk(r, 10_000)) },
  { name: `merge-stack 5 csv × ${fifth} rows`, run: () => runTool('merge-stack', parts, {}), peer: () => sheetjsPeer(parts, (r) => [r]) },
  { name: `split-by-column xlsx ${ROWS} rows (5 values)`, run: () => runTool('split-by-column', [xlsxFile], { column: 'ciudad' }), peer: () => sheetjsPeer([xlsxFile], (r) => groupBy(r, 1)) },
];

function chunk<T>(rows: T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 1; i < rows.length; i += n) out.push([rows[0], ...rows.slice(i, i + n)]);
  return out;
}
function groupBy(rows: unknown[][], col: number): unknown[][][] {
  const groups = new Map<unknown, unknown[][]>();
  for (const r of rows.slice(1)) {
    const g = groups.get(r[col]) ?? [rows[0]];
    g.push(r);
    groups.set(r[col], g);
  }
  return [...groups.values()];
}

const results = [];
for (const task of tasks) {
  const ours: number[] = [];
  const peer: number[] = [];
  let heap = 0;
  for (let i = 0; i < RUNS; i++) {
    // Alternate service and peer so machine noise hits both alike.
    const a = await timeIt(task.run);
    ours.push(a.ms);
    heap = Math.max(heap, a.heapMb);
    peer.push((await timeIt(task.peer)).ms);
  }
  const row = { task: task.name, serviceMs: Math.round(median(ours)), sheetjsMs: Math.round(median(peer)), ratio: +(median(ours) / median(peer)).toFixed(2), peakHeapMb: Math.round(heap) };
  results.push(row);
  console.log(`${row.task.padEnd(44)} service ${String(row.serviceMs).padStart(6)} ms   SheetJS ${String(row.sheetjsMs).padStart(6)} ms   ratio ${row.ratio.toFixed(2)}   heap +${row.peakHeapMb} MB`);
}

const machine = { cpus: availableParallelism(), cpu: cpus()[0]?.model, memGb: Math.round(totalmem() / 2 ** 30), node: process.version };
mkdirSync(new URL('./out/', import.meta.url), { recursive: true });
writeFileSync(new URL('./out/results.json', import.meta.url), JSON.stringify({ date: new Date().toISOString(), machine, rows: ROWS, runs: RUNS, results }, null, 2));
console.log(`\n${new Date().toISOString().slice(0, 10)} · ${machine.cpus} cores · ${machine.memGb} GiB · Node ${machine.node} · results in bench/out/results.json`);

// `npm run bench:handoff`: what it costs to hand a job to where it runs and take its result back, three ways
// alternated in one run: worker threads (piscina with transfer lists, where jobs ran until issue 13), the job
// processes (tools/core/process-pool.ts: frames over a socket pair, through the kernel's own job runner), and
// tinypool's child_process runtime (process.send with advanced serialization). Each runs an echo job whose
// result is its input (bench/handoff/echo-*.mjs), on the small-file load's 10 KB CSV and on 25 MB; then the
// real 10 KB CSV → xlsx run through threads and processes. Printed per way: the median time of one run
// alone, the server thread's busy time per run (event-loop utilization), and for the small file the rate
// with MAX_JOBS runs in flight and the CPU time those runs took (this process, its threads and its child
// processes), which a loaded machine changes far less than it changes rates. HANDOFF_SMALL_RUNS (2000) and
// HANDOFF_LARGE_RUNS (12) set the sizes.
import { Piscina } from 'piscina';
import Tinypool from 'tinypool';
import { processStats } from '../test/helpers/child-pids.ts';
import { parseConfig, toolLimitsOf } from '../tools/core/config.ts';
import type { Job } from '../tools/core/jobs.ts';
import { createJobRunner, JOB_YOUNG_GENERATION_MB } from '../tools/core/jobs.ts';
import { transferables } from '../tools/core/transfer.ts';
import { mediumRows, TITLES, toCsv } from './inputs.ts';
import { median } from './measure.ts';

const SMALL_RUNS = Number(process.env.HANDOFF_SMALL_RUNS ?? 2000);
const LARGE_RUNS = Number(process.env.HANDOFF_LARGE_RUNS ?? 12);
const BLOCK = 100;
const JOBS = 2;
const config = parseConfig({ MAX_JOBS: String(JOBS), MAX_RESULT_MB: '100', MAX_INLINE_RESULT_MB: '100' });
const here = (p: string) => new URL(p, import.meta.url);

type Run = (job: Job) => Promise<Uint8Array>;
interface Way {
  name: string;
  run: Run;
  close(): Promise<unknown>;
}

const resourceLimits = { maxOldGenerationSizeMb: config.JOB_MEMORY_MB, maxYoungGenerationSizeMb: JOB_YOUNG_GENERATION_MB };

function threads(module: string): Way {
  const pool = new Piscina({ filename: here(module).href, minThreads: JOBS, maxThreads: JOBS, resourceLimits });
  return {
    name: 'threads (piscina)',
    run: async (job) => ((await pool.run(job, { transferList: transferables(job.files.map((f) => f.bytes)) })) as { result: { files: Array<{ bytes: Uint8Array }> } }).result.files[0].bytes,
    close: () => pool.destroy(),
  };
}

function processes(module?: string): Way {
  const jobs = createJobRunner(config, 'workers', module ? here(module) : undefined);
  return { name: 'processes (process-pool)', run: async (job) => (await jobs.run(job)).files[0].bytes, close: () => jobs.close(0) };
}

function tinypool(module: string): Way {
  const pool = new Tinypool({ runtime: 'child_process', filename: here(module).href, minThreads: JOBS, maxThreads: JOBS, serialization: 'advanced' } as ConstructorParameters<typeof Tinypool>[0]);
  return {
    name: 'processes (tinypool child_process)',
    run: async (job) => ((await pool.run(job)) as { result: { files: Array<{ bytes: Uint8Array }> } }).result.files[0].bytes,
    close: () => pool.destroy(),
  };
}

const jobOf = (bytes: Uint8Array, name: string, toolId = 'csv-to-excel'): Job => ({
  toolId,
  files: [{ name, bytes }],
  opts: { 'has-header': true, 'detect-types': true },
  lang: 'es',
  download: true,
  limits: toolLimitsOf(config),
});

interface Figures {
  medianMs: number;
  /** Busy time of this (the server's) thread per run. */
  mainMsPerRun: number;
}

/** Runs `n` jobs one after the other; each gets a fresh copy of `input` (a handed-off buffer may be detached). */
async function alone(way: Way, input: Uint8Array, n: number, name: string, check: (out: Uint8Array) => void): Promise<{ times: number[]; busyMs: number }> {
  const times: number[] = [];
  let busyMs = 0;
  for (let i = 0; i < n; i++) {
    const bytes = new Uint8Array(input);
    const elu0 = performance.eventLoopUtilization();
    const t0 = performance.now();
    const out = await way.run(jobOf(bytes, name));
    times.push(performance.now() - t0);
    busyMs += performance.eventLoopUtilization(elu0).active;
    check(out);
  }
  return { times, busyMs };
}

/** CPU milliseconds used so far by this process (all its threads) and by its live child processes (Linux). */
function cpuMs(): number {
  const own = process.cpuUsage();
  const children = processStats().reduce((n, p) => (p.parent === process.pid ? n + p.cpuMs : n), 0);
  return (own.user + own.system) / 1000 + children;
}

/** Runs `n` jobs with JOBS of them in flight at once: runs per second, and CPU milliseconds per run. */
async function inFlight(way: Way, input: Uint8Array, n: number, name: string): Promise<{ rate: number; cpuMs: number }> {
  let left = n;
  const cpu0 = cpuMs();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: JOBS }, async () => {
      while (left-- > 0) await way.run(jobOf(new Uint8Array(input), name));
    }),
  );
  return { rate: (n / (performance.now() - t0)) * 1000, cpuMs: (cpuMs() - cpu0) / n };
}

/** Alternates the ways block by block, so that the machine's load falls on all of them alike. */
async function compare(ways: Way[], input: Uint8Array, name: string, runs: number, block: number, check: (out: Uint8Array) => void): Promise<Map<string, Figures>> {
  const times = new Map<string, number[]>(ways.map((w) => [w.name, []]));
  const busy = new Map<string, number>(ways.map((w) => [w.name, 0]));
  // Warm: code compiled on both sides, and every worker or process started and used.
  for (const w of ways) {
    await alone(w, input, Math.min(block, 3 * JOBS), name, check);
    await inFlight(w, input, Math.min(block, 3 * JOBS), name);
  }
  for (let done = 0; done < runs; done += block) {
    for (const w of ways) {
      const r = await alone(w, input, Math.min(block, runs - done), name, check);
      times.get(w.name)!.push(...r.times);
      busy.set(w.name, busy.get(w.name)! + r.busyMs);
    }
  }
  return new Map(ways.map((w) => [w.name, { medianMs: median(times.get(w.name)!)!, mainMsPerRun: busy.get(w.name)! / times.get(w.name)!.length }]));
}

function print(title: string, figures: Map<string, Figures>, rates?: Map<string, { rate: number; cpuMs: number }>) {
  console.log(`\n${title}`);
  for (const [name, f] of figures) {
    const r = rates?.get(name);
    const inflight = r ? `   ${JOBS} in flight ${r.rate.toFixed(0).padStart(5)} runs/s, CPU ${r.cpuMs.toFixed(3)} ms/run` : '';
    console.log(`  ${name.padEnd(36)} alone ${f.medianMs.toFixed(3).padStart(8)} ms   server thread ${f.mainMsPerRun.toFixed(3).padStart(7)} ms/run${inflight}`);
  }
}

const small = toCsv(TITLES, mediumRows(90, 99));
const large = new Uint8Array(25 * 1024 * 1024);
for (let i = 0; i < large.length; i++) large[i] = (i * 2654435761) >>> 24;
const same = (input: Uint8Array) => (out: Uint8Array) => {
  if (out.byteLength !== input.byteLength || out[out.length - 1] !== input[input.length - 1]) throw new Error('the echo came back different');
};

console.log(`Node ${process.version}; ${JOBS} workers or processes each; small ${small.length} bytes, large ${large.length} bytes`);
const echoes = [threads('./handoff/echo-piscina.mjs'), processes('./handoff/echo-job.mjs'), tinypool('./handoff/echo-job.mjs')];
try {
  const smallEcho = await compare(echoes, small, 'pequeno.csv', SMALL_RUNS, BLOCK, same(small));
  const rates = new Map<string, { rate: number; cpuMs: number }>();
  for (const w of echoes) rates.set(w.name, await inFlight(w, small, SMALL_RUNS, 'pequeno.csv'));
  print('echo, 10 KB in and out', smallEcho, rates);
  print('echo, 25 MB in and out', await compare(echoes, large, 'grande.bin', LARGE_RUNS, 1, same(large)));
} finally {
  await Promise.all(echoes.map((w) => w.close()));
}

const real = [threads('./handoff/run-piscina.mjs'), processes()];
try {
  const isXlsx = (out: Uint8Array) => {
    if (out[0] !== 0x50 || out[1] !== 0x4b) throw new Error('not an xlsx');
  };
  const figures = await compare(real, small, 'pequeno.csv', SMALL_RUNS / 2, BLOCK, isXlsx);
  const rates = new Map<string, { rate: number; cpuMs: number }>();
  for (let round = 0; round < 2; round++) {
    for (const w of real) {
      const r = await inFlight(w, small, SMALL_RUNS / 4, 'pequeno.csv');
      const before = rates.get(w.name);
      rates.set(w.name, before ? { rate: (before.rate + r.rate) / 2, cpuMs: (before.cpuMs + r.cpuMs) / 2 } : r);
    }
  }
  print('csv-to-excel, the 10 KB CSV → xlsx', figures, rates);
} finally {
  await Promise.all(real.map((w) => w.close()));
}

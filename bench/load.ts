// `npm run load`: the service under load, as issue 4 asks, on loopback against a child process started as
// `npm start` starts it (MAX_JOBS = cores unless LOAD_MAX_JOBS says otherwise).
//
// 1. Small runs: LOAD_CONCURRENCY (200) clients post a 10 KB CSV → xlsx back to back for LOAD_DURATION_S
//    (60) seconds. Every answer must be 200, 429 or 503 with Retry-After; no 5xx, no reset connection.
//    Reported: counts by status, p50/p99 of the 200s, RSS before, at peak and after LOAD_SETTLE_S idle
//    seconds (75: past the idle collections and the idle exit of the extra workers; within 64 MB of the
//    start), and the usage events counted in /metrics against the runs answered (exactly one each).
//    ANON_RUNS_PER_HOUR is set far above what the run can use: the quota is not the limiter here, the job
//    slots are (429 can still be answered and is accepted, but none is expected).
// 2. Large runs: LOAD_LARGE_CLIENTS (4 × MAX_JOBS) clients, each from its own loopback address, post a CSV
//    just under MAX_INPUT_MB at once, LOAD_LARGE_ROUNDS (2) times; RSS is sampled every 50 ms and must stay under
//    MAX_JOBS × JOB_MEMORY_MB + the fixed base (start RSS + LOAD_BASE_MB, 512).
// 3. Shutdown: MAX_JOBS runs of a few seconds in flight, then SIGTERM: new connections are refused, the runs
//    in flight finish with 200, the process exits 0.
// LOAD_SERVER_FLAGS adds node or V8 flags to the server. Prints a table and writes bench/out/load.json. Not a
// test: it takes minutes and its figures depend on the machine; the load generator (fetch in this process)
// shares the machine with the server.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JOB_RECLAIM_AFTER_MS, RECLAIM_AFTER_MS, WORKER_IDLE_MS } from '../tools/core/jobs.ts';
import { envFlags, envInt, percentile } from './measure.ts';
import { startService, type ChildService } from './service.ts';
import { procMemory } from '../tools/core/peak-memory.ts';

const DURATION_S = envInt('LOAD_DURATION_S', 60);
const CONCURRENCY = envInt('LOAD_CONCURRENCY', 200);
const MAX_JOBS = Math.max(1, envInt('LOAD_MAX_JOBS', availableParallelism()));
const JOB_MEMORY_MB = envInt('LOAD_JOB_MEMORY_MB', 1024);
const MAX_INPUT_MB = envInt('LOAD_MAX_INPUT_MB', 25);
const LARGE_CLIENTS = Math.min(200, envInt('LOAD_LARGE_CLIENTS', 4 * MAX_JOBS));
const LARGE_ROUNDS = envInt('LOAD_LARGE_ROUNDS', 2);
const BASE_MB = envInt('LOAD_BASE_MB', 512);
// The job processes' collection runs JOB_RECLAIM_AFTER_MS after the last run (the server's, RECLAIM_AFTER_MS),
// and restarts the idle clock of the extra workers.
const SETTLE_S = envInt('LOAD_SETTLE_S', Math.ceil((Math.max(RECLAIM_AFTER_MS, JOB_RECLAIM_AFTER_MS) + WORKER_IDLE_MS) / 1000) + 15);
const RSS_RETURN_MB = 64;
// Node or V8 flags for the server; one of its own V8 flags given here replaces it (mcp/v8-flags.ts).
const SERVER_FLAGS = envFlags('LOAD_SERVER_FLAGS');
const P99_LIMIT_MS = 2000;

const OUT = fileURLToPath(new URL('./out/', import.meta.url));
const MB = 1024 * 1024;
const log = (s: string) => console.log(s);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The service as `npm start` starts it, with the bounds above and a quota that never limits the run. */
function startLoadService(): Promise<ChildService> {
  const env = { MAX_JOBS: String(MAX_JOBS), JOB_MEMORY_MB: String(JOB_MEMORY_MB), MAX_INPUT_MB: String(MAX_INPUT_MB), SHUTDOWN_TIMEOUT_S: '120' };
  return startService(env, undefined, { nodeFlags: SERVER_FLAGS, output: true });
}

/** Resident memory of a process (Linux /proc), in MB; NaN once it is gone. */
const rssMb = (pid: number): number => procMemory(pid)?.rssMb ?? NaN;

function sampler(pid: number, everyMs: number) {
  let peak = 0;
  const timer = setInterval(() => {
    // Nothing to read once the process is gone.
    const m = procMemory(pid);
    if (m) peak = Math.max(peak, m.rssMb);
  }, everyMs);
  return { stop: () => (clearInterval(timer), peak), get peak() { return peak; } };
}

async function usageEvents(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const m of text.matchAll(/^spreadsheet_tools_runs_total\{[^}]*\} (\d+(?:\.\d+)?)$/gm)) total += Number(m[1]);
  return total;
}

/**
 * A CSV of about `bytes` bytes: ids with leading zeros, accented text, decimals, dates, booleans, and a note
 * of `note` characters (longer notes keep a large file under MAX_CELLS).
 */
function csvOf(bytes: number, note = 0): string {
  const cities = ['Madrid', 'Sevilla', 'A Coruña', 'Málaga', 'Bilbao'];
  const lines = ['id,ciudad,importe,fecha,activo,nota'];
  let size = lines[0].length + 1;
  for (let i = 0; size < bytes; i++) {
    const line = `${String(i).padStart(7, '0')},${cities[i % 5]},${(i * 1.25).toFixed(2)},2024-03-${String((i % 28) + 1).padStart(2, '0')},${i % 2 === 0},"texto, con coma ${i}${'·'.repeat(note)}"`;
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  return lines.join('\n') + '\n';
}

interface SmallResult {
  tool: string;
  inputBytes: number;
  seconds: number;
  concurrency: number;
  answers: number;
  statuses: Record<string, number>;
  withoutRetryAfter: number;
  failures: Record<string, number>;
  runsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  usageEventsDelta: number;
  rssStartMb: number;
  rssPeakMb: number;
  rssAfterMb: number;
}

async function smallRuns(svc: ChildService, tool: string): Promise<SmallResult> {
  const csv = csvOf(10 * 1024);
  const body = JSON.stringify({ file: { name: 'pequeño.csv', contentBase64: Buffer.from(csv).toString('base64') } });
  const post = () => fetch(`${svc.url}/api/v1/tools/${tool}/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  // Warm-up, one run after another: the warm worker has loaded the tool code, so the start value is that of a
  // service ready to serve (the other workers start under load and exit once idle, see tools/core/jobs.ts).
  for (let i = 0; i < 3; i++) await (await post()).arrayBuffer();
  await sleep(3000);
  const pid = svc.pid;
  const rssStartMb = rssMb(pid);
  const events0 = await usageEvents(svc.url);
  const statuses: Record<string, number> = {};
  const failures: Record<string, number> = {};
  const okMs: number[] = [];
  let withoutRetryAfter = 0;
  let answers = 0;
  const mem = sampler(pid, 100);
  const until = performance.now() + DURATION_S * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        try {
          const res = await post();
          await res.arrayBuffer();
          answers++;
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (res.status === 200) okMs.push(performance.now() - t0);
          if ((res.status === 429 || res.status === 503) && !res.headers.get('retry-after')) withoutRetryAfter++;
        } catch (err) {
          const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
          failures[cause] = (failures[cause] ?? 0) + 1;
        }
      }
    }),
  );
  const rssPeakMb = mem.stop();
  // Counted after the clients stop: every answered run must have left its one event.
  const usageEventsDelta = (await usageEvents(svc.url)) - events0;
  // Idle time for the collector to run and for the workers beyond the warm one to exit (WORKER_IDLE_MS).
  await sleep(SETTLE_S * 1000);
  const rssAfterMb = rssMb(pid);
  okMs.sort((a, b) => a - b);
  return {
    tool,
    inputBytes: Buffer.byteLength(csv),
    seconds: DURATION_S,
    concurrency: CONCURRENCY,
    answers,
    statuses,
    withoutRetryAfter,
    failures,
    runsPerSecond: (statuses[200] ?? 0) / DURATION_S,
    p50Ms: percentile(okMs, 50),
    p99Ms: percentile(okMs, 99),
    usageEventsDelta,
    rssStartMb,
    rssPeakMb,
    rssAfterMb,
  };
}

interface LargeResult {
  tool: string;
  inputMb: number;
  clients: number;
  rounds: number;
  statuses: Record<string, number>;
  failures: number;
  slowestMs: number;
  rssStartMb: number;
  rssPeakMb: number;
  boundMb: number;
}

/** POST over node:http from a chosen loopback source address (fetch cannot choose one). */
function postFrom(url: string, body: Buffer, contentType: string, localAddress: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', localAddress, headers: { 'content-type': contentType, 'content-length': body.length } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function largeRuns(svc: ChildService, tool: string): Promise<LargeResult> {
  // About 1.1 million cells at 25 MB: near the input bound, under MAX_CELLS (2,000,000).
  const csv = Buffer.from(csvOf((MAX_INPUT_MB - 0.5) * MB, 60));
  const boundary = 'cargaGrande';
  const multipart = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="grande.csv"\r\nContent-Type: text/csv\r\n\r\n`), csv, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  const json = Buffer.from(JSON.stringify({ file: { name: 'grande.csv', contentBase64: csv.toString('base64') } }));
  const url = `${svc.url}/api/v1/tools/${tool}/run?download=true`;
  const pid = svc.pid;
  const rssStartMb = rssMb(pid);
  const statuses: Record<string, number> = {};
  let failures = 0;
  let slowestMs = 0;
  const mem = sampler(pid, 50);
  for (let round = 0; round < LARGE_ROUNDS; round++) {
    await Promise.all(
      Array.from({ length: LARGE_CLIENTS }, async (_, i) => {
        // Each client from its own loopback address (the per-address share does not refuse it), half as
        // multipart and half as JSON with base64: the two ways a body is buffered.
        const t0 = performance.now();
        try {
          const res = i % 2 === 0 ? await postFrom(url, multipart, `multipart/form-data; boundary=${boundary}`, `127.0.0.${2 + i}`) : await postFrom(url, json, 'application/json', `127.0.0.${2 + i}`);
          // A refusal is counted with its code: a memory or time stop (too_complex) is not the same as busy.
          const code = res.status === 200 ? '' : ` ${(JSON.parse(res.body.toString('utf8')) as { error?: string }).error}`;
          statuses[`${res.status}${code}`] = (statuses[`${res.status}${code}`] ?? 0) + 1;
        } catch {
          failures++;
        }
        slowestMs = Math.max(slowestMs, performance.now() - t0);
      }),
    );
  }
  return { tool, inputMb: csv.length / MB, clients: LARGE_CLIENTS, rounds: LARGE_ROUNDS, statuses, failures, slowestMs, rssStartMb, rssPeakMb: mem.stop(), boundMb: MAX_JOBS * JOB_MEMORY_MB + rssStartMb + BASE_MB };
}

interface ShutdownResult {
  inFlight: number;
  inFlightStatuses: Record<string, number>;
  newConnectionRefused: boolean;
  exitCode: number | null;
  exitAfterMs: number;
}

async function shutdown(svc: ChildService, tool: string): Promise<ShutdownResult> {
  const body = JSON.stringify({ file: { name: 'medio.csv', contentBase64: Buffer.from(csvOf(3 * MB)).toString('base64') } });
  const runs = Array.from({ length: MAX_JOBS }, () =>
    fetch(`${svc.url}/api/v1/tools/${tool}/run?download=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
      async (res) => (await res.arrayBuffer(), String(res.status)),
      (err) => `failed: ${(err as { cause?: { code?: string } }).cause?.code ?? err}`,
    ),
  );
  // SIGTERM once every slot is busy.
  for (let i = 0; i < 200; i++) {
    const health = (await (await fetch(`${svc.url}/health`)).json()) as { jobs: number };
    if (health.jobs >= MAX_JOBS) break;
    await sleep(25);
  }
  const t0 = performance.now();
  svc.child.kill('SIGTERM');
  await sleep(300);
  // A new TCP connection (no agent): fetch could reuse a keep-alive socket left idle by a run that just ended,
  // which the server still serves until its next sweep of idle connections; that is not a new connection.
  const newConnectionRefused = await new Promise<boolean>((resolve) => {
    const req = request(`${svc.url}/health`, { agent: false }, (res) => {
      res.resume();
      resolve(false);
    });
    req.on('error', () => resolve(true));
    req.end();
  });
  const done = await Promise.all(runs);
  const exitCode = await svc.exited;
  const inFlightStatuses: Record<string, number> = {};
  for (const s of done) inFlightStatuses[s] = (inFlightStatuses[s] ?? 0) + 1;
  return { inFlight: MAX_JOBS, inFlightStatuses, newConnectionRefused, exitCode, exitAfterMs: performance.now() - t0 };
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  log(`load: ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; MAX_JOBS=${MAX_JOBS}, JOB_MEMORY_MB=${JOB_MEMORY_MB}, MAX_INPUT_MB=${MAX_INPUT_MB}`);
  const svc = await startLoadService();
  try {
    const catalogue = (await (await fetch(`${svc.url}/api/v1/tools`)).json()) as Array<{ id?: string; name?: string }>;
    const ids = catalogue.map((t) => t.id ?? t.name);
    const tool = ids.includes('csv-to-excel') ? 'csv-to-excel' : 'split-rows';
    log(`small runs: ${CONCURRENCY} clients × ${DURATION_S} s, 10 KB CSV → xlsx with ${tool}`);
    const small = await smallRuns(svc, tool);
    log(`large runs: ${LARGE_CLIENTS} clients × ${LARGE_ROUNDS} rounds, ${MAX_INPUT_MB - 0.5} MB CSV → xlsx`);
    const large = await largeRuns(svc, tool);
    log('shutdown: SIGTERM with every job slot busy');
    const stop = await shutdown(svc, tool);
    const internalErrors = (svc.output().match(/internal_error/g) ?? []).length;

    const bad = Object.entries(small.statuses).filter(([s]) => !['200', '429', '503'].includes(s));
    const checks: Array<[string, boolean, string]> = [
      ['small: every answer 200, 429 or 503', bad.length === 0, JSON.stringify(small.statuses)],
      ['small: every 429/503 carries Retry-After', small.withoutRetryAfter === 0, `${small.withoutRetryAfter} without`],
      ['small: no reset or failed connection', Object.keys(small.failures).length === 0, JSON.stringify(small.failures)],
      [`small: p99 of the 200s under ${P99_LIMIT_MS} ms`, small.p99Ms < P99_LIMIT_MS, `p50 ${Math.round(small.p50Ms)} ms, p99 ${Math.round(small.p99Ms)} ms`],
      [`small: RSS back within ${RSS_RETURN_MB} MB of its start`, small.rssAfterMb - small.rssStartMb < RSS_RETURN_MB, `${small.rssStartMb.toFixed(0)} → peak ${small.rssPeakMb.toFixed(0)} → ${small.rssAfterMb.toFixed(0)} MB`],
      ['small: exactly one usage event per run answered', small.usageEventsDelta === small.answers, `${small.usageEventsDelta} events, ${small.answers} answers`],
      ['large: no 5xx but 503 busy, no failed connection', large.failures === 0 && Object.keys(large.statuses).every((s) => !s.startsWith('5') || s === '503 busy'), JSON.stringify(large.statuses)],
      ['large: RSS under MAX_JOBS × JOB_MEMORY_MB + base', large.rssPeakMb < large.boundMb, `peak ${large.rssPeakMb.toFixed(0)} MB, bound ${large.boundMb.toFixed(0)} MB`],
      ['shutdown: runs in flight finish with 200', stop.inFlightStatuses['200'] === stop.inFlight, JSON.stringify(stop.inFlightStatuses)],
      ['shutdown: new connections refused after SIGTERM', stop.newConnectionRefused, ''],
      ['shutdown: exit code 0', stop.exitCode === 0, `after ${Math.round(stop.exitAfterMs)} ms`],
      ['no internal_error logged', internalErrors === 0, `${internalErrors}`],
    ];
    log('');
    log('| check | result | figures |');
    log('| --- | --- | --- |');
    for (const [what, ok, figures] of checks) log(`| ${what} | ${ok ? 'ok' : 'FAILED'} | ${figures} |`);
    log('');
    log(`small runs: ${small.answers} answers in ${DURATION_S} s, ${small.runsPerSecond.toFixed(1)} successful runs/s; large: slowest ${Math.round(large.slowestMs)} ms`);
    const machine = { cores: cpus().length, cpu: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, date: new Date().toISOString() };
    writeFileSync(join(OUT, 'load.json'), JSON.stringify({ machine, config: { MAX_JOBS, JOB_MEMORY_MB, MAX_INPUT_MB, ANON_RUNS_PER_HOUR: 1e9 }, small, large, shutdown: stop, checks: checks.map(([what, ok, figures]) => ({ what, ok, figures })) }, null, 2) + '\n');
    log(`written: bench/out/load.json`);
    if (checks.some(([, ok]) => !ok)) process.exitCode = 1;
  } finally {
    await svc.close();
  }
}

await main();

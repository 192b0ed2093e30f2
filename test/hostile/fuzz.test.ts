// Seeded fuzzing: mutated xlsx/xls/csv/json inputs (fuzz-cases.ts) through the kernel. Most cases run with
// jobs inline, in a child process this test watches (fuzz-run.ts), so a case that never returns is caught and
// named, and one that brings its process down costs only that process; a smaller sample runs through the
// real job processes, where the job limits must stop any such case. Asserted: no internal_error (a 5xx), no
// unhandled rejection, no crash. Times are printed, never asserted: a run the limits fail to stop hangs the
// test, which the runner's timeout fails.
// FUZZ_SEED picks the run (printed on every failure), FUZZ_CASES and FUZZ_POOL_CASES its size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../../tools/core/config.ts';
import { ToolError } from '../../tools/core/errors.ts';
import { createKernel } from '../../tools/core/kernel.ts';
import { fuzzCase, recipe } from './fuzz-cases.ts';
import type { FuzzMessage, FuzzRange } from './fuzz-run.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123) >>> 0;
const CASES = Number(process.env.FUZZ_CASES ?? 3000);
const POOL_CASES = Number(process.env.FUZZ_POOL_CASES ?? 60);
/** A case still running after this long, inline, is stopped and replayed through the pool. */
const STUCK_MS = 15_000;
const POOL_TIMEOUT_S = 5;

interface InlineReport {
  outcomes: Map<string, number>;
  failures: string[];
  stuck: number[];
  slowest: { index: number; ms: number };
}

const RUNNER = fileURLToPath(new URL('./fuzz-run.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

/**
 * Runs cases [from, to) in a watched child process; a stuck case is recorded and the run resumes after it. The
 * child processes share one DATA_DIR, made here and removed at the end (a child stopped with SIGKILL cannot).
 */
async function runInline(from: number, to: number): Promise<InlineReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'st-fuzz-'));
  try {
    return await runInlineIn(dataDir, from, to);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function runInlineIn(dataDir: string, from: number, to: number): Promise<InlineReport> {
  const report: InlineReport = { outcomes: new Map(), failures: [], stuck: [], slowest: { index: -1, ms: 0 } };
  let next = from;
  while (next < to) {
    next = await new Promise<number>((resolve) => {
      const worker = fork(RUNNER, [JSON.stringify({ seed: SEED, from: next, to, dataDir } satisfies FuzzRange)], { execArgv: ['--import', TSX, '--max-old-space-size=2048'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      let current = next;
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const finish = (resumeAt: number) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        worker.kill('SIGKILL');
        resolve(resumeAt);
      };
      const watch = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          report.stuck.push(current);
          finish(current + 1);
        }, STUCK_MS);
      };
      worker.on('message', (m: FuzzMessage) => {
        if (m.type === 'start') {
          current = m.index;
          watch();
        } else if (m.type === 'outcome') {
          clearTimeout(timer);
          report.outcomes.set(m.outcome, (report.outcomes.get(m.outcome) ?? 0) + 1);
          if (m.ms > report.slowest.ms) report.slowest = { index: m.index, ms: m.ms };
        } else if (m.type === 'failure') {
          report.failures.push(`${m.recipe}\n${m.error}`);
        } else if (m.type === 'end') finish(to);
      });
      worker.on('error', (err) => {
        report.failures.push(`${recipe(SEED, fuzzCase(SEED, current))}\nrunner error: ${err.stack ?? err}`);
        finish(current + 1);
      });
      // Closed before its end (every message it sent is in by 'close'): the case in progress brought the
      // process down (out of memory, a crash).
      worker.on('close', (code, signal) => {
        if (!settled) report.failures.push(`${recipe(SEED, fuzzCase(SEED, current))}\nrunner died: ${code ?? signal}`);
        finish(current + 1);
      });
    });
  }
  return report;
}

test(`fuzz: ${CASES} mutated inputs (seed ${SEED}) through the kernel: no internal_error, no unhandled rejection`, async () => {
  const report = await runInline(0, CASES);
  const total = [...report.outcomes.values()].reduce((a, b) => a + b, 0);
  console.log(`fuzz seed ${SEED}: ${total} cases, outcomes ${JSON.stringify(Object.fromEntries([...report.outcomes].sort((a, b) => b[1] - a[1])))}, slowest case ${report.slowest.index} (${Math.round(report.slowest.ms)} ms), stuck ${JSON.stringify(report.stuck)}`);
  assert.equal(total + report.stuck.length, CASES, 'every case ran to an outcome or was caught stuck');
  assert.ok((report.outcomes.get('ok') ?? 0) > CASES * 0.05, 'a useful share of mutated inputs still runs: the mutations are not all fatal');
  assert.deepEqual(report.failures, [], `crashes (replay with the FUZZ_SEED and case shown)`);
  // A case stuck inline must be stopped by the real pool within its time limit, as 413 too_complex.
  if (report.stuck.length) await replayThroughPool(report.stuck);
});

async function replayThroughPool(indices: number[]): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'st-fuzz-'));
  const config = parseConfig({ ANON_RUNS_PER_HOUR: '1000000000', DATA_DIR: dataDir, MAX_JOBS: '2', JOB_TIMEOUT_S: String(POOL_TIMEOUT_S), JOB_MEMORY_MB: '512' });
  const kernel = createKernel(config);
  try {
    for (const i of indices) {
      const c = fuzzCase(SEED, i);
      const t0 = performance.now();
      const outcome = await kernel.invoke(c.tool, { args: c.options, files: c.files }, { ip: 'fuzz' }).then(
        () => 'ok',
        (err) => (err instanceof ToolError ? err.code : 'thrown'),
      );
      console.log(`stuck inline, through the pool: ${recipe(SEED, c)} → ${outcome} in ${Math.round(performance.now() - t0)} ms`);
      assert.notEqual(outcome, 'internal_error', recipe(SEED, c));
    }
  } finally {
    await kernel.close(0);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

test(`fuzz: ${POOL_CASES} mutated inputs through the job processes end, never as internal_error`, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'st-fuzz-'));
  const config = parseConfig({ ANON_RUNS_PER_HOUR: '1000000000', DATA_DIR: dataDir, MAX_JOBS: '2', JOB_TIMEOUT_S: String(POOL_TIMEOUT_S), JOB_MEMORY_MB: '512' });
  const kernel = createKernel(config);
  const unhandled: unknown[] = [];
  const onUnhandled = (err: unknown) => unhandled.push(err);
  process.on('unhandledRejection', onUnhandled);
  const outcomes = new Map<string, number>();
  const failures: string[] = [];
  let slowest = 0;
  try {
    // Cases from another stretch of the same seed, two at a time (MAX_JOBS), as concurrent callers would.
    const indices = Array.from({ length: POOL_CASES }, (_, k) => CASES + 1_000_000 + k);
    for (let k = 0; k < indices.length; k += 2) {
      await Promise.all(
        indices.slice(k, k + 2).map(async (i) => {
          const c = fuzzCase(SEED, i);
          const t0 = performance.now();
          let outcome = 'ok';
          try {
            await kernel.invoke(c.tool, { args: c.options, files: c.files }, { ip: 'fuzz' });
          } catch (err) {
            outcome = err instanceof ToolError ? err.code : 'thrown';
            if (outcome === 'internal_error' || outcome === 'thrown') failures.push(`${recipe(SEED, c)}\n${String((err as ToolError).detail?.cause ?? err)}`);
          }
          slowest = Math.max(slowest, performance.now() - t0);
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        }),
      );
    }
  } finally {
    process.off('unhandledRejection', onUnhandled);
    await kernel.close(0);
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`fuzz through the pool, seed ${SEED}: outcomes ${JSON.stringify(Object.fromEntries(outcomes))}, slowest ${Math.round(slowest)} ms`);
  assert.deepEqual(failures, []);
  assert.deepEqual(unhandled, []);
});

// Runs jobs off the event loop: a pool of worker threads with a heap bound and a time bound per run.
// A parser that loops or balloons on a hostile file loses its worker, never the server.
import { Piscina } from 'piscina';
import type { Lang } from '../../locales/index.ts';
import { toolLimitsOf, type Config, type ToolLimits } from './config.ts';
import { ToolError, type ErrorCode } from './errors.ts';
import { execute, type RunResult } from './execute.ts';
import type { InputFile } from './files.ts';
import { fullGc, RECLAIM } from './reclaim.ts';
import { getTool } from './registry.ts';
import { transferables } from './transfer.ts';

export interface Job {
  toolId: string;
  files: InputFile[];
  opts: Record<string, unknown>;
  lang: Lang;
  download: boolean;
  /** Set by the runner from its configuration. */
  limits?: ToolLimits;
  /**
   * Set by the pool runner: the worker stores in it, once it starts the run, the milliseconds elapsed since
   * `postedAt` (at least 1; 0 = not started). Shared memory rather than a message: a MessageChannel per run
   * cost both threads more than the rest of the hand-off (piscina's own message) did.
   */
  started?: Int32Array;
  /** `performance.timeOrigin + performance.now()` when the run was handed to the pool. */
  postedAt?: number;
}

export type JobReply =
  | { ok: true; result: RunResult }
  | { ok: false; code: ErrorCode; option?: string; messageKey?: string; params?: Record<string, string | number> };

export interface JobRunner {
  /** Runs in progress. */
  readonly active: number;
  /** Runs a job, or throws `busy` at once when every slot is taken. */
  run(job: Job): Promise<RunResult>;
  /** Waits for the runs in flight (at most `graceMs`), then stops the workers. */
  close(graceMs?: number): Promise<void>;
}

/** Seconds a caller refused as `busy` is told to wait. */
export const BUSY_RETRY_AFTER_S = 5;

/**
 * A worker left idle this long exits, except one that stays warm. V8 keeps the heap a worker grew to
 * during a busy spell; letting the extra workers go gives that memory back to the system, and the warm one
 * spares a run after a quiet spell the worker start (about a second).
 */
export const WORKER_IDLE_MS = 30_000;

/** Most a worker may take to start and load the tools before the run's own time limit begins. */
export const WORKER_START_S = 30;

/** Once no run has been in progress for this long, the main thread and a warm worker collect (reclaim.ts). */
export const RECLAIM_AFTER_MS = 5_000;

/**
 * A job worker's young generation (V8's default is 48 MB: three 16 MB semi-spaces' worth). Garbage waiting
 * there counts in a run's peak memory; 24 MB took 15-20 MB off every tabular task's peak at the same speed,
 * 12 MB gained nothing more, and much smaller made runs grow instead (objects promoted before they die).
 */
export const JOB_YOUNG_GENERATION_MB = 24;

/**
 * Milliseconds before the job's timer must look again (≤ 0: stop the run now), `elapsed` ms after the job was
 * posted, `since` = when the worker started it (ms after posting, 0 = not yet). A started run has `runMs`
 * from its start; another thread's clock is never trusted past what has been seen to elapse here. Until the
 * run starts its end can be no sooner than a full run from now, so the timer looks again then: a run that
 * starts late still gets its whole time, counted from its start, and one that never starts is given up
 * after `startMs` more.
 */
export function runTimeLeft(elapsed: number, since: number, runMs: number, startMs: number): number {
  if (since > 0) return Math.min(since, elapsed) + runMs - elapsed;
  const left = runMs + startMs - elapsed;
  return left > 0 ? Math.min(left, runMs) : left;
}

type Limits = Pick<Config, 'MAX_JOBS' | 'JOB_TIMEOUT_S' | 'JOB_MEMORY_MB' | 'MAX_CELLS' | 'PDF_MAX_ROWS'>;

/** The job workers' module: its default export runs a Job and answers a JobReply. */
export const WORKER_MODULE = new URL('./worker-entry.mjs', import.meta.url);

/**
 * Worker pool runner; `inline` runs in this thread instead (tests that exercise tools, not isolation).
 * `workerModule` replaces the workers' code: the bench measures the front door with a worker that answers
 * without running anything.
 */
export function createJobRunner(limits: Limits, mode: 'workers' | 'inline' = 'workers', workerModule: URL = WORKER_MODULE): JobRunner {
  const pool =
    mode === 'workers'
      ? new Piscina({
          filename: workerModule.href,
          minThreads: 1,
          maxThreads: limits.MAX_JOBS,
          idleTimeout: WORKER_IDLE_MS,
          resourceLimits: { maxOldGenerationSizeMb: limits.JOB_MEMORY_MB, maxYoungGenerationSizeMb: JOB_YOUNG_GENERATION_MB },
        })
      : null;
  // Piscina re-emits a worker's error on the pool when no run is attached to it any more, e.g. a worker
  // stopped at the time limit that runs out of heap while it is being terminated. Unheard, that 'error'
  // would be an uncaught exception and take the whole server down; the run itself was already answered.
  pool?.on('error', (err: unknown) => console.error('job pool: a worker failed outside a run (replaced):', err));
  let active = 0;
  const idle: Array<() => void> = [];
  let reclaimTimer: NodeJS.Timeout | undefined;
  const reclaim = () => {
    fullGc()?.();
    // One message per live worker: all are idle now, so each takes one (more would start a new worker).
    for (let i = 0; pool && i < pool.threads.length; i++) pool.run(RECLAIM).catch(() => {});
  };

  async function runInPool(job: Job): Promise<RunResult> {
    const ac = new AbortController();
    // The time limit counts from the moment a worker starts the run: a worker that replaces one stopped a
    // moment ago needs up to a second to load before it can, and that is not the run's time. The worker
    // writes when it started; the timer, set for the earliest possible deadline, reads it when it fires.
    const started = new Int32Array(new SharedArrayBuffer(4));
    const postedAt = performance.timeOrigin + performance.now();
    const posted = performance.now();
    const runMs = limits.JOB_TIMEOUT_S * 1000;
    const check = () => {
      const now = performance.now();
      const left = runTimeLeft(now - posted, Atomics.load(started, 0), runMs, WORKER_START_S * 1000);
      if (left <= 0) ac.abort();
      else timer = setTimeout(check, left);
    };
    let timer = setTimeout(check, runMs);
    try {
      // The uploads go to the worker without a copy: once posted, this thread never reads them again.
      const transferList = transferables(job.files.map((f) => f.bytes));
      const reply = (await pool!.run({ ...job, limits: toolLimitsOf(limits), started, postedAt }, { signal: ac.signal, transferList })) as JobReply;
      if (!reply.ok) throw new ToolError(reply.code, { option: reply.option, messageKey: reply.messageKey, params: reply.params });
      return reply.result;
    } catch (err) {
      if (err instanceof ToolError) throw err;
      // Piscina terminates the worker on abort and replaces a worker that ran out of heap.
      if (ac.signal.aborted) throw new ToolError('too_complex', { params: { reason: 'time' }, cause: err });
      if ((err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') throw new ToolError('too_complex', { params: { reason: 'memory' }, cause: err });
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async function runInline(job: Job): Promise<RunResult> {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), limits.JOB_TIMEOUT_S * 1000);
    try {
      return await execute(getTool(job.toolId), job.files, job.opts, { lang: job.lang, download: job.download, signal: ac.signal, limits: toolLimitsOf(limits) });
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    get active() {
      return active;
    },
    async run(job) {
      if (active >= limits.MAX_JOBS) throw new ToolError('busy', { retryAfter: BUSY_RETRY_AFTER_S });
      active++;
      clearTimeout(reclaimTimer);
      try {
        return await (pool ? runInPool(job) : runInline(job));
      } finally {
        active--;
        if (active === 0) {
          idle.splice(0).forEach((wake) => wake());
          reclaimTimer = setTimeout(reclaim, RECLAIM_AFTER_MS).unref();
        }
      }
    },
    async close(graceMs = 30_000) {
      clearTimeout(reclaimTimer);
      if (active > 0) await Promise.race([new Promise<void>((r) => idle.push(r)), new Promise((r) => setTimeout(r, graceMs).unref())]);
      await pool?.destroy();
    },
  };
}

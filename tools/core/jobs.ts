// Runs jobs off the event loop: a pool of worker threads with a heap bound and a time bound per run.
// A parser that loops or balloons on a hostile file loses its worker, never the server.
import { Piscina } from 'piscina';
import type { Lang } from '../../locales/index.ts';
import { toolLimitsOf, type Config, type ToolLimits } from './config.ts';
import { ToolError, type ErrorCode } from './errors.ts';
import { execute, type RunResult } from './execute.ts';
import type { InputFile } from './files.ts';
import { getTool } from './registry.ts';

export interface Job {
  toolId: string;
  files: InputFile[];
  opts: Record<string, unknown>;
  lang: Lang;
  download: boolean;
  /** Set by the runner from its configuration. */
  limits?: ToolLimits;
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

type Limits = Pick<Config, 'MAX_JOBS' | 'JOB_TIMEOUT_S' | 'JOB_MEMORY_MB' | 'MAX_CELLS' | 'PDF_MAX_ROWS'>;

/** Worker pool runner; `inline` runs in this thread instead (tests that exercise tools, not isolation). */
export function createJobRunner(limits: Limits, mode: 'workers' | 'inline' = 'workers'): JobRunner {
  const pool =
    mode === 'workers'
      ? new Piscina({
          filename: new URL('./worker-entry.mjs', import.meta.url).href,
          minThreads: limits.MAX_JOBS,
          maxThreads: limits.MAX_JOBS,
          idleTimeout: 60_000,
          resourceLimits: { maxOldGenerationSizeMb: limits.JOB_MEMORY_MB },
        })
      : null;
  let active = 0;
  const idle: Array<() => void> = [];

  async function runInPool(job: Job): Promise<RunResult> {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), limits.JOB_TIMEOUT_S * 1000);
    try {
      const reply = (await pool!.run({ ...job, limits: toolLimitsOf(limits) }, { signal: ac.signal })) as JobReply;
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
      try {
        return await (pool ? runInPool(job) : runInline(job));
      } finally {
        active--;
        if (active === 0) idle.splice(0).forEach((wake) => wake());
      }
    },
    async close(graceMs = 30_000) {
      if (active > 0) await Promise.race([new Promise<void>((r) => idle.push(r)), new Promise((r) => setTimeout(r, graceMs).unref())]);
      await pool?.destroy();
    },
  };
}

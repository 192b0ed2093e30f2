// Runs jobs off the event loop, each in a job process (process-pool.ts) with a memory bound and a time bound.
// A parser that loops or balloons on a hostile file loses its process, never the server.
import type { Lang } from '../../locales/index.ts';
import { MB, toolLimitsOf, type Config, type ToolLimits } from './config.ts';
import { ToolError, type ErrorCode } from './errors.ts';
import { execute, type RunResult } from './execute.ts';
import type { InputFile } from './files.ts';
import type { OutputFile } from './output.ts';
import { mark, type PhaseMarks } from './phases.ts';
import { createProcessPool, PoolFailure } from './process-pool.ts';
import { fullGc } from './reclaim.ts';
import { getTool } from './registry.ts';
import { own, release } from './transfer.ts';

export interface Job {
  toolId: string;
  files: InputFile[];
  opts: Record<string, unknown>;
  lang: Lang;
  download: boolean;
  /** Set by the runner from its configuration. */
  limits?: ToolLimits;
  /** Marks of the hand-off, run and hand-back, when the run is measured (phases.ts). */
  marks?: PhaseMarks;
  /** A download whose caller writes it as it arrives: the result comes back `streaming` (JobResult). */
  stream?: boolean;
}

/**
 * A download's result as the job process sends it: the file (one: several come zipped) is its final buffer,
 * filled as bytes arrive, so that the answer can go out as they come.
 */
export interface Streaming {
  /** Bytes of the file in so far. */
  received(): number;
  /** Resolves once more are in (or all are); rejects if they stop coming. */
  more(): Promise<void>;
  /** Settles once every byte is in; rejects with the ToolError of what stopped them. */
  done: Promise<void>;
}

/** A run's result; `streaming` while a download's bytes are still arriving (nothing may read them before). */
export interface JobResult extends RunResult {
  streaming?: Streaming;
}

export type JobReply =
  | { ok: true; result: RunResult }
  | { ok: false; code: ErrorCode; option?: string; messageKey?: string; params?: Record<string, string | number> };

export interface JobRunner {
  /** Runs in progress. */
  readonly active: number;
  /** Runs a job, or throws `busy` at once when every slot is taken. A run's slot is held until its bytes are in. */
  run(job: Job): Promise<JobResult>;
  /** Waits for the runs in flight (at most `graceMs`), then stops the workers. */
  close(graceMs?: number): Promise<void>;
}

/** Seconds a caller refused as `busy` is told to wait. */
export const BUSY_RETRY_AFTER_S = 5;

/**
 * A job process left idle this long exits, except one that stays warm. V8 keeps the heap a process grew to
 * during a busy spell; letting the extra processes go gives that memory back to the system, and the warm one
 * spares a run after a quiet spell the process start (about a second).
 */
export const WORKER_IDLE_MS = 30_000;

/** Most a job process may take to start and load the tools before the run waiting for it is given up. */
export const WORKER_START_S = 30;

/** Once no run has been in progress for this long, the main thread collects (reclaim.ts). */
export const RECLAIM_AFTER_MS = 5_000;

/**
 * Once no run has been in progress for this long, the idle job processes collect, or are replaced after
 * RECYCLE_AFTER_RUNS (process-pool.ts). Either costs the next runs the code V8 had optimized: in bursts of a
 * 10 KB CSV -> xlsx at 2 connections, the first second after a 7 s pause ran 409-503 runs where the process
 * had been replaced, 573-674 where it had collected, 806-852 where neither (about 950 a second when warm).
 * Pauses of a few seconds between bursts are common (an assistant between two calls); the memory a process
 * keeps through one is at most what its heap's own collections allow, and given back once the pause lasts.
 */
export const JOB_RECLAIM_AFTER_MS = WORKER_IDLE_MS;

/**
 * A job process's young generation (V8's default is 48 MB: three 16 MB semi-spaces' worth). Garbage waiting
 * there counts in a run's peak memory; 24 MB took 15-20 MB off every tabular task's peak at the same speed,
 * 12 MB gained nothing more, and much smaller made runs grow instead (objects promoted before they die).
 */
export const JOB_YOUNG_GENERATION_MB = 24;

/**
 * A job process's initial old generation (`--initial-old-space-size`), which V8 also keeps as the least its
 * allocation limit falls to. V8 counts the buffers a run allocates (its input, its results, zlib's) towards
 * that limit, and sets the limit from the heap left after a collection (mostly the tools' loaded code) times
 * a growth factor that is small under a heap bound of about 1 GB: a run splitting a CSV of a few MB crossed
 * it once or twice, each time a full collection marking all that code again, on the cores the deflate needs.
 * With this floor a collection comes every few such runs. A fresh process's peak is unchanged (its first
 * runs never reached a collection), and a process left holding much after a job still collects before the
 * next (process-pool.ts).
 */
export const JOB_INITIAL_OLD_SPACE_MB = 128;

/**
 * V8 flags of every job process beyond its memory bounds. Without allocation-site pretenuring: V8 decides, from
 * how many objects of an allocation site survived a collection, to allocate that site's objects in the old
 * generation from then on, and a decision taken on a site that also makes short-lived objects sends them
 * there too. On xml-to-excel's 33.6 MB bench XML, one fresh process in two took that turn (when depends on
 * background compilation): its old generation then grew 4 MB per young collection instead of 0.7, and the
 * run grew 243-300 MB instead of 98-100 (bound 158) and took 1.6-2.0 s instead of 1.3. Without it, every run
 * grew 98-101 MB; the other tasks of the bench kept their times and peaks.
 *
 * Without V8's memory reducer: a few seconds into an idle spell it collects and shrinks the young generation to
 * its least, and the next run, starting with a young generation of 1 MB, promotes what a larger one would have
 * let die: ods-to-excel's first run after 12 s idle grew 48-51 MB instead of 27-28, split-by-column's on the
 * 15 MB workbook 83-84 instead of 65. What an idle process may give back is given back by process-pool.ts's
 * own collections after a job and in quiet spells, which leave the young generation as it is.
 */
export const JOB_V8_FLAGS = ['--no-allocation-site-pretenuring', '--no-memory-reducer'];

/**
 * Nice steps job processes run below the server (priority.ts). In the bench's small-file load (2 connections,
 * 2 cores) the server was preempted by the job process it had just woken about once every two requests; 5, 10
 * and 19 each gave 7-9 % more runs a second than 0, alternated on one server. A job still gets all the CPU
 * the server leaves, which is nearly all of it while a large file converts.
 */
export const JOB_NICE = 5;

/**
 * The floor a pool gets: at most an eighth of what a run may gain (JOB_MEMORY_MB), the garbage process-pool.ts
 * lets a process keep after a job. Garbage left uncollected counts in that bound, so a small one (a container
 * with little memory) must not wait for 128 MB of it before collecting.
 */
export const initialOldSpaceMb = (jobMemoryMb: number) => Math.min(JOB_INITIAL_OLD_SPACE_MB, Math.floor(jobMemoryMb / 8));

/**
 * Heap a job process holds before any run (the tools' code and their tables, about 30 MB), added to
 * JOB_MEMORY_MB for V8's own bound. The binding bound is the resident memory a process gains during a run
 * (process-pool.ts), which counts buffers too; V8's is there for a heap that grows faster than it is read.
 */
export const JOB_BASE_HEAP_MB = 64;

type Limits = Pick<Config, 'MAX_JOBS' | 'JOB_TIMEOUT_S' | 'JOB_MEMORY_MB' | 'MAX_CELLS' | 'PDF_MAX_ROWS' | 'MAX_RESULT_MB' | 'MAX_INLINE_RESULT_MB'>;

/** The job processes' module: its default export runs a Job and answers a JobReply. */
export const WORKER_MODULE = new URL('./worker.ts', import.meta.url);

/** The fields of further files (`lookup-file`), by position, when a job has any: null for the main field's. */
function fieldsOf(files: InputFile[]): { fields?: (string | null)[] } {
  return files.some((f) => f.field !== undefined) ? { fields: files.map((f) => f.field ?? null) } : {};
}

/** A failure of the job process (not a verdict of the tool) as the caller's error. */
function failureOf(err: PoolFailure, job: Job, limits: Limits): ToolError {
  switch (err.reason) {
    case 'time':
      return new ToolError('too_complex', { params: { reason: 'time' }, cause: err });
    // A process that dies during a run was, short of a bug, brought down by what the run allocated.
    case 'memory':
    case 'died':
      return new ToolError('too_complex', { params: { reason: 'memory' }, cause: err });
    case 'result':
      return new ToolError('result_too_large', { params: { max: job.download ? limits.MAX_RESULT_MB : limits.MAX_INLINE_RESULT_MB }, cause: err });
    case 'closed':
      return new ToolError('busy', { retryAfter: BUSY_RETRY_AFTER_S, cause: err });
    case 'start':
      return new ToolError('internal_error', { cause: err });
  }
}

/**
 * Job processes, or `inline`: this thread instead (tests that exercise tools, not isolation). `workerModule`
 * replaces the jobs' code: the bench measures the front door with one that answers without running anything.
 */
export function createJobRunner(limits: Limits, mode: 'workers' | 'inline' = 'workers', workerModule: URL = WORKER_MODULE): JobRunner {
  const pool =
    mode === 'workers'
      ? createProcessPool({
          module: workerModule,
          maxProcesses: limits.MAX_JOBS,
          heapMb: limits.JOB_MEMORY_MB + JOB_BASE_HEAP_MB,
          youngMb: JOB_YOUNG_GENERATION_MB,
          initialOldMb: initialOldSpaceMb(limits.JOB_MEMORY_MB),
          v8Flags: JOB_V8_FLAGS,
          nice: JOB_NICE,
          memoryMb: limits.JOB_MEMORY_MB,
          idleMs: WORKER_IDLE_MS,
          startMs: WORKER_START_S * 1000,
        })
      : null;
  let active = 0;
  const idle: Array<() => void> = [];
  let reclaimTimer: NodeJS.Timeout | undefined;
  let jobReclaimTimer: NodeJS.Timeout | undefined;
  const quiet = () => {
    reclaimTimer = setTimeout(() => fullGc()?.(), RECLAIM_AFTER_MS).unref();
    if (pool) jobReclaimTimer = setTimeout(() => pool.reclaim(), JOB_RECLAIM_AFTER_MS).unref();
  };
  const busy = () => {
    clearTimeout(reclaimTimer);
    clearTimeout(jobReclaimTimer);
  };

  async function runInPool(job: Job): Promise<JobResult> {
    const head = { t: 'job', toolId: job.toolId, opts: job.opts, lang: job.lang, download: job.download, limits: toolLimitsOf(limits, job.download), names: job.files.map((f) => f.name), ...fieldsOf(job.files), ...(job.marks ? { timed: true } : {}) };
    const bytes = job.files.map((f) => f.bytes);
    const maxResultBytes = Math.ceil((job.download ? limits.MAX_RESULT_MB : limits.MAX_INLINE_RESULT_MB) * MB);
    let reply;
    try {
      // Once the job process has the uploads, this process never reads them again: they are let go at once.
      reply = await pool!.run(head, bytes, { timeoutMs: limits.JOB_TIMEOUT_S * 1000, maxResultBytes, sent: () => release(bytes), stream: job.stream === true && job.download });
    } catch (err) {
      if (err instanceof PoolFailure) throw failureOf(err, job, limits);
      throw err;
    }
    const h = reply.head as unknown as JobReply & { result?: { files: Array<Omit<OutputFile, 'bytes'>> }; at?: [number, number]; pid?: number; grewMb?: number };
    if (job.marks) {
      [job.marks.got, job.marks.done] = h.at ?? [];
      job.marks.jobPid = h.pid;
      job.marks.jobGrowthMb = h.grewMb;
    }
    // A reply whose bytes came in with its head (any small one) is whole already: nothing left to stream.
    const arrival = reply.arrival && reply.arrival.received < reply.arrival.total ? reply.arrival : undefined;
    if (!arrival) mark(job.marks, 'returned');
    if (!h.ok) throw new ToolError(h.code, { option: h.option, messageKey: h.messageKey, params: h.params });
    // Each file came in a buffer of its own, which the answer may let go once it is written (transfer.ts).
    for (const f of reply.files) own(f.buffer);
    const files = h.result.files.map((f, i) => ({ name: f.name, contentType: f.contentType, bytes: reply.files[i] }));
    if (!arrival) return { ...h.result, files };
    const done = arrival.done.then(
      () => mark(job.marks, 'returned'),
      (err: unknown) => {
        throw err instanceof PoolFailure ? failureOf(err, job, limits) : err;
      },
    );
    return { ...h.result, files, streaming: { received: () => arrival.received, more: () => arrival.more(), done } };
  }

  async function runInline(job: Job): Promise<RunResult> {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), limits.JOB_TIMEOUT_S * 1000);
    try {
      return await execute(getTool(job.toolId), job.files, job.opts, { lang: job.lang, download: job.download, signal: ac.signal, limits: toolLimitsOf(limits, job.download) });
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
      busy();
      const finished = () => {
        active--;
        if (active === 0) {
          idle.splice(0).forEach((wake) => wake());
          quiet();
        }
      };
      let result: JobResult;
      try {
        result = await (pool ? runInPool(job) : runInline(job));
      } catch (err) {
        finished();
        throw err;
      }
      if (result.streaming) result.streaming.done.then(finished, finished);
      else finished();
      return result;
    },
    async close(graceMs = 30_000) {
      busy();
      if (active > 0) await Promise.race([new Promise<void>((r) => idle.push(r)), new Promise((r) => setTimeout(r, graceMs).unref())]);
      await pool?.close();
    },
  };
}

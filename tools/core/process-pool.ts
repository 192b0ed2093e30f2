// The job processes: a small supervisor over child processes that run one job at a time each. A worker thread
// is no wall (a thread that exhausts its heap in some allocation shapes aborts the whole process, nodejs/node
// issue 47224); a process is: whatever a job does to its own, the server goes on. Each process has a V8 heap
// bound, and its resident memory is read from here while it works, so that buffers outside the heap count
// too; a process past its memory or its time is killed, and its job answered.
//
// The wire is job-frames.ts over a Unix socket, and both ends read with `onread`: a file's bytes go from the
// socket straight into the buffer the file will live in, with no chunks to copy or collect. child_process's
// own channel (JSON or advanced serialization) copies every byte several times, and stdio pipes cannot read
// that way on this side; so each process gets a connection made here (to a listener in a private folder)
// as its fd 3.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { connect, createServer, type OnReadOpts, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FrameReader, FrameTooLarge, writeFrame, type FrameHead } from './job-frames.ts';
import { lowerPriority, type Placed } from './priority.ts';

export interface PoolOptions {
  /** The job module each process loads (its default export runs a Job). */
  module: URL;
  maxProcesses: number;
  /** V8 old-generation bound of each process (`--max-old-space-size`), in MB. */
  heapMb: number;
  /** V8 young-generation size, in MB (three semi-spaces). */
  youngMb: number;
  /** V8's initial old generation, in MB (`--initial-old-space-size`): also the least its allocation limit falls to. */
  initialOldMb?: number;
  /** Further V8 flags of each process. */
  v8Flags?: readonly string[];
  /** How many nice steps below the server its processes run (priority.ts); unset, at the server's priority. */
  nice?: number;
  /** Resident memory a process may gain over what it held once ready, in MB; past it, its job is stopped. */
  memoryMb: number;
  /** An idle process beyond the first exits after this long. */
  idleMs: number;
  /** Most a process may take to load before the job waiting for it is given up. */
  startMs: number;
  /** Full collections asked of a process before it is replaced instead; COLLECTIONS_BEFORE_REPLACE unset. */
  collectionsBeforeReplace?: number;
}

/** Why a run ended without a reply. */
export type PoolFailureReason = 'time' | 'memory' | 'died' | 'result' | 'start' | 'closed';

export class PoolFailure extends Error {
  readonly reason: PoolFailureReason;
  constructor(reason: PoolFailureReason, detail: string) {
    super(`job process: ${reason} (${detail})`);
    this.reason = reason;
  }
}

export interface PoolReply {
  head: FrameHead;
  files: Uint8Array[];
  /** For a run asked to stream: the files' bytes still arriving (the files are their final buffers). */
  arrival?: Arrival;
}

/**
 * The bytes of a reply's files as they arrive, for a caller that passes them on as they come (the download
 * of a large result goes out while the job process is still sending it). `received` counts the bytes in so
 * far, in order; `more()` waits for the next ones; `done` settles once all are in, or with the PoolFailure
 * that stopped them.
 */
export class Arrival {
  received = 0;
  readonly total: number;
  readonly done: Promise<void>;
  private settle!: (err?: PoolFailure) => void;
  private failure: PoolFailure | null = null;
  private finished = false;
  private waiting: Array<{ resolve(): void; reject(err: PoolFailure): void }> = [];

  constructor(total: number) {
    this.total = total;
    this.done = new Promise<void>((resolve, reject) => (this.settle = (err) => (err ? reject(err) : resolve())));
    // A caller that only waits with more() must not leave this rejection unheard.
    this.done.catch(() => {});
  }

  /** Resolves once more bytes are in than when it was called (or all are), rejects if they stop coming. */
  more(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.finished) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  add(n: number): void {
    this.received += n;
    this.wake();
  }

  finish(): void {
    this.finished = true;
    this.settle();
    this.wake();
  }

  fail(err: PoolFailure): void {
    if (this.finished || this.failure) return;
    this.failure = err;
    this.settle(err);
    for (const w of this.waiting.splice(0)) w.reject(err);
  }

  private wake(): void {
    for (const w of this.waiting.splice(0)) w.resolve();
  }
}

/** How often the resident memory of busy processes is read (/proc/<pid>/statm, a few microseconds each). */
export const MEMORY_CHECK_MS = 20;
/** Memory a process may keep after a job before it collects (at least this, or an eighth of its bound). */
const COLLECT_OVER_MB = 64;
/** Runs after which a process is replaced at the next quiet spell: what its allocator keeps goes with it. */
export const RECYCLE_AFTER_RUNS = 200;
/**
 * Full collections a process is asked for (after a large job, or in a quiet spell) before it is replaced
 * instead: a guard against code that V8 stops optimizing once collections have dropped what it learnt of its
 * objects too often, as saxes's parser did after six (xml-to-excel: 1.0-1.9 s a run, then 2.4-3.7 s;
 * xml/read.ts now keeps the last parser). Every task of the bench, in turn in one process with a collection
 * after each run, kept its times through 160 collections. A replacement is not free: a successor's first
 * runs of each tool load and compile it again and grow more than a warm process's, so the count is as high as
 * that measurement allows (README, "Job processes").
 */
export const COLLECTIONS_BEFORE_REPLACE = 100;
/** Memory an idle process may keep through a quiet spell without collecting (nothing to give back). */
const IDLE_COLLECT_OVER_MB = 16;
/** Time an ended process gets to exit on its own before it is killed. */
const EXIT_GRACE_MS = 2_000;
/** Frame heads from a job process: a preview of 20 rows of long cells can be large, never this large. */
const MAX_REPLY_HEAD_BYTES = 512 * 1024 * 1024;

const ENTRY = fileURLToPath(new URL('./job-process.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');
const MB = 1024 * 1024;

/**
 * Bytes per page of /proc/<pid>/statm, found once by reading this process's resident pages next to its
 * resident bytes; null where there is no /proc (not Linux), and then no process is watched.
 */
const PAGE_BYTES: number | null = (() => {
  try {
    const pages = Number(readFileSync('/proc/self/statm', 'latin1').split(' ')[1]);
    const ratio = process.memoryUsage.rss() / pages;
    return 2 ** Math.round(Math.log2(ratio));
  } catch {
    return null;
  }
})();

/**
 * Reads a process's resident memory from /proc/<pid>/statm: opened once, read again from its start each
 * time (a few microseconds, where /proc/<pid>/status costs a hundred and more on a busy machine).
 */
export function residentReader(pid: number): { bytes(): number | null; close(): void } | null {
  if (PAGE_BYTES === null) return null;
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/statm`, 'r');
  } catch {
    return null;
  }
  const buf = Buffer.alloc(128);
  return {
    bytes() {
      try {
        const n = readSync(fd, buf, 0, buf.length, 0);
        const pages = Number(buf.toString('latin1', 0, n).split(' ')[1]);
        return Number.isFinite(pages) ? pages * PAGE_BYTES! : null;
      } catch {
        return null;
      }
    },
    close: () => closeSync(fd),
  };
}

interface Pending {
  resolve(reply: PoolReply): void;
  reject(err: PoolFailure): void;
  timer: NodeJS.Timeout;
  /** The run takes its reply's files as they arrive. */
  stream: boolean;
  /** Set once such a run has been answered with the reply's head: its files are still arriving. */
  arrival?: Arrival;
}

interface JobProcess {
  /** `collecting`: running a full collection asked after a job (no job of its own); free again shortly. */
  state: 'starting' | 'idle' | 'busy' | 'collecting' | 'gone';
  child: ChildProcess | null;
  channel: Socket | null;
  reader: FrameReader;
  ready: boolean;
  /** Resident bytes once loaded: the base a job's memory is counted from. */
  readyRss: number;
  /** The most resident bytes seen during the current (or last) job. */
  peakRss: number;
  resident: ReturnType<typeof residentReader>;
  runs: number;
  /** Full collections asked of it (COLLECTIONS_BEFORE_REPLACE). */
  collections: number;
  /** The process loading to take its place, once it is due for replacement: it serves until that one is ready. */
  successor: JobProcess | null;
  /** Loading as a successor that no run waits for yet: at the lowest CPU priority until needed (priority.ts). */
  spare: boolean;
  /** Tools it has run, or prepared as a successor: its own successor prepares them (define.ts `prepare`). */
  tools: Set<string>;
  placed: Placed | null;
  pending: Pending | null;
  idleTimer: NodeJS.Timeout | undefined;
  exited: Promise<void>;
  markExited(): void;
}

export interface ProcessPool {
  /**
   * Runs one job frame on a process and resolves with its reply frame; rejects with a PoolFailure. `sent` is
   * called once the job's bytes are all written (the process has them, or the kernel holds the rest). With
   * `stream`, a reply with files resolves as soon as its head is in, its files still arriving (`arrival`).
   */
  run(head: Record<string, unknown>, files: Uint8Array[], o: { timeoutMs: number; maxResultBytes: number; sent?: () => void; stream?: boolean }): Promise<PoolReply>;
  /** Idle processes collect their garbage; those that have served many runs are replaced. */
  reclaim(): void;
  /** Processes alive (starting, idle or busy). */
  readonly size: number;
  close(): Promise<void>;
}

/**
 * A connected pair of Unix sockets: this process's end, which reads with `onread`, and the end a job process
 * gets as its fd 3. It is made through a listener in a folder only this user can enter, and the folder is
 * removed as soon as the pair is made: a server killed outright (SIGKILL, out of memory) leaves none behind.
 * Where the temporary folder cannot be written (a container with a read-only root file system and no /tmp
 * volume), a Linux abstract socket with an unguessable name takes its place, needing no file. Either listener
 * takes the one connection made and is closed.
 */
async function socketPair(onread: OnReadOpts): Promise<{ mine: Socket; theirs: Socket }> {
  let dir: string | null = null;
  let path: string;
  try {
    dir = mkdtempSync(join(tmpdir(), 'st-jobs-'));
    path = join(dir, 'jobs.sock');
  } catch (err) {
    if (process.platform !== 'linux') throw err;
    path = `\0spreadsheet-tools-jobs-${process.pid}-${randomBytes(16).toString('hex')}`;
  }
  const server = createServer();
  server.maxConnections = 1;
  try {
    const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
    server.listen(path);
    await once(server, 'listening');
    const mine = connect({ path, onread });
    mine.on('error', () => {});
    await once(mine, 'connect');
    return { mine, theirs: await accepted };
  } finally {
    server.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

export function createProcessPool(o: PoolOptions): ProcessPool {
  const procs = new Set<JobProcess>();
  const waiters: Array<{ take(p: JobProcess): void; fail(err: PoolFailure): void }> = [];
  let closed = false;
  let watch: NodeJS.Timeout | undefined;
  const collectionsBeforeReplace = o.collectionsBeforeReplace ?? COLLECTIONS_BEFORE_REPLACE;
  // Where frame heads are read (a file's bytes go into its own buffer): reads are handled one at a time, and
  // each is consumed before the next, so every process can share it.
  const scratch = new Uint8Array(64 * 1024);

  function start(spare = false, tools: Iterable<string> = []): JobProcess {
    let markExited!: () => void;
    const exited = new Promise<void>((resolve) => (markExited = resolve));
    const p: JobProcess = { state: 'starting', child: null, channel: null, ready: false, readyRss: 0, peakRss: 0, resident: null, runs: 0, collections: 0, successor: null, spare, tools: new Set(tools), placed: null, pending: null, idleTimer: undefined, exited, markExited, reader: null as unknown as FrameReader };
    p.reader = new FrameReader((head, files) => onFrame(p, head, files), { maxHeadBytes: MAX_REPLY_HEAD_BYTES, maxFileBytes: 0 });
    p.reader.onStart = (head, files) => onReplyHead(p, head, files);
    p.reader.onBytes = (n) => p.pending?.arrival?.add(n);
    procs.add(p);
    launch(p).catch((err: unknown) => {
      console.error('job process: cannot start:', err);
      failedStart(p, String(err));
    });
    return p;
  }

  async function launch(p: JobProcess): Promise<void> {
    // Closed or killed while its sockets were made (read through a call: the await changes it).
    const gone = () => p.state === 'gone';
    const { mine: channel, theirs: childEnd } = await socketPair({
      buffer: () => p.reader.target() ?? scratch,
      callback: (n: number, buf: Uint8Array) => {
        if (gone()) return true;
        try {
          if (buf === scratch) p.reader.push(scratch.subarray(0, n));
          else p.reader.filled(n);
        } catch (err) {
          kill(p, err instanceof FrameTooLarge ? 'result' : 'died', (err as Error).message);
        }
        return true;
      },
    });
    if (gone()) {
      channel.destroy();
      childEnd.destroy();
      return p.markExited();
    }
    const initialOld = o.initialOldMb ? [`--initial-old-space-size=${o.initialOldMb}`] : [];
    const args = ['--import', TSX, `--max-old-space-size=${o.heapMb}`, `--max-semi-space-size=${Math.max(1, Math.floor(o.youngMb / 3))}`, ...initialOld, ...(o.v8Flags ?? []), ENTRY, o.module.href, JSON.stringify([...p.tools])];
    // Its own process group: a Ctrl-C meant for the server (which lets runs in flight finish) is not its own.
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit', childEnd], detached: true });
    childEnd.destroy();
    if (o.nice && child.pid !== undefined) p.placed = lowerPriority(child.pid, o.nice, () => child.exitCode === null && child.signalCode === null, p.spare);
    p.child = child;
    p.channel = channel;
    p.resident = child.pid === undefined ? null : residentReader(child.pid);
    child.once('exit', (code, signal) => onExit(p, code, signal));
    child.once('error', (err) => onExit(p, null, null, err));
    idleRefs(p, true);
  }

  /** An idle process keeps neither the event loop nor a test alive; a busy one does. */
  function idleRefs(p: JobProcess, idle: boolean): void {
    if (idle) {
      p.child?.unref();
      p.channel?.unref();
    } else {
      p.child?.ref();
      p.channel?.ref();
    }
  }

  function onFrame(p: JobProcess, head: FrameHead, files: Uint8Array[]): void {
    if (p.state === 'gone') return;
    const rss = typeof head.rss === 'number' ? head.rss : 0;
    if (head.t === 'ready') {
      needed(p);
      p.ready = true;
      p.readyRss = rss;
      release(p);
      for (const q of procs) if (q.successor === p && q.state === 'idle') retire(q);
    } else if (head.t === 'reply' && p.pending) {
      const pending = p.pending;
      p.pending = null;
      clearTimeout(pending.timer);
      p.runs++;
      stopWatchIfIdle();
      if (pending.arrival) pending.arrival.finish();
      else pending.resolve({ head, files });
      // A process seen holding much memory during its job collects before it takes the next one.
      if (p.peakRss - p.readyRss > Math.max(COLLECT_OVER_MB * MB, (o.memoryMb * MB) / 8)) collect(p);
      else release(p);
    } else if (head.t === 'collected') {
      // Collected and still large: what it keeps is fragmentation that only a new process gives back.
      if (rss - p.readyRss > (o.memoryMb * MB) / 2) retire(p);
      else release(p);
    } else {
      kill(p, 'died', `unexpected frame ${String(head.t)}`);
    }
  }

  /** A reply's head, its files about to arrive: a run that streams is answered now (its time still runs). */
  function onReplyHead(p: JobProcess, head: FrameHead, files: Uint8Array[]): void {
    const pending = p.pending;
    if (p.state === 'gone' || head.t !== 'reply' || !pending?.stream) return;
    pending.arrival = new Arrival(files.reduce((n, f) => n + f.byteLength, 0));
    pending.resolve({ head, files, arrival: pending.arrival });
  }

  function send(p: JobProcess, head: Record<string, unknown>, files: Uint8Array[] = [], sent?: () => void): void {
    writeFrame(p.channel!, head, files, sent);
  }

  /** Resident bytes a process holds over what it held once ready (everything, where it cannot be read). */
  function holding(p: JobProcess): number {
    const rss = p.resident?.bytes() ?? null;
    return rss === null ? Infinity : rss - p.readyRss;
  }

  /** Has a process collect its garbage, or replaces it once it has done so collectionsBeforeReplace times. */
  function collect(p: JobProcess): void {
    if (p.collections >= collectionsBeforeReplace) return replace(p);
    p.collections++;
    p.state = 'collecting';
    send(p, { t: 'reclaim' });
  }

  /**
   * Replaces a process. Where the bound leaves room, it serves on while its successor loads and is retired
   * once that one is ready, so that no run waits for the start (half a second or more; in the bench, runs
   * that came during one waited up to 430 ms to be handed off); else, or if it is due again before then, at once.
   * The successor loads as a spare, on CPU nothing else wants, until it is needed (priority.ts).
   */
  function replace(p: JobProcess): void {
    if (p.successor || procs.size >= o.maxProcesses) return retire(p);
    p.successor = start(true, p.tools);
    release(p);
  }

  /** A process free for work: to the first run waiting for one, else idle (or retired once its successor is ready). */
  function release(p: JobProcess): void {
    if (p.state === 'gone') return;
    const waiter = waiters.shift();
    if (waiter) {
      p.state = 'busy';
      waiter.take(p);
      return;
    }
    if (p.successor?.ready) return retire(p);
    p.state = 'idle';
    idleRefs(p, true);
    if (procs.size > 1) {
      p.idleTimer = setTimeout(() => p.state === 'idle' && procs.size > 1 && retire(p), o.idleMs);
      p.idleTimer.unref();
    }
  }

  function acquire(): Promise<JobProcess> {
    for (const p of procs) {
      if (p.state === 'idle') {
        clearTimeout(p.idleTimer);
        p.state = 'busy';
        return Promise.resolve(p);
      }
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = waiters.indexOf(waiter);
        if (i >= 0) waiters.splice(i, 1);
        reject(new PoolFailure('start', `no process ready within ${o.startMs} ms`));
      }, o.startMs);
      const waiter = {
        take: (p: JobProcess) => (clearTimeout(timer), resolve(p)),
        fail: (err: PoolFailure) => (clearTimeout(timer), reject(err)),
      };
      waiters.push(waiter);
      // A run waits: no process is loading as a spare any more.
      for (const q of procs) if (q.state === 'starting') needed(q);
      // Every process is busy, collecting, or starting for an earlier waiter: one more, within the bound,
      // unless one already collecting will be free for it: a collection is over in tens of milliseconds,
      // a start takes half a second of CPU beside the run and a hundred megabytes more.
      const soon = [...procs].filter((p) => p.state === 'starting' || p.state === 'collecting').length;
      if (soon < waiters.length && procs.size < o.maxProcesses) start();
    });
  }

  /** A spare is wanted now (ready to serve, or a run waits for it): back to the place of every process. */
  function needed(p: JobProcess): void {
    p.spare = false;
    p.placed?.needed();
  }

  function forget(p: JobProcess): void {
    p.state = 'gone';
    procs.delete(p);
    clearTimeout(p.idleTimer);
    p.resident?.close();
    p.resident = null;
  }

  /** Ends a process that is not running a job: it exits once its channel closes. */
  function retire(p: JobProcess): void {
    if (p.state === 'gone') return;
    forget(p);
    if (p.child) {
      p.channel?.end();
      const child = p.child;
      setTimeout(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), EXIT_GRACE_MS).unref();
    }
    replenish(p.tools);
  }

  /**
   * After a process has gone: a new one when none is left or a run waits for one, within the bound. One that
   * no run waits for loads as a spare, and prepares the tools of the one that went (`tools`).
   */
  function replenish(tools: Iterable<string> = []): void {
    if (closed || !(procs.size === 0 || waiters.length > 0) || procs.size >= o.maxProcesses) return;
    if (waiters.length > 0) start();
    else start(true, tools);
  }

  /** Stops a process now; its job, if any, is answered with `reason`. */
  function kill(p: JobProcess, reason: PoolFailureReason, detail: string): void {
    if (p.state === 'gone') return;
    forget(p);
    p.child?.kill('SIGKILL');
    p.channel?.destroy();
    const pending = p.pending;
    p.pending = null;
    if (pending) {
      clearTimeout(pending.timer);
      const failure = new PoolFailure(reason, detail);
      if (pending.arrival) pending.arrival.fail(failure);
      else pending.reject(failure);
    }
    replenish();
    stopWatchIfIdle();
  }

  /** A process that could not start or load: one waiting run is told (never endless restarts of it). */
  function failedStart(p: JobProcess, detail: string): void {
    if (p.state !== 'gone') {
      forget(p);
      waiters.shift()?.fail(new PoolFailure('start', detail));
    }
    p.channel?.destroy();
    if (!p.child) p.markExited();
  }

  function onExit(p: JobProcess, code: number | null, signal: NodeJS.Signals | null, err?: Error): void {
    p.channel?.destroy();
    p.markExited();
    if (p.state === 'gone') return;
    const detail = err ? err.message : `exit ${code ?? signal}`;
    if (!p.ready) {
      console.error(`job process ${p.child?.pid} ended before it was ready (${detail})`);
      return failedStart(p, detail);
    }
    if (p.pending) console.error(`job process ${p.child?.pid} died during a job (${detail}): the job is answered too_complex`);
    kill(p, 'died', detail);
  }

  /** While any job runs, the resident memory of busy processes is read every MEMORY_CHECK_MS. */
  function watchMemory(): void {
    if (watch) return;
    watch = setInterval(() => {
      for (const p of procs) {
        if (!p.pending) continue;
        const rss = p.resident?.bytes() ?? null;
        if (rss === null) continue;
        p.peakRss = Math.max(p.peakRss, rss);
        if (rss - p.readyRss > o.memoryMb * MB) kill(p, 'memory', `${Math.round(rss / MB)} MB resident`);
      }
      stopWatchIfIdle();
    }, MEMORY_CHECK_MS);
  }

  function stopWatchIfIdle(): void {
    if (watch && ![...procs].some((p) => p.pending)) {
      clearInterval(watch);
      watch = undefined;
    }
  }

  // One process is started at once, so that the first run does not wait for it to load.
  start();

  return {
    get size() {
      return procs.size;
    },
    async run(head, files, r) {
      if (closed) throw new PoolFailure('closed', 'the pool is closed');
      const p = await acquire();
      return new Promise<PoolReply>((resolve, reject) => {
        // The run's time counts from here, once a process is ready and has the job: the time a process took
        // to load (after one was killed a moment ago, say) is not the run's.
        const timer = setTimeout(() => kill(p, 'time', `over ${r.timeoutMs} ms`), r.timeoutMs);
        p.pending = { resolve, reject, timer, stream: r.stream === true };
        if (typeof head.toolId === 'string') p.tools.add(head.toolId);
        p.peakRss = 0;
        p.reader.maxFileBytes = r.maxResultBytes;
        idleRefs(p, false);
        watchMemory();
        send(p, head, files, r.sent);
      });
    },
    reclaim() {
      for (const p of procs) {
        if (p.state !== 'idle') continue;
        if (p.runs >= RECYCLE_AFTER_RUNS) retire(p);
        else if (holding(p) > IDLE_COLLECT_OVER_MB * MB) {
          clearTimeout(p.idleTimer);
          collect(p);
        }
      }
    },
    async close() {
      closed = true;
      for (const w of waiters.splice(0)) w.fail(new PoolFailure('closed', 'the pool is closed'));
      const all = [...procs];
      for (const p of all) {
        // Held until it has exited, so that whoever awaits this close is kept alive until then.
        idleRefs(p, false);
        if (p.state === 'idle') retire(p);
        else kill(p, 'closed', 'the pool is closed');
      }
      await Promise.all(all.map((p) => p.exited));
    },
  };
}

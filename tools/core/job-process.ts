// A job process (started by process-pool.ts): loads the job module named by its first argument, says it is
// ready, then runs the jobs the server sends over fd 3, one at a time, answering each with its reply. Whatever
// a job does to this process (a heap or buffer blow-up that aborts it, a loop the server kills) costs the
// job, never the server. The process ends when the server closes the channel, so it can outlive no server.
import { Socket } from 'node:net';
import { resolveLang } from '../../locales/index.ts';
import { FrameReader, writeFrame, type FrameHead } from './job-frames.ts';
import type { Job, JobReply } from './jobs.ts';
import { epochNow } from './phases.ts';
import { procMemory, resetPeak } from './peak-memory.ts';
import { fullGc } from './reclaim.ts';
import { detach, release, transferables } from './transfer.ts';

/** Largest job head accepted (options and file names): far above any real one. */
const MAX_JOB_HEAD_BYTES = 16 * 1024 * 1024;
/** Scratch space for frame heads; a file's bytes are read straight into the file's own buffer instead. */
const SCRATCH_BYTES = 64 * 1024;

type RunJob = (job: Job) => Promise<JobReply> | JobReply;

const moduleUrl = process.argv[2];
const jobModule = (await import(moduleUrl)) as { default: RunJob; prepare?: (toolIds: string[]) => void };
const run = jobModule.default;
// The tools the process it replaces had run (process-pool.ts): what they load on a first run is loaded now,
// before this process takes runs, rather than during one.
const toPrepare = JSON.parse(process.argv[3] ?? '[]') as string[];
if (toPrepare.length > 0) jobModule.prepare?.(toPrepare);

const scratch = new Uint8Array(SCRATCH_BYTES);
// Frames are handled one after the other: the server sends the next only once this one is answered.
let queue: Promise<void> = Promise.resolve();
const reader = new FrameReader((head, files) => (queue = queue.then(() => handle(head, files))), { maxHeadBytes: MAX_JOB_HEAD_BYTES, maxFileBytes: Number.MAX_SAFE_INTEGER });

// A measured run's memory counts from its head's arrival, before its files' bytes come in.
let arrivalRssMb: number | null = null;
const measureFromNow = () => (resetPeak('self') ? (procMemory('self')?.rssMb ?? null) : null);
reader.onStart = (head) => {
  if (head.t === 'job' && head.timed === true) arrivalRssMb = measureFromNow();
};

// `onread` has the socket read into the buffer given, so a file's bytes go straight into the file's own buffer.
const channel = new Socket({
  fd: 3,
  readable: true,
  writable: true,
  onread: {
    buffer: () => reader.target() ?? scratch,
    callback: (n: number, buf: Uint8Array) => {
      try {
        if (buf === scratch) reader.push(scratch.subarray(0, n));
        else reader.filled(n);
      } catch (err) {
        console.error('job process: unreadable frame from the server:', err);
        process.exit(1);
      }
      return true;
    },
  },
});
// No server at the other end any more: nothing left to do.
channel.on('end', () => process.exit(0));
channel.on('close', () => process.exit(0));
channel.on('error', () => process.exit(0));

function send(head: Record<string, unknown>, files: Uint8Array[] = [], sent?: () => void): void {
  writeFrame(channel, head, files, sent);
}

async function handle(head: FrameHead, files: Uint8Array[]): Promise<void> {
  if (head.t === 'reclaim') {
    fullGc()?.();
    send({ t: 'collected', rss: process.memoryUsage.rss() });
    return;
  }
  const names = head.names as string[];
  const fields = head.fields as (string | null)[] | undefined;
  const job: Job = {
    toolId: head.toolId as string,
    opts: head.opts as Record<string, unknown>,
    lang: resolveLang(head.lang),
    download: head.download === true,
    limits: head.limits as Job['limits'],
    files: names.map((name, i) => (fields?.[i] ? { name, bytes: files[i], field: fields[i] } : { name, bytes: files[i] })),
  };
  // A measured run (phases.ts) is told when this process had the job and when it had the result, and what
  // it grew by meanwhile (a job without files had no head of its own to measure from).
  const got = head.timed === true ? epochNow() : 0;
  const fromMb = got ? (arrivalRssMb ?? measureFromNow()) : null;
  arrivalRssMb = null;
  let reply: JobReply;
  try {
    reply = await run(job);
  } catch (err) {
    console.error('job module failed:', err);
    reply = { ok: false, code: 'internal_error' };
  }
  const peakMb = fromMb === null ? null : (procMemory('self')?.hwmMb ?? null);
  const at = got ? { at: [got, epochNow()], pid: process.pid, ...(peakMb !== null ? { grewMb: peakMb - fromMb! } : {}) } : {};
  if (!reply.ok) {
    release(files);
    return send({ t: 'reply', ...reply, ...at });
  }
  const { files: out, ...rest } = reply.result;
  // No memory figure for a run nobody measures: reading it costs a small run more than its hand-off (the server
  // watches it instead).
  const results = out.map((f) => f.bytes);
  // The run's input and results (a tool's own: none keeps one past its run) let go once written: left to a
  // collection, their memory outside the heap counted towards the next full collection, which came every second
  // or third run of a large file. A small run's are left to the collector, as they always were.
  const buffers = transferables([...files, ...results]);
  const sent = buffers.length > 0 ? () => detach(buffers) : undefined;
  send({ t: 'reply', ok: true, result: { ...rest, files: out.map((f) => ({ name: f.name, contentType: f.contentType })) }, ...at }, results, sent);
}

send({ t: 'ready', rss: process.memoryUsage.rss() });

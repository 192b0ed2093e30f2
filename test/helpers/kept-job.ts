// A job module for tests of what a job process keeps after a run: it runs each job as the service does and keeps
// views of its input and result files; a file named `kept.txt` is answered with the byte length of each view kept
// from the run before (`input` then `result`, one per line), a view of a buffer let go reading as 0.
import type { Job, JobReply } from '../../tools/core/jobs.ts';
import runJob from '../../tools/core/worker.ts';

let kept: { input: Uint8Array[]; result: Uint8Array[] } = { input: [], result: [] };

export default async function keptJob(job: Job): Promise<JobReply> {
  if (job.files[0]?.name === 'kept.txt') {
    const text = [...kept.input.map((v) => `input ${v.byteLength}`), ...kept.result.map((v) => `result ${v.byteLength}`)].join('\n');
    return { ok: true, result: { files: [{ name: 'kept.txt', contentType: 'text/plain; charset=utf-8', bytes: new TextEncoder().encode(text) }], preview: null, textPreview: null, messages: [] } };
  }
  const reply = await runJob(job);
  kept = { input: job.files.map((f) => f.bytes), result: reply.ok ? reply.result.files.map((f) => f.bytes) : [] };
  return reply;
}

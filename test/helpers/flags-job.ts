// A job module for tests of how job processes are started: a file named `flags.csv` is answered with the
// process's V8 flags (its execArgv, one per line); any other file runs as the service runs it.
import type { Job, JobReply } from '../../tools/core/jobs.ts';
import runJob from '../../tools/core/worker.ts';

export default async function flagsJob(job: Job): Promise<JobReply> {
  if (job.files[0]?.name !== 'flags.csv') return runJob(job);
  const bytes = new TextEncoder().encode(process.execArgv.filter((a) => a.startsWith('--max-') || a.startsWith('--initial-') || a.startsWith('--no-')).join('\n'));
  return { ok: true, result: { files: [{ name: 'flags.txt', contentType: 'text/plain; charset=utf-8', bytes }], preview: null, textPreview: null, messages: [] } };
}

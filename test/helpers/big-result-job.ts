// A job module for tests of results in transit: a file named `big.csv` whose text is a byte count is answered
// with a file of that many bytes (a pattern a test can check), as large as a test needs without any tool
// computing it; any other file runs as the service runs it.
import type { Job, JobReply } from '../../tools/core/jobs.ts';
import runJob from '../../tools/core/worker.ts';

/** The byte at `i` of a big result. */
export const patternAt = (i: number) => (i * 131 + (i >>> 16)) & 0xff;

export default async function bigResultJob(job: Job): Promise<JobReply> {
  const file = job.files[0];
  if (file?.name !== 'big.csv') return runJob(job);
  const n = Number(new TextDecoder().decode(file.bytes));
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = patternAt(i);
  return { ok: true, result: { files: [{ name: 'grande.csv', contentType: 'text/csv; charset=utf-8', bytes }], preview: null, textPreview: null, messages: [] } };
}

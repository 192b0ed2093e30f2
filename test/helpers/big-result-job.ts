// A job module for tests of results in transit: a file named `big.csv` whose text is a byte count is answered
// with a file of that many bytes (a pattern a test can check), as large as a test needs without any tool
// computing it; one named `cut.csv` whose text is two counts, `n sent`, announces a reply of n bytes, sends its
// first `sent` bytes and dies, as a job process killed mid-reply would; any other file runs as the service runs it.
import { writeSync } from 'node:fs';
import type { Job, JobReply } from '../../tools/core/jobs.ts';
import { frameOf } from '../../tools/core/job-frames.ts';
import runJob from '../../tools/core/worker.ts';

/** The byte at `i` of a big result. */
export const patternAt = (i: number) => (i * 131 + (i >>> 16)) & 0xff;

export default async function bigResultJob(job: Job): Promise<JobReply> {
  const file = job.files[0];
  if (file?.name === 'cut.csv') return cutReply(job);
  if (file?.name !== 'big.csv') return runJob(job);
  const n = Number(new TextDecoder().decode(file.bytes));
  return { ok: true, result: { files: [{ name: 'grande.csv', contentType: 'text/csv; charset=utf-8', bytes: pattern(n) }], preview: null, textPreview: null, messages: [] } };
}

function pattern(n: number): Uint8Array {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i++) bytes[i] = patternAt(i);
  return bytes;
}

/** Writes the head of a reply of `n` bytes and its first `sent` bytes straight to the server's channel (fd 3, job-process.ts), then dies. */
function cutReply(job: Job): never {
  const [n, sent] = new TextDecoder().decode(job.files[0].bytes).split(' ').map(Number);
  const head = { t: 'reply', ok: true, result: { files: [{ name: 'grande.csv', contentType: 'text/csv; charset=utf-8' }], preview: null, textPreview: null, messages: [] } };
  // The head says the file's size, as frameOf writes it for a file sent whole.
  const [prefix, json] = frameOf({ ...head, sizes: [n] });
  for (const chunk of [prefix, json, pattern(sent)]) {
    for (let at = 0; at < chunk.length; ) {
      try {
        at += writeSync(3, chunk, at, chunk.length - at);
      } catch (err) {
        // The channel is non-blocking: a full socket waits for the server to read.
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      }
    }
  }
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
}

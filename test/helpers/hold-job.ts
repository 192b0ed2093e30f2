// A job module for tests that need a job slot held for as long as they say: a file named `hold.csv` holds its
// job until the file whose path it contains exists (the test creates it to let go); any other file runs as
// the service runs it. No test then depends on a run taking long enough.
import { existsSync } from 'node:fs';
import type { Job, JobReply } from '../../tools/core/jobs.ts';
import runJob from '../../tools/core/worker.ts';

export default async function holdJob(job: Job): Promise<JobReply> {
  const file = job.files[0];
  if (file?.name === 'hold.csv') {
    const marker = new TextDecoder().decode(file.bytes).trim();
    while (!existsSync(marker)) await new Promise((r) => setTimeout(r, 20));
  }
  return runJob(job);
}

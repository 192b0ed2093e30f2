// A job module for tests of how job processes are collected and replaced: a file named `grow.csv` holding a
// number N makes the process hold N MB more for a second (long enough for the server's memory sampler to see
// it), and, where a path follows the number, until that file exists; then it answers with the process's pid.
// Any other file runs as the service runs it. With GROW_JOB_GATE set to a path, a process does not finish
// loading (and so is not ready) until that file exists. The answer ends with the tools the process was asked
// to prepare (worker.ts `prepare`), comma-separated. GROW_JOB_HOLD_MS shortens the second for a test that
// runs a hundred such jobs (the sampler reads every 20 ms).
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Job, JobReply } from '../../tools/core/jobs.ts';
import runJob from '../../tools/core/worker.ts';

const gate = process.env.GROW_JOB_GATE;
const holdMs = Number(process.env.GROW_JOB_HOLD_MS) || 1000;
if (gate) while (!existsSync(gate)) await sleep(20);

let prepared: string[] = [];
export function prepare(toolIds: string[]): void {
  prepared = toolIds;
}

export default async function growJob(job: Job): Promise<JobReply> {
  const file = job.files[0];
  if (file?.name !== 'grow.csv') return runJob(job);
  const [size, until] = new TextDecoder().decode(file.bytes).trim().split(' ');
  const mb = Number(size);
  // Filled, so that every page is resident (a zeroed allocation may not be).
  const held = Buffer.allocUnsafe(mb * 1024 * 1024).fill(1);
  await sleep(holdMs);
  if (until) while (!existsSync(until)) await sleep(20);
  const bytes = new TextEncoder().encode(`${process.pid} ${held.length} ${prepared.join(',')}`);
  return { ok: true, result: { files: [{ name: 'pid.txt', contentType: 'text/plain; charset=utf-8', bytes }], preview: null, textPreview: null, messages: [] } };
}

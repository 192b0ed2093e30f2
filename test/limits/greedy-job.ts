// The job module of the isolation test (job-isolation.test.ts): a file whose name names an allocation shape
// makes the job allocate that way; any other file runs as the service runs it. Each shape, in a worker
// thread, can take the whole process down with it (nodejs/node issue 47224) or grow outside the V8 heap.
// A shape that completes (its bound did not hold) ends in an ordinary run, which the test sees as a failure.
import type { Job, JobReply } from '../../tools/core/jobs.ts';
import runJob from '../../tools/core/worker.ts';

export const SHAPES: Record<string, () => number> = {
  // One array grown by push until the heap is exhausted.
  'push.csv': () => {
    const a: number[] = [];
    for (let i = 0; i < 2e9; i++) a.push(i);
    return a.length;
  },
  // One huge array, then filled by index.
  'new-array.csv': () => {
    const a = new Array<number>(1e8);
    for (let i = 0; i < a.length; i++) a[i] = i;
    return a.length;
  },
  // Buffers: outside the V8 heap, so only the resident-memory bound can stop them (at most 2 GB if it fails).
  'buffers.csv': () => {
    const list: Buffer[] = [];
    for (let i = 0; i < 256; i++) list.push(Buffer.alloc(8 << 20, i));
    return list.length;
  },
};

export default function greedyJob(job: Job): Promise<JobReply> {
  SHAPES[job.files[0]?.name]?.();
  return runJob(job);
}

// Worker-thread entry of the job pool: runs one job and answers with a plain, cloneable reply.
import { resolveLang } from '../../locales/index.ts';
import { asToolError } from './errors.ts';
import { execute } from './execute.ts';
import type { Job, JobReply } from './jobs.ts';
import { fullGc, isReclaim, type Reclaim } from './reclaim.ts';
import { getTool } from './registry.ts';
import { movable, transferables } from './transfer.ts';

/** Runs after which an idle worker is replaced rather than collected: what its heap grew to is let go whole. */
export const RECYCLE_AFTER_RUNS = 200;
let runs = 0;

export default async function runJob(job: Job | Reclaim): Promise<JobReply | null> {
  if (isReclaim(job)) {
    // Exiting without a reply keeps this worker busy in the pool's eyes until it is gone, so no run is ever
    // given to it meanwhile; the pool starts a fresh worker in its place.
    if (runs >= RECYCLE_AFTER_RUNS) process.exit(0);
    fullGc()?.();
    return null;
  }
  runs++;
  if (job.started && job.postedAt !== undefined) {
    Atomics.store(job.started, 0, Math.max(1, Math.min(2 ** 31 - 1, Math.round(performance.timeOrigin + performance.now() - job.postedAt))));
  }
  try {
    const result = await execute(getTool(job.toolId), job.files, job.opts, { lang: resolveLang(job.lang), download: job.download, limits: job.limits });
    // The run is over: nothing here reads its result again, so its buffers can leave this thread.
    return movable<JobReply>({ ok: true, result }, transferables(result.files.map((f) => f.bytes)));
  } catch (err) {
    const e = asToolError(err);
    // Everything the Error body is made from crosses back; the cause stays here (logged by asToolError).
    return { ok: false, code: e.code, option: e.detail.option, messageKey: e.detail.messageKey, params: e.detail.params };
  }
}

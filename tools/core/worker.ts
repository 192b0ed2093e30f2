// The job module of the job processes (job-process.ts loads it): runs one job and answers a plain reply.
import { resolveLang } from '../../locales/index.ts';
import { asToolError } from './errors.ts';
import { execute } from './execute.ts';
import type { Job, JobReply } from './jobs.ts';
import { getTool, hasTool } from './registry.ts';

/** Has a process that replaces one that ran these tools load what their first runs would (define.ts `prepare`). */
export function prepare(toolIds: string[]): void {
  for (const id of toolIds) {
    if (!hasTool(id)) continue;
    try {
      getTool(id).prepare?.();
    } catch (err) {
      // Its first run will load it, and say what is wrong if anything is.
      console.error(`job process: cannot prepare ${id}:`, err);
    }
  }
}

export default async function runJob(job: Job): Promise<JobReply> {
  try {
    const result = await execute(getTool(job.toolId), job.files, job.opts, { lang: resolveLang(job.lang), download: job.download, limits: job.limits });
    return { ok: true, result };
  } catch (err) {
    const e = asToolError(err);
    // Everything the Error body is made from crosses back; the cause stays here (logged by asToolError).
    return { ok: false, code: e.code, option: e.detail.option, messageKey: e.detail.messageKey, params: e.detail.params };
  }
}

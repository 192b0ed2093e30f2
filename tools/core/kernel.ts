// Builds the kernel from a Config: the services a front door needs, created once per process.
import { createAdmission, type Admission } from './admission.ts';
import type { Config } from './config.ts';
import { createInvoke, type Invoke } from './invoke.ts';
import { createJobRunner, type JobRunner } from './jobs.ts';
import { createFileKeyStore, type KeyStore } from './keys.ts';
import { createMemoryQuota, type QuotaStore } from './quota.ts';
import { createUsage, type Usage } from './usage.ts';

export interface Kernel {
  config: Config;
  invoke: Invoke;
  /** Early refusals before a body is read (busy, quota) and the bound on bodies in flight. */
  admission: Admission;
  jobs: JobRunner;
  keys: KeyStore;
  quota: QuotaStore;
  usage: Usage;
  close(graceMs?: number): Promise<void>;
}

export interface KernelOptions {
  /** `inline` runs tools on this thread: for tests that do not exercise isolation. */
  jobs?: 'workers' | 'inline';
  /** The job workers' code, when not the tools' (see createJobRunner). */
  workerModule?: URL;
}

export function createKernel(config: Config, options: KernelOptions = {}): Kernel {
  const jobs = createJobRunner(config, options.jobs ?? 'workers', options.workerModule);
  const keys = createFileKeyStore(config.DATA_DIR);
  const quota = createMemoryQuota();
  const usage = createUsage();
  const deps = { config, jobs, keys, quota, usage };
  const invoke = createInvoke(deps);
  const admission = createAdmission(deps);
  return { config, invoke, admission, jobs, keys, quota, usage, close: (graceMs) => jobs.close(graceMs) };
}

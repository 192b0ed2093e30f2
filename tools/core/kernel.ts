// Builds the kernel from a Config: the services a front door needs, created once per process.
import { createAdmission, type Admission } from './admission.ts';
import type { Config } from './config.ts';
import { createInvoke, type Invoke } from './invoke.ts';
import { createJobRunner, type JobRunner } from './jobs.ts';
import { createRedisKeyStore } from './keys-redis.ts';
import { createFileKeyStore, withKeyUsage, type KeyStore } from './keys.ts';
import { createMemoryQuota, type QuotaStore } from './quota.ts';
import { createRedisQuota } from './quota-redis.ts';
import { connectRedis } from './redis.ts';
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
  /** Resolves once the shared state answers (at once without REDIS_URL), or false after `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean>;
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
  // With REDIS_URL, quotas and keys are shared by every replica; without, they are this process's (and DATA_DIR's).
  const redis = config.REDIS_URL ? connectRedis(config.REDIS_URL) : null;
  const keys = redis ? createRedisKeyStore(redis) : createFileKeyStore(config.DATA_DIR);
  const quota = withKeyUsage(redis ? createRedisQuota(redis) : createMemoryQuota(), keys);
  const usage = createUsage();
  const deps = { config, jobs, keys, quota, usage };
  const invoke = createInvoke(deps);
  const admission = createAdmission(deps);
  return {
    config,
    invoke,
    admission,
    jobs,
    keys,
    quota,
    usage,
    ready: async (timeoutMs) => (redis ? redis.ready(timeoutMs) : true),
    async close(graceMs) {
      await jobs.close(graceMs);
      await keys.close();
      await redis?.close();
    },
  };
}

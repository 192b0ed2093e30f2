// Hourly run quotas. Callers see only the QuotaStore interface: the memory store here is the embedded
// default, quota-redis.ts the one replicas share (REDIS_URL).
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateInfo } from './errors.ts';

export interface QuotaTake extends RateInfo {
  allowed: boolean;
}

export interface QuotaStore {
  /** Takes one run from `subject`'s hourly budget of `limit` runs; a refused take leaves the count as it was. */
  take(subject: string, limit: number): Promise<QuotaTake>;
  /** Gives back a run that was refused for a reason that must not count (busy). */
  giveBack(subject: string, limit: number): Promise<void>;
}

export const WINDOW_S = 3600;

/** A QuotaStore over rate-limiter-flexible limiters, one per budget size (keys may carry their own quota). */
export function quotaOver(limiterFor: (limit: number) => RateLimiterAbstract): QuotaStore {
  return {
    async take(subject, limit) {
      if (limit <= 0) return { allowed: false, limit: 0, remaining: 0, reset: WINDOW_S };
      try {
        const res = await limiterFor(limit).consume(subject, 1);
        return { allowed: true, limit, remaining: res.remainingPoints, reset: Math.ceil(res.msBeforeNext / 1000) };
      } catch (res) {
        if (!(res instanceof RateLimiterRes)) throw res;
        // consume() counts the refused point too: a window with 429s would then keep runs given back (busy) counted.
        await limiterFor(limit).reward(subject, 1);
        return { allowed: false, limit, remaining: 0, reset: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
      }
    },
    async giveBack(subject, limit) {
      if (limit > 0) await limiterFor(limit).reward(subject, 1);
    },
  };
}

/** `make(limit)` once per budget size. */
export function limiterPerLimit<L>(make: (limit: number) => L): (limit: number) => L {
  const limiters = new Map<number, L>();
  return (limit) => {
    let l = limiters.get(limit);
    if (!l) limiters.set(limit, (l = make(limit)));
    return l;
  };
}

export function createMemoryQuota(): QuotaStore {
  return quotaOver(limiterPerLimit((points) => new RateLimiterMemory({ points, duration: WINDOW_S })));
}

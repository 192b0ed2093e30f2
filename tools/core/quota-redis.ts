// Hourly quotas shared by every replica: rate-limiter-flexible's Redis limiter. One counter per subject
// whatever the budget (a key's new quota applies to the runs it already used this hour). While Redis cannot
// answer, the insurance limiter (this replica's memory) counts instead, and the outage is reported.
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { limiterPerLimit, quotaOver, WINDOW_S, type QuotaStore } from './quota.ts';
import { REDIS_PREFIX, type RedisLink } from './redis.ts';

/** The memory limiter Redis's stands in for: used only when a Redis command failed, which it reports. */
class Insurance extends RateLimiterMemory {
  constructor(points: number, private readonly link: RedisLink) {
    super({ points, duration: WINDOW_S });
  }
  override consume(...args: Parameters<RateLimiterMemory['consume']>) {
    this.link.failed();
    return super.consume(...args);
  }
  override reward(...args: Parameters<RateLimiterMemory['reward']>) {
    this.link.failed();
    return super.reward(...args);
  }
}

export function createRedisQuota(link: RedisLink): QuotaStore {
  return quotaOver(
    limiterPerLimit(
      (points) =>
        new RateLimiterRedis({
          storeClient: link.client,
          keyPrefix: `${REDIS_PREFIX}quota`,
          points,
          duration: WINDOW_S,
          rejectIfRedisNotReady: true,
          insuranceLimiter: new Insurance(points, link),
        }),
    ),
  );
}

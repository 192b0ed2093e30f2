// The one Redis connection of a replica (REDIS_URL), shared by the quota and key stores. Commands fail fast
// rather than wait while Redis is unreachable (no offline queue, a short command timeout), so that a run is
// answered from this replica's own state instead; the outage is logged once and its end once.
import { Redis } from 'ioredis';

/** Every key the service writes starts with this, so that one Redis can serve other things too. */
export const REDIS_PREFIX = 'spreadsheet-tools:';
/** Most a command may take before this replica stops waiting for Redis (and drops the connection). */
export const REDIS_COMMAND_TIMEOUT_MS = 500;
const REDIAL_EVERY_MS = 5000;

export interface RedisLink {
  client: Redis;
  /** Whether the last thing heard from Redis was an answer. */
  readonly up: boolean;
  /** Reports a command that failed (unreachable, timed out): logs the outage once. */
  failed(err?: unknown): void;
  /** Calls `fn` on every (re)connection, once Redis answers. */
  onReady(fn: () => void): void;
  /** Resolves true once Redis answers, or false after `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

type Log = Pick<Console, 'log' | 'warn'>;

export function connectRedis(url: string, log: Log = console): RedisLink {
  const where = (() => {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 6379}`; // never the password
  })();
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 2000,
    // Reconnects at once, then backs off to once every 2 s for as long as it takes.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  let up = false;
  let everUp = false;
  let outageLogged = false;
  let lastRedial = -Infinity;
  const readyListeners: Array<() => void> = [];

  function failed(err?: unknown) {
    up = false;
    if (!outageLogged) {
      outageLogged = true;
      const reason = err instanceof Error ? err.message : String(err ?? 'a command failed or timed out');
      log.warn(`spreadsheet-tools: Redis at ${where} is unreachable (${reason}): each replica counts quotas on its own and accepts only the keys it has seen until Redis is back`);
    }
    // A connection that is open but does not answer (a stalled server, a lost route) is dropped and dialled
    // again, so that the next commands fail at once instead of each waiting for the timeout; at most every
    // few seconds, for a server that answers every command with an error.
    if (client.status === 'ready' && performance.now() - lastRedial > REDIAL_EVERY_MS) {
      lastRedial = performance.now();
      client.disconnect(true);
    }
  }

  client.on('error', (err: Error) => failed(err));
  client.on('close', () => {
    if (up) failed(new Error('connection closed'));
  });
  client.on('ready', () => {
    up = true;
    if (!everUp) log.log(`spreadsheet-tools: quotas and API keys are shared through Redis at ${where}`);
    else if (outageLogged) log.log(`spreadsheet-tools: Redis at ${where} is back: quotas and keys are shared again`);
    everUp = true;
    outageLogged = false;
    for (const fn of readyListeners) fn();
  });

  return {
    client,
    get up() {
      return up;
    },
    failed,
    onReady(fn) {
      readyListeners.push(fn);
      if (up) fn();
    },
    ready(timeoutMs) {
      if (up) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        readyListeners.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
    async close() {
      up = false;
      everUp = false;
      outageLogged = true; // quitting is not an outage
      await client.quit().catch(() => client.disconnect());
    },
  };
}

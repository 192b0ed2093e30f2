// API keys. Only a SHA-256 hash of each secret is kept (the secrets are 256 random bits, so a fast hash is
// enough); the secret is shown once, at creation. Two stores share this interface: a file under DATA_DIR
// (the embedded default) and Redis (keys-redis.ts, with REDIS_URL), where every replica sees every change.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withFileLock } from './file-lock.ts';
import type { QuotaStore } from './quota.ts';

export interface ApiKey {
  id: string;
  label: string;
  /** Runs per hour; null means the configured default for keys. */
  quota: number | null;
  createdAt: string;
  revokedAt: string | null;
}

/** Runs counted against a key in one clock hour (UTC). */
export interface HourUsage {
  /** Start of the hour, ISO 8601. */
  hour: string;
  runs: number;
}

export interface KeyChanges {
  label?: string;
  quota?: number | null;
}

export interface KeyStore {
  /** The live key with this secret, or null when unknown or revoked. */
  verify(secret: string): Promise<ApiKey | null>;
  create(label: string, quota: number | null): Promise<{ key: ApiKey; secret: string }>;
  list(): Promise<ApiKey[]>;
  /** False when there is no such key. */
  revoke(id: string): Promise<boolean>;
  /** Changes a key's label or quota (a revoked key's too); null when there is no such key. */
  update(id: string, changes: KeyChanges): Promise<ApiKey | null>;
  /** Counts `runs` (negative: gives back) against a key in the current hour. Never throws: usage is a record. */
  recordRun(id: string, runs?: number): void;
  /** Runs per clock hour for the last `hours` hours, oldest first, the current hour last; null for no such key. */
  usage(id: string, hours?: number): Promise<HourUsage[] | null>;
  /** When each key asked for last made a run (ISO 8601), null for never: exact for this process's runs. */
  lastUsed(ids: readonly string[]): Promise<Map<string, string | null>>;
  /** Writes what is still pending and lets go of connections. */
  close(): Promise<void>;
}

export interface StoredKey extends ApiKey {
  hash: string;
}

/** How long per-hour usage is kept: a week of hours. */
export const USAGE_HOURS_KEPT = 24 * 7;
const HOUR_MS = 3_600_000;

export const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');
export const newSecret = () => `sk_${randomBytes(32).toString('base64url')}`;
export const newKey = (label: string, quota: number | null, secret: string): StoredKey => ({
  id: randomUUID(),
  label,
  quota,
  createdAt: new Date().toISOString(),
  revokedAt: null,
  hash: hashOf(secret),
});
export const publicView = ({ hash: _hash, ...key }: StoredKey): ApiKey => key;
/** The clock hour `ms` falls in, as a count of hours since the epoch. */
export const hourOf = (ms: number = Date.now()) => Math.floor(ms / HOUR_MS);
/** The hours `usage` answers for: the last `hours` ones, up to the current one. */
export const hoursBack = (hours: number) => {
  const now = hourOf();
  const n = Math.max(1, Math.min(USAGE_HOURS_KEPT, Math.floor(hours)));
  return Array.from({ length: n }, (_, i) => now - n + 1 + i);
};
export const hourUsage = (hour: number, runs: number): HourUsage => ({ hour: new Date(hour * HOUR_MS).toISOString(), runs: Math.max(0, runs) });

/**
 * Counts every run a key's quota takes (and gives back) in the key store's per-hour usage. Key subjects are
 * `key:<id>` (quotaSubjectOf); anonymous ones are not recorded anywhere.
 */
export function withKeyUsage(quota: QuotaStore, keys: KeyStore): QuotaStore {
  const idOf = (subject: string) => (subject.startsWith('key:') ? subject.slice(4) : null);
  return {
    async take(subject, limit) {
      const taken = await quota.take(subject, limit);
      const id = idOf(subject);
      if (taken.allowed && id) keys.recordRun(id, 1);
      return taken;
    },
    async giveBack(subject, limit) {
      await quota.giveBack(subject, limit);
      const id = idOf(subject);
      if (id && limit > 0) keys.recordRun(id, -1);
    },
  };
}

/** Most a change made by another process sharing DATA_DIR may take to be seen by `verify`. */
export const FILE_RECHECK_MS = 250;

/** Per key: runs by hour (keys are hour numbers), and `last`, the time of its last run in ms. */
type UsageFile = Record<string, Record<string, number>>;
const LAST = 'last';

/**
 * Keys in `DATA_DIR/api-keys.json` and their usage in `DATA_DIR/api-key-usage.json`, both written atomically
 * (temp + rename) under a lock file, each change re-reading the file first: processes sharing DATA_DIR never
 * overwrite each other's changes, and each sees the others' within FILE_RECHECK_MS. Usage is counted in
 * memory and added to the file once a second (`flushMs`) and at close.
 */
export function createFileKeyStore(dataDir: string, { flushMs = 1000 }: { flushMs?: number } = {}): KeyStore {
  const path = join(dataDir, 'api-keys.json');
  const usagePath = join(dataDir, 'api-key-usage.json');
  const lockPath = join(dataDir, 'api-keys.lock');
  let keys: StoredKey[] = [];
  let index = new Map<string, StoredKey>();
  let seen = '';
  let checkedAt = -Infinity;

  /** Reads the key file again when it is not the one read last; throws when it cannot be read. */
  function load() {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      keys = [];
      index = new Map();
      seen = '';
      return;
    }
    try {
      const st = fstatSync(fd);
      const fingerprint = `${st.ino}:${st.size}:${st.mtimeMs}`;
      if (fingerprint === seen) return;
      const parsed = JSON.parse(readFileSync(fd, 'utf8')) as { keys: StoredKey[] };
      if (!Array.isArray(parsed.keys)) throw new Error('no "keys" list');
      keys = parsed.keys;
      index = new Map(keys.map((k) => [k.hash, k]));
      seen = fingerprint;
    } finally {
      closeSync(fd);
    }
  }
  try {
    load();
  } catch (err) {
    throw new Error(`Cannot read the key file ${path}: ${(err as Error).message}`);
  }

  let reportedBadFile = false;
  /** The keys as another process may have changed them, looked at no more than every FILE_RECHECK_MS. */
  function fresh() {
    const now = performance.now();
    if (now - checkedAt < FILE_RECHECK_MS) return;
    checkedAt = now;
    try {
      load();
      reportedBadFile = false;
    } catch (err) {
      // Only a hand edit can break it (writes are atomic): keep serving the keys read last, and say so once.
      if (!reportedBadFile) console.error(`spreadsheet-tools: cannot read the key file ${path}, keeping the keys read before: ${(err as Error).message}`);
      reportedBadFile = true;
    }
  }

  function writeAtomically(target: string, data: unknown) {
    const tmp = `${target}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(data, null, 2), { mode: 0o600 });
    renameSync(tmp, target);
  }

  /** Applies `change` to the keys as they are on disk now, and writes them when it says so. */
  function mutate<T>(change: (keys: StoredKey[]) => { result: T; write: boolean }): Promise<T> {
    mkdirSync(dataDir, { recursive: true });
    return withFileLock(lockPath, () => {
      load();
      const { result, write } = change(keys);
      if (write) {
        writeAtomically(path, { keys });
        seen = '';
        load();
      }
      checkedAt = performance.now();
      return result;
    });
  }

  // Usage: pending counts by key and hour, added to the file by `flush`.
  const pending = new Map<string, Map<number, number>>();
  let flushTimer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();
  let reportedUsageError = false;
  const readUsage = (): UsageFile => {
    try {
      return JSON.parse(readFileSync(usagePath, 'utf8')) as UsageFile;
    } catch {
      return {};
    }
  };
  const flush = () => (flushing = flushing.then(flushPending));
  async function flushPending() {
    flushTimer = undefined;
    if (pending.size === 0) return;
    const taken = new Map(pending);
    const lastTaken = new Map(pendingLast);
    pending.clear();
    pendingLast.clear();
    try {
      mkdirSync(dataDir, { recursive: true });
      await withFileLock(lockPath, () => {
        const usage = readUsage();
        const oldest = hourOf() - USAGE_HOURS_KEPT;
        for (const [id, hours] of taken) {
          const mine = (usage[id] ??= {});
          for (const [hour, runs] of hours) mine[hour] = (mine[hour] ?? 0) + runs;
        }
        for (const [id, at] of lastTaken) {
          const mine = (usage[id] ??= {});
          mine[LAST] = Math.max(mine[LAST] ?? 0, at);
        }
        for (const [id, hours] of Object.entries(usage)) {
          for (const hour of Object.keys(hours)) if (hour !== LAST && Number(hour) < oldest) delete hours[hour];
          if (Object.keys(hours).length === 0) delete usage[id];
        }
        writeAtomically(usagePath, usage);
      });
      reportedUsageError = false;
    } catch (err) {
      // Kept for the next flush (a later hour's counts are merged in, old ones pruned then).
      for (const [id, hours] of taken) for (const [hour, runs] of hours) addPending(id, hour, runs);
      for (const [id, at] of lastTaken) pendingLast.set(id, Math.max(pendingLast.get(id) ?? 0, at));
      if (!reportedUsageError) console.error(`spreadsheet-tools: cannot write key usage to ${usagePath}: ${(err as Error).message}`);
      reportedUsageError = true;
      flushTimer ??= setTimeout(() => void flush(), flushMs * 5).unref();
    }
  }
  // The last run of each key made by this process: pending for the file, and known here at once.
  const pendingLast = new Map<string, number>();
  const lastHere = new Map<string, number>();
  function addPending(id: string, hour: number, runs: number) {
    let hours = pending.get(id);
    if (!hours) pending.set(id, (hours = new Map()));
    hours.set(hour, (hours.get(hour) ?? 0) + runs);
  }

  return {
    async verify(secret) {
      fresh();
      const key = index.get(hashOf(secret));
      return key && !key.revokedAt ? publicView(key) : null;
    },
    async create(label, quota) {
      const secret = newSecret();
      const key = newKey(label, quota, secret);
      await mutate((all) => {
        all.push(key);
        return { result: undefined, write: true };
      });
      return { key: publicView(key), secret };
    },
    async list() {
      checkedAt = -Infinity;
      fresh();
      return keys.map(publicView);
    },
    revoke(id) {
      return mutate((all) => {
        const key = all.find((k) => k.id === id);
        if (!key) return { result: false, write: false };
        if (key.revokedAt) return { result: true, write: false };
        key.revokedAt = new Date().toISOString();
        return { result: true, write: true };
      });
    },
    update(id, changes) {
      return mutate((all) => {
        const key = all.find((k) => k.id === id);
        if (!key) return { result: null, write: false };
        if (changes.label !== undefined) key.label = changes.label;
        if (changes.quota !== undefined) key.quota = changes.quota;
        return { result: publicView(key), write: true };
      });
    },
    recordRun(id, runs = 1) {
      addPending(id, hourOf(), runs);
      if (runs > 0) {
        const now = Date.now();
        pendingLast.set(id, now);
        lastHere.set(id, now);
      }
      flushTimer ??= setTimeout(() => void flush(), flushMs).unref();
    },
    async usage(id, hours = 24) {
      checkedAt = -Infinity;
      fresh();
      if (!keys.some((k) => k.id === id)) return null;
      const stored = readUsage()[id] ?? {};
      const mine = pending.get(id);
      return hoursBack(hours).map((h) => hourUsage(h, (stored[h] ?? 0) + (mine?.get(h) ?? 0)));
    },
    async lastUsed(ids) {
      const stored = readUsage();
      const at = (id: string) => Math.max(stored[id]?.[LAST] ?? 0, lastHere.get(id) ?? 0);
      return new Map(ids.map((id) => [id, at(id) > 0 ? new Date(at(id)).toISOString() : null]));
    },
    async close() {
      clearTimeout(flushTimer);
      await flush();
    },
  };
}

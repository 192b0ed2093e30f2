// API keys. Only a SHA-256 hash of each secret is kept (the secrets are 256 random bits, so a fast hash
// is enough); the secret is shown once, at creation. The file store writes atomically (temp + rename).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ApiKey {
  id: string;
  label: string;
  /** Runs per hour; null means the configured default for keys. */
  quota: number | null;
  createdAt: string;
  revokedAt: string | null;
}

/** A key's use: runs counted in the current clock hour (UTC) and its last run. */
export interface KeyUsage {
  runsThisHour: number;
  lastUsedAt: string | null;
}

interface StoredKey extends ApiKey {
  hash: string;
  /** Written at most once a minute (see recordUse); the exact time lives in memory. */
  lastUsedAt?: string | null;
}

export interface KeyStore {
  /** The live key with this secret, or null when unknown or revoked. */
  verify(secret: string): Promise<ApiKey | null>;
  create(label: string, quota: number | null): Promise<{ key: ApiKey; secret: string }>;
  list(): Promise<ApiKey[]>;
  /** False when there is no such key. */
  revoke(id: string): Promise<boolean>;
  /** Changes a key's label and/or quota (null: the default); null when there is no such key. */
  update(id: string, changes: { label?: string; quota?: number | null }): Promise<ApiKey | null>;
  /** Counts one run made with key `id`. */
  recordUse(id: string, at?: Date): Promise<void>;
  /** The use of each key asked for, by id (a key never used: 0 runs, never). */
  usage(ids: readonly string[], at?: Date): Promise<Map<string, KeyUsage>>;
}

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');
const publicView = ({ hash: _hash, lastUsedAt: _used, ...key }: StoredKey): ApiKey => key;
const HOUR_MS = 3_600_000;
/** The stored last use is rewritten only when it is older than this: a run need not write the file. */
const LAST_USED_WRITE_MS = 60_000;

export function createFileKeyStore(dataDir: string): KeyStore {
  const path = join(dataDir, 'api-keys.json');
  let keys: StoredKey[] = [];
  try {
    keys = JSON.parse(readFileSync(path, 'utf8')).keys;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`Cannot read the key file ${path}: ${(err as Error).message}`);
  }
  const byHash = () => new Map(keys.map((k) => [k.hash, k]));
  // Runs of the current hour are counted in memory, like the memory quota they mirror.
  const uses = new Map<string, { hour: number; runs: number; lastUsedAt: string }>();
  let index = byHash();
  let byId = new Map(keys.map((k) => [k.id, k]));

  function save() {
    mkdirSync(dataDir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ keys }, null, 2), { mode: 0o600 });
    renameSync(tmp, path);
    index = byHash();
    byId = new Map(keys.map((k) => [k.id, k]));
  }

  return {
    async verify(secret) {
      const key = index.get(hashOf(secret));
      return key && !key.revokedAt ? publicView(key) : null;
    },
    async create(label, quota) {
      const secret = `sk_${randomBytes(32).toString('base64url')}`;
      const key: StoredKey = { id: randomUUID(), label, quota, createdAt: new Date().toISOString(), revokedAt: null, hash: hashOf(secret) };
      keys.push(key);
      save();
      return { key: publicView(key), secret };
    },
    async list() {
      return keys.map(publicView);
    },
    async revoke(id) {
      const key = keys.find((k) => k.id === id);
      if (!key) return false;
      if (!key.revokedAt) {
        key.revokedAt = new Date().toISOString();
        save();
      }
      return true;
    },
    async update(id, changes) {
      const key = byId.get(id);
      if (!key) return null;
      if (changes.label !== undefined) key.label = changes.label;
      if (changes.quota !== undefined) key.quota = changes.quota;
      save();
      return publicView(key);
    },
    async recordUse(id, at = new Date()) {
      const hour = Math.floor(at.getTime() / HOUR_MS);
      const use = uses.get(id);
      if (use && use.hour === hour) {
        use.runs++;
        use.lastUsedAt = at.toISOString();
      } else uses.set(id, { hour, runs: 1, lastUsedAt: at.toISOString() });
      const key = byId.get(id);
      if (key && (!key.lastUsedAt || at.getTime() - Date.parse(key.lastUsedAt) >= LAST_USED_WRITE_MS)) {
        key.lastUsedAt = at.toISOString();
        save();
      }
    },
    async usage(ids, at = new Date()) {
      const hour = Math.floor(at.getTime() / HOUR_MS);
      const out = new Map<string, KeyUsage>();
      for (const id of ids) {
        const use = uses.get(id);
        const stored = byId.get(id)?.lastUsedAt ?? null;
        out.set(id, { runsThisHour: use && use.hour === hour ? use.runs : 0, lastUsedAt: use?.lastUsedAt ?? stored });
      }
      return out;
    },
  };
}

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

interface StoredKey extends ApiKey {
  hash: string;
}

export interface KeyStore {
  /** The live key with this secret, or null when unknown or revoked. */
  verify(secret: string): Promise<ApiKey | null>;
  create(label: string, quota: number | null): Promise<{ key: ApiKey; secret: string }>;
  list(): Promise<ApiKey[]>;
  /** False when there is no such key. */
  revoke(id: string): Promise<boolean>;
}

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');
const publicView = ({ hash: _hash, ...key }: StoredKey): ApiKey => key;

export function createFileKeyStore(dataDir: string): KeyStore {
  const path = join(dataDir, 'api-keys.json');
  let keys: StoredKey[] = [];
  try {
    keys = JSON.parse(readFileSync(path, 'utf8')).keys;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`Cannot read the key file ${path}: ${(err as Error).message}`);
  }
  const byHash = () => new Map(keys.map((k) => [k.hash, k]));
  let index = byHash();

  function save() {
    mkdirSync(dataDir, { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ keys }, null, 2), { mode: 0o600 });
    renameSync(tmp, path);
    index = byHash();
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
  };
}

// API keys every replica shares, in Redis (REDIS_URL). Each key is a hash named after its secret's hash, so
// that verifying a key is one command and a revocation on any replica holds on the next call everywhere.
// While Redis cannot answer, keys this replica has seen (all of them, loaded at each connection) keep
// working as they were last seen; admin changes need Redis.
import { ToolError } from './errors.ts';
import { hashOf, hourOf, hoursBack, hourUsage, newKey, newSecret, publicView, USAGE_HOURS_KEPT, type KeyStore, type StoredKey } from './keys.ts';
import { REDIS_PREFIX, type RedisLink } from './redis.ts';

const keyOf = (hash: string) => `${REDIS_PREFIX}key:${hash}`;
const idOf = (id: string) => `${REDIS_PREFIX}key-id:${id}`;
/** Every key's hash, scored by its creation time: the list's order. */
const ALL = `${REDIS_PREFIX}keys`;
const usageOf = (id: string, hour: number) => `${REDIS_PREFIX}usage:${id}:${hour}`;
const lastUsedOf = (id: string) => `${REDIS_PREFIX}last-used:${id}`;

/** Fields of a key's hash; quota and revokedAt are absent while null. */
function toFields(k: StoredKey): Record<string, string> {
  const fields: Record<string, string> = { id: k.id, label: k.label, createdAt: k.createdAt };
  if (k.quota !== null) fields.quota = String(k.quota);
  if (k.revokedAt) fields.revokedAt = k.revokedAt;
  return fields;
}

function fromFields(hash: string, f: Record<string, string>): StoredKey | null {
  if (!f.id) return null;
  return { id: f.id, label: f.label ?? '', quota: f.quota === undefined ? null : Number(f.quota), createdAt: f.createdAt ?? '', revokedAt: f.revokedAt ?? null, hash };
}

/** Throws the first error of a MULTI/pipeline's replies, or returns its results. */
function results(replies: Array<[Error | null, unknown]> | null): unknown[] {
  if (!replies) throw new Error('Redis transaction aborted');
  for (const [err] of replies) if (err) throw err;
  return replies.map(([, r]) => r);
}

export function createRedisKeyStore(link: RedisLink): KeyStore {
  const { client } = link;
  /** Every key seen, by hash: what verify answers from while Redis cannot. */
  const seen = new Map<string, StoredKey>();

  async function all(): Promise<StoredKey[]> {
    const hashes = await client.zrange(ALL, '0', '-1');
    if (hashes.length === 0) return [];
    const pipe = client.pipeline();
    for (const h of hashes) pipe.hgetall(keyOf(h));
    const replies = results(await pipe.exec()) as Array<Record<string, string>>;
    const keys = hashes.map((h, i) => fromFields(h, replies[i])).filter((k): k is StoredKey => k !== null);
    for (const k of keys) seen.set(k.hash, k);
    return keys;
  }
  link.onReady(() => void all().catch((err) => link.failed(err)));

  /** The hash of the secret of key `id`, or null when there is no such key. */
  const hashById = (id: string) => client.get(idOf(id));

  /** Runs an admin command; an unreachable Redis is reported and refused (nothing is changed half-way). */
  async function admin<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      link.failed(err);
      throw err;
    }
  }

  return {
    async verify(secret) {
      const hash = hashOf(secret);
      let key: StoredKey | null;
      try {
        key = fromFields(hash, await client.hgetall(keyOf(hash)));
      } catch (err) {
        link.failed(err);
        const known = seen.get(hash);
        if (!known) throw new ToolError('internal_error', { cause: err }); // cannot tell: neither accepted nor refused
        return known.revokedAt ? null : publicView(known);
      }
      if (key) seen.set(hash, key);
      else seen.delete(hash);
      return key && !key.revokedAt ? publicView(key) : null;
    },
    create(label, quota) {
      return admin(async () => {
        const secret = newSecret();
        const key = newKey(label, quota, secret);
        results(await client.multi().hset(keyOf(key.hash), toFields(key)).set(idOf(key.id), key.hash).zadd(ALL, Date.parse(key.createdAt), key.hash).exec());
        seen.set(key.hash, key);
        return { key: publicView(key), secret };
      });
    },
    list() {
      return admin(async () => (await all()).map(publicView));
    },
    revoke(id) {
      return admin(async () => {
        const hash = await hashById(id);
        if (!hash) return false;
        // The first revocation's time stays.
        await client.hsetnx(keyOf(hash), 'revokedAt', new Date().toISOString());
        const key = fromFields(hash, await client.hgetall(keyOf(hash)));
        if (key) seen.set(hash, key);
        return true;
      });
    },
    update(id, changes) {
      return admin(async () => {
        const hash = await hashById(id);
        if (!hash) return null;
        const tx = client.multi();
        if (changes.label !== undefined) tx.hset(keyOf(hash), 'label', changes.label);
        if (changes.quota === null) tx.hdel(keyOf(hash), 'quota');
        else if (changes.quota !== undefined) tx.hset(keyOf(hash), 'quota', String(changes.quota));
        tx.hgetall(keyOf(hash));
        const replies = results(await tx.exec());
        const key = fromFields(hash, replies.at(-1) as Record<string, string>);
        if (!key) return null;
        seen.set(hash, key);
        return publicView(key);
      });
    },
    recordRun(id, runs = 1) {
      const k = usageOf(id, hourOf());
      const tx = client.multi().incrby(k, runs).expire(k, (USAGE_HOURS_KEPT + 1) * 3600);
      if (runs > 0) tx.set(lastUsedOf(id), String(Date.now()));
      tx.exec()
        .then(results)
        .catch((err) => link.failed(err)); // a run's usage is lost while Redis is out; the run is not
    },
    usage(id, hours = 24) {
      return admin(async () => {
        if ((await client.exists(idOf(id))) === 0) return null;
        const span = hoursBack(hours);
        const counts = await client.mget(span.map((h) => usageOf(id, h)));
        return span.map((h, i) => hourUsage(h, Number(counts[i] ?? 0)));
      });
    },
    lastUsed(ids) {
      return admin(async () => {
        const at = ids.length === 0 ? [] : await client.mget(ids.map(lastUsedOf));
        return new Map(ids.map((id, i) => [id, at[i] ? new Date(Number(at[i])).toISOString() : null]));
      });
    },
    async close() {
      // Nothing pending: every change is written when it is made. The connection is the link's to close.
    },
  };
}

// The Redis key and quota stores against a real redis-server, two connections standing for two replicas:
// what one changes the other sees on its next call, usage per hour, and an outage with its single warning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRedisKeyStore } from '../../tools/core/keys-redis.ts';
import { withKeyUsage } from '../../tools/core/keys.ts';
import { createRedisQuota } from '../../tools/core/quota-redis.ts';
import { connectRedis, REDIS_PREFIX, type RedisLink } from '../../tools/core/redis.ts';
import { redisOrSkip, redisServer, type RedisServer } from './processes.ts';

/** A logger that keeps what it is told. */
function memoryLog() {
  const lines: string[] = [];
  return { lines, log: (s: string) => lines.push(s), warn: (s: string) => lines.push(`WARN ${s}`) };
}

async function withRedis(t: import('node:test').TestContext, fn: (redis: RedisServer, links: RedisLink[], logs: ReturnType<typeof memoryLog>[]) => Promise<void>) {
  if (!redisOrSkip(t)) return;
  const redis = await redisServer();
  const logs = [memoryLog(), memoryLog()];
  const links = logs.map((l) => connectRedis(redis.url, l));
  try {
    for (const link of links) assert.equal(await link.ready(30_000), true);
    await fn(redis, links, logs);
  } finally {
    await Promise.all(links.map((l) => l.close()));
    await redis.stop();
  }
}

test('redis keys: every change made through one connection holds on the next call through the other', async (t) => {
  await withRedis(t, async (_redis, [la, lb]) => {
    const a = createRedisKeyStore(la);
    const b = createRedisKeyStore(lb);
    const first = await a.create('primero', null);
    const second = await b.create('segundo', 40);
    assert.deepEqual((await a.list()).map((k) => k.label), ['primero', 'segundo'], 'listed in creation order');
    assert.deepEqual(await b.verify(first.secret), first.key);
    assert.equal(await b.verify(`${first.secret}x`), null);

    assert.deepEqual(await b.update(first.key.id, { label: 'renombrado', quota: 12 }), { ...first.key, label: 'renombrado', quota: 12 });
    assert.equal((await a.verify(first.secret))?.quota, 12);
    assert.equal((await a.update(first.key.id, { quota: null }))?.quota, null, 'back to the default for keys');
    assert.equal(await a.update('nope', { quota: 1 }), null);

    assert.equal(await a.revoke(second.key.id), true);
    assert.equal(await b.verify(second.secret), null);
    const revokedAt = (await b.list()).find((k) => k.id === second.key.id)?.revokedAt;
    assert.ok(revokedAt);
    assert.equal(await b.revoke(second.key.id), true);
    assert.equal((await a.list()).find((k) => k.id === second.key.id)?.revokedAt, revokedAt, 'the first revocation time stays');
    assert.equal(await a.revoke('nope'), false);

    const stored: string[] = [];
    for (const name of await la.client.keys(`${REDIS_PREFIX}*`)) {
      const type = await la.client.type(name);
      stored.push(name, ...(type === 'hash' ? Object.values(await la.client.hgetall(name)) : type === 'string' ? [String(await la.client.get(name))] : await la.client.zrange(name, '0', '-1')));
    }
    assert.ok(!stored.some((s) => s.includes(first.secret) || s.includes(second.secret)), 'no secret is stored, only hashes');
  });
});

test('redis quota and usage: one budget through both connections, a new quota keeps the hour\'s runs, usage per hour', async (t) => {
  await withRedis(t, async (_redis, [la, lb]) => {
    const keysA = createRedisKeyStore(la);
    const keysB = createRedisKeyStore(lb);
    const qa = withKeyUsage(createRedisQuota(la), keysA);
    const qb = withKeyUsage(createRedisQuota(lb), keysB);
    const { key } = await keysA.create('uso', 5);
    const subject = `key:${key.id}`;
    assert.equal((await qa.take(subject, 5)).remaining, 4);
    assert.equal((await qb.take(subject, 5)).remaining, 3);
    assert.equal((await qa.take(subject, 5)).remaining, 2);
    await qb.giveBack(subject, 5);
    assert.equal((await qa.take(subject, 3)).allowed, true, 'lowered to 3: 3 used');
    const refused = await qb.take(subject, 3);
    assert.equal(refused.allowed, false, 'a lowered quota counts the runs already used this hour');
    assert.ok(refused.reset > 0 && refused.reset <= 3600);
    const usage = await keysB.usage(key.id, 3);
    assert.equal(usage?.length, 3);
    assert.deepEqual(usage?.map((h) => h.runs), [0, 0, 3], 'three runs counted (four taken, one given back; the refused one not)');
    assert.equal(await keysA.usage('nope'), null);
  });
});

test('redis outage: runs are counted per connection, known keys keep working, one warning, shared again after', async (t) => {
  await withRedis(t, async (redis, [la, lb], [loga, logb]) => {
    const a = createRedisKeyStore(la);
    const qa = createRedisQuota(la);
    const qb = createRedisQuota(lb);
    const { secret } = await a.create('conocida', null);
    assert.ok(await a.verify(secret));

    await redis.stop();
    for (let i = 0; i < 5; i++) {
      assert.equal((await qa.take('ip:203.0.113.1', 3)).allowed, i < 3, `run ${i + 1} on a: this connection's own count`);
      assert.equal((await qb.take('ip:203.0.113.1', 3)).allowed, i < 3, `run ${i + 1} on b`);
    }
    assert.ok(await a.verify(secret), 'a key seen before keeps working');
    await assert.rejects(a.verify('sk_never-seen'), (err: { code?: string }) => err.code === 'internal_error');
    await assert.rejects(a.create('durante', null), 'no admin change while Redis is out');
    for (const log of [loga, logb]) assert.equal(log.lines.filter((l) => l.startsWith('WARN') && /unreachable/.test(l)).length, 1, log.lines.join('\n'));

    await redis.start();
    for (const link of [la, lb]) {
      for (let i = 0; i < 600 && !link.up; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(link.up, true);
    }
    for (const log of [loga, logb]) assert.equal(log.lines.filter((l) => /Redis at \S+ is back/.test(l)).length, 1, log.lines.join("\n"));
    assert.equal((await qa.take('ip:203.0.113.1', 3)).remaining, 2, 'Redis counts again (it came back empty)');
    assert.equal((await qb.take('ip:203.0.113.1', 3)).remaining, 1, 'in one budget for both');
  });
});

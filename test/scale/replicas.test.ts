// Two replicas of the real service (mcp/main.ts, as `npm start` runs it) on two ports sharing one real
// redis-server, as behind a load balancer: one hourly budget per client, keys issued and revoked on either,
// MCP without sticky sessions, a Redis outage and its end, and a replica stopped while it runs a job.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bigCsv } from '../helpers/generate.ts';
import { bodyOf, fileObject, postRun } from '../helpers/http.ts';
import { redisOrSkip, redisServer, startReplica, type Proc, type RedisServer } from './processes.ts';

const ADMIN_TOKEN = 'scale-test-admin-token-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
// The replicas trust the loopback hop (as behind the compose proxy): each scenario is its own client address.
const ENV = { TRUST_PROXY: 'loopback', ADMIN_TOKEN, ANON_RUNS_PER_HOUR: '30', MAX_JOBS: '2', JOB_MEMORY_MB: '256' };
const small = { file: fileObject('datos.csv', 'id,nombre\n1,Ana\n2,Luis\n') };

type Replica = Proc & { url: string };

/** One small run from client `ip` (X-Forwarded-For), with an API key when given. */
function run(replica: Replica, ip: string, key?: string) {
  return postRun(replica.url, 'excel-to-json', small, { headers: { 'x-forwarded-for': ip, ...(key ? { authorization: `Bearer ${key}` } : {}) } });
}

/** Spends client `ip`'s 30 runs alternating between the replicas; each answer's remaining count is the shared one. */
async function spendBudget(replicas: Replica[], ip: string) {
  for (let i = 0; i < 30; i++) {
    const res = await run(replicas[i % 2], ip);
    assert.equal(res.status, 200, `run ${i + 1} of 30 on replica ${i % 2}: ${await res.clone().text()}`);
    assert.equal(res.headers.get('ratelimit-remaining'), String(29 - i), 'both replicas count in the one budget');
    await res.arrayBuffer();
  }
  for (const replica of replicas) {
    const res = await run(replica, ip);
    assert.equal(res.status, 429, 'the 31st run is refused on either replica');
    assert.ok(Number(res.headers.get('retry-after')) > 0, 'with Retry-After');
    assert.equal((await bodyOf(res)).error, 'quota_exceeded');
  }
}

async function createKey(replica: Replica, label: string, quota: number) {
  const res = await fetch(`${replica.url}/admin/api/keys`, { method: 'POST', headers: admin, body: JSON.stringify({ label, quota }) });
  assert.equal(res.status, 201);
  return (await res.json()) as { key: { id: string }; secret: string };
}

const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern, 'g'))?.length ?? 0;

test('replicas sharing one Redis', { timeout: 300_000 }, async (t) => {
  if (!redisOrSkip(t)) return;
  let redis: RedisServer | undefined;
  const replicas: Replica[] = [];
  try {
    redis = await redisServer();
    replicas.push(...(await Promise.all([startReplica({ ...ENV, REDIS_URL: redis.url }), startReplica({ ...ENV, REDIS_URL: redis.url })])));
    const [a, b] = replicas;
    for (const r of replicas) assert.match(r.output(), /shared through Redis at 127\.0\.0\.1:\d+/);

    await t.test('30 anonymous runs spread across both use up one client\'s hour; the 31st is 429 on either', async () => {
      await spendBudget(replicas, '198.51.100.1');
      const other = await run(b, '198.51.100.2');
      assert.equal(other.status, 200, 'another client keeps its own budget');
      await other.arrayBuffer();
    });

    await t.test('a key created on one replica works on the other at once; revoked on one, it is refused by the other', async () => {
      const { key, secret } = await createKey(a, 'equipo', 7);
      const used = await run(b, '198.51.100.3', secret);
      assert.equal(used.status, 200, await used.clone().text());
      assert.equal(used.headers.get('ratelimit-limit'), '7', "the key's own quota");
      await used.arrayBuffer();
      const listed = (await (await fetch(`${b.url}/admin/api/keys`, { headers: admin })).json()) as { keys: Array<{ id: string }> };
      assert.ok(listed.keys.some((k) => k.id === key.id), 'listed by the other replica');
      assert.equal((await fetch(`${a.url}/admin/api/keys/${key.id}`, { method: 'DELETE', headers: admin })).status, 200);
      const refused = await run(b, '198.51.100.3', secret);
      assert.equal(refused.status, 401, 'the very next call on the other replica is refused');
      assert.equal((await bodyOf(refused)).error, 'invalid_api_key');
    });

    await t.test('MCP needs no sticky sessions: initialize, tools/list and tools/call on alternating replicas', async () => {
      const hits: string[] = [];
      let next = 0;
      const alternate = (input: string | URL | Request, init?: RequestInit) => {
        const target = replicas[next++ % 2];
        hits.push(target.url);
        const url = new URL(input instanceof Request ? input.url : input);
        return fetch(`${target.url}${url.pathname}${url.search}`, init);
      };
      const client = new Client({ name: 'scale-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${a.url}/mcp?lang=en`), { fetch: alternate }));
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.some((x) => x.name === 'split-rows'));
        const res = await client.callTool({ name: 'split-rows', arguments: { file: fileObject('datos.csv', 'a\n1\n2\n3\n'), 'rows-per-file': 2, format: 'csv' } });
        assert.notEqual(res.isError, true, JSON.stringify(res.content));
        assert.deepEqual((res.structuredContent as { files: Array<{ name: string }> }).files.map((f) => f.name), ['part-001.csv', 'part-002.csv']);
      } finally {
        await client.close();
      }
      assert.ok(hits.length >= 4, `${hits.length} requests`);
      assert.deepEqual(new Set(hits), new Set(replicas.map((r) => r.url)), 'both replicas answered');
    });

    await t.test('Redis stopped: runs keep being answered, a warning is logged once, and limits are shared again after it returns', async () => {
      const { secret } = await createKey(a, 'vista antes', 100);
      const seen = await run(b, '198.51.100.4', secret);
      assert.equal(seen.status, 200);
      await seen.arrayBuffer();

      await redis!.stop();
      for (let i = 0; i < 6; i++) {
        const res = await run(replicas[i % 2], '198.51.100.5');
        assert.equal(res.status, 200, `run ${i + 1} with Redis down: ${await res.clone().text()}`);
        await res.arrayBuffer();
      }
      const keyed = await run(b, '198.51.100.4', secret);
      assert.equal(keyed.status, 200, 'a key this replica has seen keeps working');
      await keyed.arrayBuffer();
      const unknown = await run(a, '198.51.100.4', 'sk_not-a-key-anyone-made');
      assert.equal(unknown.status, 500, 'a key nobody can check now is neither accepted nor called invalid');
      assert.equal((await bodyOf(unknown)).error, 'internal_error');
      for (const r of replicas) assert.equal(count(r.output(), /Redis at \S+ is unreachable/), 1, `logged once:\n${r.output()}`);

      await redis!.start();
      for (const r of replicas) await r.waitFor(/Redis at \S+ is back/);
      await spendBudget(replicas, '198.51.100.5');
      for (const r of replicas) assert.equal(count(r.output(), /Redis at \S+ is unreachable/), 1, 'still once');
    });

    await t.test('SIGTERM on a replica running a job: the run completes, no new run is taken, it exits 0, the other serves on', async () => {
      const c = await startReplica({ ...ENV, REDIS_URL: redis!.url, MAX_JOBS: '1', JOB_MEMORY_MB: '1024', SHUTDOWN_TIMEOUT_S: '120' });
      replicas.push(c);
      const slow = fetch(`${c.url}/api/v1/tools/split-rows/run?download=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.6' },
        body: JSON.stringify({ file: fileObject('lento.csv', bigCsv(60_000)), 'rows-per-file': 1_000_000 }),
      });
      for (let i = 0; ; i++) {
        const h = (await (await fetch(`${c.url}/health`, { headers: { connection: 'close' } })).json()) as { jobs: number };
        if (h.jobs > 0) break;
        assert.ok(i < 2000, 'the run never started');
        await new Promise((r) => setTimeout(r, 10));
      }
      c.child.kill('SIGTERM');
      await c.waitFor(/SIGTERM, finishing requests in flight/);
      await assert.rejects(fetch(`${c.url}/health`, { headers: { connection: 'close' } }), 'a stopping replica takes no new connection');
      const res = await slow;
      assert.equal(res.status, 200, 'the run in flight completes');
      assert.ok((await res.arrayBuffer()).byteLength > 100_000);
      assert.equal(await c.exited, 0);
      const onB = await run(b, '198.51.100.6');
      assert.equal(onB.status, 200, 'the other replica serves on');
      assert.equal(onB.headers.get('ratelimit-remaining'), '28', 'and counts the stopped replica\'s run');
      await onB.arrayBuffer();
    });
  } finally {
    await Promise.all(replicas.map((r) => r.kill()));
    await redis?.stop();
  }
});

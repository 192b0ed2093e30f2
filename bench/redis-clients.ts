// Which Redis client the service uses (tools/core/redis.ts) is settled here, by numbers: ioredis (the
// dependency) against node-redis (@redis/client, installed OUTSIDE the project, a candidate, not a dependency),
// both driving rate-limiter-flexible's RateLimiterRedis with the memory insurance limiter, as quota-redis.ts does:
//   mkdir /tmp/redisbench && cd /tmp/redisbench && npm i @redis/client
//   REDIS_BENCH_MODULES=/tmp/redisbench/node_modules node --import tsx bench/redis-clients.ts
// It starts its own redis-server on a free loopback port and stops it at the end. Measured, rounds alternated:
// import time (fresh processes), sequential and 50-in-flight consume(), CPU per consume, and what a caller waits
// when Redis is killed (connection refused) and when it is stalled (SIGSTOP: connected, never answering).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';

const MODULES = process.env.REDIS_BENCH_MODULES ?? '';
const ROUNDS = Number(process.env.BENCH_RUNS ?? 7);
const TIMEOUT_MS = 500;
const require = createRequire(import.meta.url);

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const port = await freePort();
let server: ChildProcess | null = null;
async function startRedis() {
  server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  server.stdout!.on('data', (d) => (out += d));
  for (let i = 0; i < 200 && !out.includes('Ready to accept'); i++) await sleep(25);
}
async function killRedis() {
  const s = server;
  server = null;
  if (!s || s.exitCode !== null) return;
  s.kill('SIGCONT');
  s.kill('SIGKILL');
  await new Promise((r) => s.once('exit', r));
}

interface Contender {
  name: string;
  version: string;
  /** A connected client and the limiter options that go with it. */
  connect(): Promise<{ client: unknown; options: Record<string, unknown>; close(): Promise<void> }>;
}

const url = `redis://127.0.0.1:${port}`;
const reconnect = (attempt: number) => Math.min(attempt * 200, 2000);
const contenders: Contender[] = [
  {
    name: 'ioredis',
    version: require('ioredis/package.json').version,
    async connect() {
      const { Redis } = await import('ioredis');
      const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: TIMEOUT_MS, retryStrategy: reconnect });
      client.on('error', () => {});
      await new Promise((r) => client.once('ready', r));
      return { client, options: {}, close: async () => void client.disconnect() };
    },
  },
];
const nodeRedisDir = MODULES && join(MODULES, '@redis/client');
if (nodeRedisDir && existsSync(nodeRedisDir)) {
  contenders.push({
    name: 'node-redis (@redis/client)',
    version: createRequire(join(nodeRedisDir, 'package.json'))('./package.json').version,
    async connect() {
      const { createClient } = (await import(pathToFileURL(join(nodeRedisDir, 'dist/index.js')).href)) as typeof import('ioredis') & { createClient: (o: object) => any }; // eslint-disable-line @typescript-eslint/no-explicit-any
      const raw = createClient({ url, disableOfflineQueue: true, socket: { reconnectStrategy: reconnect } });
      raw.on('error', () => {});
      await raw.connect();
      // Its per-command timeout: the closest it has to ioredis's commandTimeout.
      return { client: raw.withCommandOptions({ timeout: TIMEOUT_MS }), options: { useRedisPackage: true }, close: async () => void raw.destroy() };
    },
  });
} else {
  console.log('node-redis not found: install @redis/client outside the project and set REDIS_BENCH_MODULES (see the head of this file)');
}

const limiterOn = (client: unknown, options: Record<string, unknown>) =>
  new RateLimiterRedis({ storeClient: client, ...options, keyPrefix: 'bench', points: 1e9, duration: 3600, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory({ points: 1e9, duration: 3600 }) });

/** ms a consume took, or the cap when it had not answered by then. */
async function waited(limiter: RateLimiterRedis, capMs: number): Promise<number> {
  const t0 = performance.now();
  await Promise.race([limiter.consume('x').catch(() => {}), sleep(capMs)]);
  return performance.now() - t0;
}

await startRedis();
try {
  const rows: Record<string, Record<string, string>> = {};
  for (const c of contenders) rows[c.name] = { version: c.version };

  // Import time, fresh processes, alternated.
  const imports: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of contenders) {
      const mod = c.name === 'ioredis' ? require.resolve('ioredis') : join(nodeRedisDir, 'dist/index.js');
      const r = spawnSync(process.execPath, ['-e', `const t=performance.now();require(${JSON.stringify(mod)});console.log(performance.now()-t)`], { encoding: 'utf8' });
      (imports[c.name] ??= []).push(Number(r.stdout));
    }
  }
  for (const c of contenders) rows[c.name].import = `${median(imports[c.name]).toFixed(0)} ms`;

  // Throughput, rounds alternated between the clients.
  const clients = await Promise.all(contenders.map((c) => c.connect()));
  const seq: number[][] = contenders.map(() => []);
  const par: number[][] = contenders.map(() => []);
  const cpu: number[][] = contenders.map(() => []);
  let subject = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const i = round % 2 ? contenders.length - 1 - k : k;
      const limiter = limiterOn(clients[i].client, clients[i].options);
      const n = 2000;
      let t0 = performance.now();
      for (let j = 0; j < n; j++) await limiter.consume(`s${subject++ % 500}`);
      seq[i].push(((performance.now() - t0) * 1000) / n);
      const c0 = process.cpuUsage();
      t0 = performance.now();
      for (let b = 0; b < 100; b++) await Promise.all(Array.from({ length: 50 }, () => limiter.consume(`s${subject++ % 500}`)));
      par[i].push(5000 / ((performance.now() - t0) / 1000));
      const used = process.cpuUsage(c0);
      cpu[i].push((used.user + used.system) / 5000);
    }
  }
  contenders.forEach((c, i) => {
    rows[c.name]['consume, one at a time'] = `${median(seq[i]).toFixed(0)} µs`;
    rows[c.name]['consume, 50 in flight'] = `${Math.round(median(par[i])).toLocaleString('en')}/s`;
    rows[c.name]['CPU per consume'] = `${median(cpu[i]).toFixed(1)} µs`;
  });

  // Redis killed: what a consume waits (answered by the insurance limiter), and until Redis counts again.
  const limiters = clients.map((c) => limiterOn(c.client, c.options));
  await killRedis();
  await sleep(200);
  const down = await Promise.all(limiters.map(async (l) => median(await Promise.all(Array.from({ length: 5 }, () => waited(l, 5000))))));
  await startRedis();
  const back = await Promise.all(
    limiters.map(async (l, i) => {
      const t0 = performance.now();
      const probe = new RateLimiterRedis({ storeClient: clients[i].client, ...clients[i].options, keyPrefix: `probe${i}`, points: 10, duration: 60 });
      for (let j = 0; j < 400; j++) {
        if (await probe.consume('p').then(() => true, () => false)) return performance.now() - t0;
        await sleep(25);
      }
      return Infinity;
    }),
  );
  // Redis stalled: connected, never answering.
  server!.kill('SIGSTOP');
  const stalled = await Promise.all(limiters.map((l) => waited(l, 5000)));
  server!.kill('SIGCONT');
  contenders.forEach((c, i) => {
    rows[c.name]['Redis killed: a consume waits'] = `${down[i].toFixed(1)} ms`;
    rows[c.name]['shared again after restart'] = `${Math.round(back[i])} ms`;
    rows[c.name]['Redis stalled: a consume waits'] = stalled[i] >= 5000 ? 'no answer in 5 s' : `${Math.round(stalled[i])} ms`;
  });
  await Promise.all(clients.map((c) => c.close()));

  const columns = Object.keys(rows[contenders[0].name]);
  console.log(['| client | ' + columns.join(' | ') + ' |', '| --- '.repeat(columns.length + 1) + '|', ...contenders.map((c) => `| ${c.name} | ${columns.map((k) => rows[c.name][k]).join(' | ')} |`)].join('\n'));
} finally {
  await killRedis();
}

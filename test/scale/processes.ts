// Real processes for the scale tests: a redis-server of the tests' own on a free loopback port, and service
// replicas started as `npm start` runs them. Every one is stopped by the test that started it, in `finally`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

const MAIN = new URL('../../mcp/main.ts', import.meta.url).pathname;

export interface Proc {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  /** Resolves once `pattern` shows in the output (at most `tries` looks, 50 ms apart). */
  waitFor(pattern: RegExp, tries?: number): Promise<RegExpExecArray>;
  /** SIGKILL unless already gone; resolves when it is. */
  kill(): Promise<void>;
}

export function trackProc(child: ChildProcess): Proc {
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve((code = c))));
  return {
    child,
    output: () => out,
    exited,
    async waitFor(pattern, tries = 600) {
      for (let i = 0; i < tries; i++) {
        const m = pattern.exec(out);
        if (m) return m;
        if (code !== undefined) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`never printed ${pattern}:\n${out}`);
    },
    async kill() {
      if (code === undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  url: string;
  /** Starts it (again) on the same port, empty. */
  start(): Promise<void>;
  /** Kills it, as a crash or a lost host would. */
  stop(): Promise<void>;
}

/** Whether redis-server is installed; a test skips without it, except under CI where that is a failure. */
export function redisOrSkip(t: TestContext): boolean {
  if (spawnSync('redis-server', ['--version']).status === 0) return true;
  if (process.env.CI) throw new Error('redis-server is not installed (.ci/run installs it)');
  t.skip('redis-server is not installed');
  return false;
}

export async function redisServer(): Promise<RedisServer> {
  const port = await freePort();
  let proc: Proc | null = null;
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'notice'], { stdio: ['ignore', 'pipe', 'pipe'] });
      proc = trackProc(child);
      await proc.waitFor(/Ready to accept connections/);
    },
    async stop() {
      await proc?.kill();
      proc = null;
    },
  };
  await server.start();
  return server;
}

/** A replica of the service (mcp/main.ts) on a free port, with a DATA_DIR of its own, removed once it is gone. */
export async function startReplica(env: Record<string, string>): Promise<Proc & { url: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'st-replica-'));
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = trackProc(child);
  void proc.exited.then(() => rmSync(dataDir, { recursive: true, force: true }));
  try {
    const m = await proc.waitFor(/listening on (http:\/\/\S+)/);
    return { ...proc, url: m[1] };
  } catch (err) {
    await proc.kill();
    throw err;
  }
}

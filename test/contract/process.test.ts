// The real entry point, as `npm start` runs it: start-up, a bad variable, DNS-rebinding check, SIGTERM,
// SIGKILL leaving no folder behind, and the V8 flags it restarts itself with.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { commandLine, jobPids } from '../helpers/child-pids.ts';
import { missingFlags, SERVER_V8_FLAGS } from '../../mcp/v8-flags.ts';

const MAIN = new URL('../../mcp/main.ts', import.meta.url).pathname;

/** The entry point with a DATA_DIR of its own, removed once the process has exited. */
function start(env: Record<string, string>, nodeFlags: string[] = []): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const dataDir = mkdtempSync(join(tmpdir(), 'st-main-'));
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', MAIN], {
    env: { ...process.env, DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  void exited.then(() => rmSync(dataDir, { recursive: true, force: true }));
  return { child, output: () => out, exited };
}

/** The URL the server prints once it listens; no time limit (the runner's timeout is the bound). */
async function listening(output: () => string, exited: Promise<unknown>): Promise<string> {
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    const m = /listening on (http:\/\/[^\s]+)/.exec(output());
    if (m) return m[1];
    if (gone) throw new Error(`server did not start: ${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** GET with an explicit Host header (fetch does not allow setting it). */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

test('process: starts with defaults on loopback, refuses foreign Host headers, exits 0 on SIGTERM', async () => {
  const { child, output, exited } = start({ PORT: '0' });
  try {
    const base = await listening(output, exited);
    const health = await fetch(`${base}/health`);
    assert.equal(health.status, 200);
    assert.equal((await health.json() as { ok: boolean }).ok, true);
    assert.equal(await getWithHost(`${base}/health`, 'evil.example'), 403, 'DNS rebinding: a foreign Host is refused on a loopback bind');
    assert.equal(await getWithHost(`${base}/health`, 'localhost:3000'), 200);
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  } finally {
    child.kill('SIGKILL');
  }
});

test('process: a bad variable stops start-up with a message naming it', async () => {
  const { output, exited } = start({ PORT: 'abc' });
  assert.equal(await exited, 1);
  assert.match(output(), /PORT/);
});

test('process: ALLOWED_ORIGINS refuses other browser origins', async () => {
  const { child, output, exited } = start({ PORT: '0', ALLOWED_ORIGINS: 'https://app.example' });
  try {
    const base = await listening(output, exited);
    assert.equal((await fetch(`${base}/api/v1/tools`, { headers: { origin: 'https://evil.example' } })).status, 403);
    assert.equal((await fetch(`${base}/api/v1/tools`, { headers: { origin: 'https://app.example' } })).status, 200);
    assert.equal((await fetch(`${base}/api/v1/tools`)).status, 200, 'non-browser callers send no Origin');
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  } finally {
    child.kill('SIGKILL');
  }
});

test('process: killed outright once its job process runs, it leaves no folder of its own in the temporary folder', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  // A temporary folder for it alone (tsx may keep its cache there too: the service's own names begin `st-`).
  const tmp = mkdtempSync(join(tmpdir(), 'st-kill-'));
  const ours = () => readdirSync(tmp).filter((name) => name.startsWith('st-'));
  const { child, output, exited } = start({ PORT: '0', TMPDIR: tmp });
  let started: number[] = [];
  try {
    await listening(output, exited);
    // The first job process is started at once; once it exists, its connection has been made. (Its first
    // child is often esbuild's service, which tsx starts, while the job process is still to be made.)
    while ((started = jobPids(child.pid!)).length === 0) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(ours(), [], 'no folder left once the connection is made');
    child.kill('SIGKILL');
    await exited;
    assert.deepEqual(ours(), []);
  } finally {
    child.kill('SIGKILL');
    // A job process ends once its server's end of the channel closes; this one is not left to chance.
    for (const pid of started) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('process: the server V8 flags a command line lacks are the ones added; one given in either spelling, with any value, stays', () => {
  assert.deepEqual(SERVER_V8_FLAGS, ['--initial-old-space-size=128']);
  assert.deepEqual(missingFlags(['--import', 'tsx']), SERVER_V8_FLAGS);
  assert.deepEqual(missingFlags(['--import', 'tsx', ...SERVER_V8_FLAGS]), []);
  assert.deepEqual(missingFlags(['--initial_old_space_size=300', '--inspect']), []);
  assert.deepEqual(missingFlags(['--max-old-space-size=300']), SERVER_V8_FLAGS);
});

test('process: started without its V8 flags, the server restarts itself with them in the same process; a flag given on the command line is kept', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  for (const [given, expected] of [
    [[], '--initial-old-space-size=128'],
    [['--initial-old-space-size=200'], '--initial-old-space-size=200'],
  ] as const) {
    const { child, output, exited } = start({ PORT: '0' }, [...given]);
    try {
      const base = await listening(output, exited);
      // The pid the test started now runs with the flag, once, and serves.
      const line = commandLine(child.pid!);
      assert.deepEqual(line.filter((a) => a.startsWith('--initial-old-space-size')), [expected], line.join(' '));
      assert.equal(line.at(-1), MAIN, 'the same entry and arguments');
      assert.equal((await fetch(`${base}/health`)).status, 200);
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
      assert.equal(output().match(/listening on/g)?.length, 1, output());
    } finally {
      child.kill('SIGKILL');
    }
  }
});

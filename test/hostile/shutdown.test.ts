// Graceful shutdown of the real entry point: on SIGTERM the server stops accepting connections, lets the
// run in flight finish and answer 200, and exits 0; a run that outlasts SHUTDOWN_TIMEOUT_S does not keep
// the process alive: it exits while the run is still in progress, which never gets its answer. Nothing here
// is timed: a server that never starts or never exits hangs the test, which the runner's timeout fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bigCsv } from '../helpers/generate.ts';

const MAIN = new URL('../../mcp/main.ts', import.meta.url).pathname;

/** The entry point with a DATA_DIR of its own, removed once the process has exited. */
async function start(env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'st-stop-'));
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, ANON_RUNS_PER_HOUR: '1000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  void exited.then(() => rmSync(dataDir, { recursive: true, force: true }));
  let gone = false;
  void exited.then(() => (gone = true));
  for (;;) {
    const m = /listening on (http:\/\/\S+)/.exec(out);
    if (m) return { child, url: m[1], exited, output: () => out };
    if (gone) throw new Error(`no start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const slowBody = JSON.stringify({ file: { name: 'lento.csv', contentBase64: Buffer.from(bigCsv(60_000)).toString('base64') }, 'rows-per-file': 1_000_000 });

/** Resolves once the server reports a run in progress; throws if `run` settles first. */
async function busy(url: string, run: Promise<unknown>) {
  let settled = false;
  void run.finally(() => (settled = true));
  for (;;) {
    const h = (await (await fetch(`${url}/health`, { headers: { connection: 'close' } })).json()) as { jobs: number };
    if (h.jobs > 0) return;
    if (settled) throw new Error('the run ended before it was seen in progress');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('shutdown: SIGTERM with a run in flight: no new connections, the run answers 200, exit 0', async () => {
  const svc = await start({ MAX_JOBS: '1', SHUTDOWN_TIMEOUT_S: '60' });
  try {
    const run = fetch(`${svc.url}/api/v1/tools/split-rows/run?download=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: slowBody });
    await busy(svc.url, run);
    svc.child.kill('SIGTERM');
    // New connections are refused once the signal is handled (looked at until then, however long it takes).
    for (;;) {
      const refused = await fetch(`${svc.url}/health`, { headers: { connection: 'close' } }).then(
        async (r) => (await r.arrayBuffer(), false),
        () => true,
      );
      if (refused) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const res = await run;
    assert.equal(res.status, 200, 'the run in flight finished');
    assert.ok((await res.arrayBuffer()).byteLength > 0);
    assert.equal(await svc.exited, 0);
    assert.match(svc.output(), /SIGTERM/);
  } finally {
    svc.child.kill('SIGKILL');
  }
});

test('shutdown: a run longer than SHUTDOWN_TIMEOUT_S does not hold the exit past it', async () => {
  const svc = await start({ MAX_JOBS: '1', SHUTDOWN_TIMEOUT_S: '0.1' });
  try {
    // A run of many seconds (250,000 rows into one xlsx), far beyond the 0.1 s the shutdown waits for.
    const run = fetch(`${svc.url}/api/v1/tools/split-rows/run?download=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ file: { name: 'muy-lento.csv', contentBase64: Buffer.from(bigCsv(250_000)).toString('base64') }, 'rows-per-file': 1_000_000 }) }).then(
      async (res) => (res.status === 200 ? (await res.arrayBuffer()).byteLength : -res.status),
      () => null,
    );
    await busy(svc.url, run);
    svc.child.kill('SIGTERM');
    assert.equal(await svc.exited, 0);
    // The process exited with the run still in progress: the run got no result (at most a 503 busy, when
    // its answer went out before the exit), never a 200.
    const result = await run;
    assert.ok(result === null || result === -503, `the run was answered ${result}`);
  } finally {
    svc.child.kill('SIGKILL');
  }
});

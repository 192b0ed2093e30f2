// `npm run bench:pause`: what a pause without requests does to the path around a run. A server with the phase
// probe takes convert-csv through the JSON door (the 12 MB CSV of the bench) PAUSE_ROUND_RUNS (6) times
// 1.5 s apart, pauses PAUSE_S (20) seconds, takes as many again, and does that twice; each round prints the
// median of each phase and of each request's time less its run. PAUSE_S=0 is the control. PAUSE_SPIN=1 keeps
// both cores busy at nice 19 during the pause, to tell the cores' idle states from the rest; PAUSE_SERVER_FLAGS
// adds node or V8 flags to the server, and one of its own V8 flags given there replaces it (mcp/v8-flags.ts):
// `--initial-old-space-size=0` is the server as it ran before it had them.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig, toolLimitsOf } from '../tools/core/config.ts';
import { mediumRows, TITLES, toCsv } from './inputs.ts';
import { envFlags, envInt, median } from './measure.ts';
import { httpBody, runServiceHttp, startService, type HttpBody, type HttpService, type ServiceSpec } from './service.ts';

const PAUSE_MS = envInt('PAUSE_S', 20) * 1000;
const RUNS = Math.max(1, envInt('PAUSE_ROUND_RUNS', 6));
const SPIN = process.env.PAUSE_SPIN === '1';
const FLAGS = envFlags('PAUSE_SERVER_FLAGS');
const GAP_MS = 1500;
const KEYS = ['decode', 'hand-off', 'run', 'hand-back'] as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const spec: ServiceSpec = { tool: 'convert-csv', options: { encoding: 'windows-1252' }, limits: toolLimitsOf(parseConfig(process.env)) };

async function round(http: HttpService, body: HttpBody, label: string): Promise<void> {
  const seen: Record<string, number[]> = Object.fromEntries([...KEYS, 'around the run'].map((k) => [k, []]));
  for (let i = 0; i < RUNS; i++) {
    await sleep(GAP_MS);
    const r = await runServiceHttp(http, spec, body);
    if (!r.ok || !r.phases) throw new Error(`convert-csv over HTTP: ${r.code ?? 'no phases'}`);
    for (const k of KEYS) seen[k].push(r.phases[k]);
    seen['around the run'].push(r.ms - r.phases.run);
  }
  console.log(`${label.padEnd(16)}${Object.entries(seen).map(([k, v]) => `  ${k} ${Math.round(median(v)!)} ms`).join('')}`);
}

const work = mkdtempSync(join(tmpdir(), 'bench-pause-'));
let http: HttpService | undefined;
try {
  // httpBody takes only the file's name from its path; the body it writes is what curl sends.
  const body = httpBody('json', spec, [{ path: 'medio.csv', bytes: toCsv(TITLES, mediumRows(100_000)) }], 'file', join(work, 'body'));
  http = await startService({ MAX_INPUT_MB: '60' }, undefined, { phases: true, nodeFlags: FLAGS });
  console.log(`convert-csv, JSON door, ${RUNS} requests ${GAP_MS / 1000} s apart a round; pause ${PAUSE_MS / 1000} s${SPIN ? ', both cores busy at nice 19 during it' : ''}${FLAGS.length ? `; server flags ${FLAGS.join(' ')}` : ''} (medians)`);
  await runServiceHttp(http, spec, body);
  for (let k = 0; k < 2; k++) {
    await round(http, body, 'before the pause');
    const spinners = SPIN ? [0, 1].map(() => spawn('nice', ['-n', '19', 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' })) : [];
    try {
      await sleep(PAUSE_MS);
    } finally {
      for (const s of spinners) s.kill('SIGKILL');
    }
    await round(http, body, 'after it');
  }
} finally {
  await http?.close();
  rmSync(work, { recursive: true, force: true });
}

// The small-file HTTP load of issues 5 and 19: a 10 KB CSV → xlsx run, posted by autocannon (the load
// generator, a child process so it never shares this event loop) against the service, and a bare Express
// "hello world" against the same generator, in turn, in the same run. The ratio of their requests per second
// is the figure the issues set targets for. The service's front door alone (its run replaced by a result made
// beforehand) is measured too, to tell what the run costs from what everything around it does.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startChild, startService, type HttpService } from './service.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const AUTOCANNON = join(ROOT, 'node_modules', 'autocannon', 'autocannon.js');

export interface LoadFigures {
  requestsPerSec: number;
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
}

interface AutocannonJson {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}

function autocannon(url: string, o: { connections: number; seconds: number; method?: string; formFile?: string }): Promise<LoadFigures> {
  const args = [AUTOCANNON, '-j', '-n', '-c', String(o.connections), '-d', String(o.seconds)];
  if (o.method) args.push('-m', o.method);
  if (o.formFile) args.push('-F', o.formFile);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b));
    child.stderr.on('data', (b: Buffer) => (err += b));
    child.on('close', (code) => {
      try {
        const j = JSON.parse(out) as AutocannonJson;
        resolve({
          requestsPerSec: j.requests.average,
          requests: j.requests.total,
          ok: j['2xx'],
          non2xx: j.non2xx,
          errors: j.errors,
          timeouts: j.timeouts,
          latencyP50Ms: j.latency.p50,
          latencyP99Ms: j.latency.p99,
          statuses: Object.fromEntries(Object.entries(j.statusCodeStats ?? {}).map(([k, v]) => [k, v.count])),
        });
      } catch {
        reject(new Error(`autocannon exit ${code}: ${err.slice(-500)}`));
      }
    });
  });
}

/** Seconds of untimed load before each server is measured (at most the measured time). */
export const WARM_UP_S = 3;

/**
 * The measured time is cut into this many rounds, each measuring every server in turn: the machine's load
 * drifts over a minute (other work on a shared host), and measuring the service first and bare Express last
 * put that drift into the ratio. A ratio is taken per round; the median is reported.
 */
export const ROUNDS = 3;

export interface LoadResult {
  tool: string;
  inputBytes: number;
  connections: number;
  /** Measured seconds per server and connection count, over all rounds. */
  seconds: number;
  rounds: number;
  service: LoadFigures;
  /** The same load with as many connections as the server has job slots (MAX_JOBS): no `busy` answers. */
  serviceAtJobs: LoadFigures & { connections: number };
  express: LoadFigures;
  /** Bare Express at MAX_JOBS connections, the denominator of the ratios at MAX_JOBS connections. */
  expressAtJobs: LoadFigures & { connections: number };
  /**
   * The service's front door alone at MAX_JOBS connections (bench/peers/front-door.ts): the same requests and
   * answers, with the worker answering a result made beforehand instead of running the tool.
   */
  frontDoor: LoadFigures & { connections: number };
  /**
   * Medians over the rounds of service successful runs/s ÷ bare Express requests/s, at `connections` and at
   * MAX_JOBS connections (each against bare Express at the same count); `perRound` gives every round's.
   */
  ratio: number;
  ratioAtJobs: number;
  ratioFrontDoor: number;
  perRound: { ratio: number[]; ratioAtJobs: number[]; ratioFrontDoor: number[] };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The figures of several rounds as one: counts summed, the median p50, the worst p99. */
function merged(rounds: LoadFigures[], seconds: number): LoadFigures {
  const sum = (k: 'requests' | 'ok' | 'non2xx' | 'errors' | 'timeouts') => rounds.reduce((n, r) => n + r[k], 0);
  const statuses: Record<string, number> = {};
  for (const r of rounds) for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  return {
    requestsPerSec: sum('requests') / seconds,
    requests: sum('requests'),
    ok: sum('ok'),
    non2xx: sum('non2xx'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    latencyP50Ms: median(rounds.map((r) => r.latencyP50Ms)),
    latencyP99Ms: Math.max(...rounds.map((r) => r.latencyP99Ms)),
    statuses,
  };
}

/**
 * Runs the load against the running service, the front door alone and a bare Express app, the three running
 * side by side and measured in turn, ROUNDS times.
 */
export async function smallFileLoad(
  service: HttpService,
  o: { tool: string; csvPath: string; inputBytes: number; workDir: string; connections: number; seconds: number; jobs: number },
): Promise<LoadResult> {
  const form = join(o.workDir, 'load-form.json');
  writeFileSync(form, JSON.stringify({ file: { type: 'file', path: o.csvPath } }));
  const path = `/api/v1/tools/${o.tool}/run?download=true`;
  const post = { method: 'POST', formFile: form };
  const roundS = Math.max(1, Math.round(o.seconds / ROUNDS));
  const front = await startService({ CANNED_INPUT: o.csvPath, CANNED_TOOL: o.tool }, join(ROOT, 'bench', 'peers', 'front-door.ts'));
  try {
    const hello = await startChild([join(ROOT, 'bench', 'peers', 'hello-express.mjs')], {}, '/health');
    try {
      // Every server is measured warm: a server started for this load alone (BENCH_ONLY=load) would otherwise
      // spend its first seconds compiling the run's code in every thread, which no long-running server does.
      const warmS = Math.min(WARM_UP_S, o.seconds);
      await autocannon(service.url + path, { connections: o.jobs, seconds: warmS, ...post });
      await autocannon(front.url + path, { connections: o.jobs, seconds: warmS, ...post });
      await autocannon(hello.url + '/', { connections: o.connections, seconds: warmS });
      const runs: Array<Record<'service' | 'serviceAtJobs' | 'frontDoor' | 'express' | 'expressAtJobs', LoadFigures>> = [];
      for (let r = 0; r < ROUNDS; r++) {
        const service_ = await autocannon(service.url + path, { connections: o.connections, seconds: roundS, ...post });
        const serviceAtJobs = o.connections === o.jobs ? service_ : await autocannon(service.url + path, { connections: o.jobs, seconds: roundS, ...post });
        const frontDoor = await autocannon(front.url + path, { connections: o.jobs, seconds: roundS, ...post });
        const express = await autocannon(hello.url + '/', { connections: o.connections, seconds: roundS });
        const expressAtJobs = o.connections === o.jobs ? express : await autocannon(hello.url + '/', { connections: o.jobs, seconds: roundS });
        runs.push({ service: service_, serviceAtJobs, frontDoor, express, expressAtJobs });
      }
      const seconds = roundS * ROUNDS;
      const all = (k: keyof (typeof runs)[number]) => merged(runs.map((r) => r[k]), seconds);
      const perRound = {
        ratio: runs.map((r) => r.service.ok / roundS / r.express.requestsPerSec),
        ratioAtJobs: runs.map((r) => r.serviceAtJobs.ok / roundS / r.expressAtJobs.requestsPerSec),
        ratioFrontDoor: runs.map((r) => r.frontDoor.ok / roundS / r.expressAtJobs.requestsPerSec),
      };
      return {
        tool: o.tool,
        inputBytes: o.inputBytes,
        connections: o.connections,
        seconds,
        rounds: ROUNDS,
        service: all('service'),
        serviceAtJobs: { ...all('serviceAtJobs'), connections: o.jobs },
        express: all('express'),
        expressAtJobs: { ...all('expressAtJobs'), connections: o.jobs },
        frontDoor: { ...all('frontDoor'), connections: o.jobs },
        ratio: median(perRound.ratio),
        ratioAtJobs: median(perRound.ratioAtJobs),
        ratioFrontDoor: median(perRound.ratioFrontDoor),
        perRound,
      };
    } finally {
      await hello.close();
    }
  } finally {
    await front.close();
  }
}

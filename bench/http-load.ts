// The small-file HTTP load of issue 5: a 10 KB CSV → xlsx run, posted by autocannon (the load generator,
// a child process so it never shares this event loop) against the service, then a bare Express "hello
// world" against the same generator in the same run. The ratio of their requests per second is the figure
// the issue sets a target for (≥ 25 %). The service's front door alone (its run replaced by a result made
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

export interface LoadResult {
  tool: string;
  inputBytes: number;
  connections: number;
  seconds: number;
  service: LoadFigures;
  /** The same load with as many connections as the server has job slots (MAX_JOBS): no `busy` answers. */
  serviceAtJobs: LoadFigures & { connections: number };
  express: LoadFigures;
  /**
   * The service's front door alone at MAX_JOBS connections (bench/peers/front-door.ts): the same requests and
   * answers, with the worker answering a result made beforehand instead of running the tool.
   */
  frontDoor: LoadFigures & { connections: number };
  /** service successful runs/s ÷ bare Express requests/s, at `connections` and at MAX_JOBS connections */
  ratio: number;
  ratioAtJobs: number;
  ratioFrontDoor: number;
}

/** Runs the load against the running service, then against a bare Express app started for it. */
export async function smallFileLoad(
  service: HttpService,
  o: { tool: string; csvPath: string; inputBytes: number; workDir: string; connections: number; seconds: number; jobs: number },
): Promise<LoadResult> {
  const form = join(o.workDir, 'load-form.json');
  writeFileSync(form, JSON.stringify({ file: { type: 'file', path: o.csvPath } }));
  const url = `${service.url}/api/v1/tools/${o.tool}/run?download=true`;
  // Both servers are measured warm: a server started for this load alone (BENCH_ONLY=load) would otherwise
  // spend its first seconds compiling the run's code in every thread, which no long-running server does.
  const warmS = Math.min(WARM_UP_S, o.seconds);
  await autocannon(url, { connections: o.jobs, seconds: warmS, method: 'POST', formFile: form });
  const svc = await autocannon(url, { connections: o.connections, seconds: o.seconds, method: 'POST', formFile: form });
  const atJobs = await autocannon(url, { connections: o.jobs, seconds: o.seconds, method: 'POST', formFile: form });
  const front = await startService({ CANNED_INPUT: o.csvPath, CANNED_TOOL: o.tool }, join(ROOT, 'bench', 'peers', 'front-door.ts'));
  let frontDoor: LoadFigures;
  try {
    const frontUrl = `${front.url}/api/v1/tools/${o.tool}/run?download=true`;
    await autocannon(frontUrl, { connections: o.jobs, seconds: warmS, method: 'POST', formFile: form });
    frontDoor = await autocannon(frontUrl, { connections: o.jobs, seconds: o.seconds, method: 'POST', formFile: form });
  } finally {
    await front.close();
  }
  const hello = await startChild([join(ROOT, 'bench', 'peers', 'hello-express.mjs')], {}, '/health');
  try {
    await autocannon(hello.url + '/', { connections: o.connections, seconds: warmS });
    const bare = await autocannon(hello.url + '/', { connections: o.connections, seconds: o.seconds });
    return {
      tool: o.tool,
      inputBytes: o.inputBytes,
      connections: o.connections,
      seconds: o.seconds,
      service: svc,
      serviceAtJobs: { ...atJobs, connections: o.jobs },
      express: bare,
      frontDoor: { ...frontDoor, connections: o.jobs },
      ratio: svc.ok / o.seconds / bare.requestsPerSec,
      ratioAtJobs: atJobs.ok / o.seconds / bare.requestsPerSec,
      ratioFrontDoor: frontDoor.ok / o.seconds / bare.requestsPerSec,
    };
  } finally {
    await hello.close();
  }
}

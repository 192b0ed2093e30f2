// The service's side of a task, three ways: (a) in this process through the kernel's `execute`, as a worker
// runs it; (b) the same in a fresh child process per run, for a clean peak RSS; (c) over HTTP against the
// real server (`mcp/main.ts` as a child) with download=true, multipart or JSON, timing the whole request and,
// with the server's phase probe, where its time went.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolLimits } from '../tools/core/config.ts';
import { ToolError } from '../tools/core/errors.ts';
import { execute, type RunResult } from '../tools/core/execute.ts';
import type { InputFile } from '../tools/core/files.ts';
import { JOB_INITIAL_OLD_SPACE_MB, JOB_V8_FLAGS, JOB_YOUNG_GENERATION_MB } from '../tools/core/jobs.ts';
import { getTool } from '../tools/core/registry.ts';
import { optionsSchema, parseOptions } from '../tools/core/schema.ts';
import { procMemory, resetPeak } from '../tools/core/peak-memory.ts';
import type { PhaseMarks } from '../tools/core/phases.ts';
import { jobPids } from '../test/helpers/child-pids.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface ServiceSpec {
  tool: string;
  /** Options as a caller sends them (JSON values). */
  options: Record<string, unknown>;
  limits: ToolLimits;
}

export interface ServiceRun {
  ok: boolean;
  ms: number;
  /** Error code when the run was refused or failed. */
  code?: string;
  outBytes: number;
  outFiles: number;
  result?: RunResult;
}

/** Whether the tool is in the registry today (tasks of tools not written yet are skipped). */
export function registered(tool: string): boolean {
  try {
    getTool(tool);
    return true;
  } catch (err) {
    if (err instanceof ToolError && err.code === 'unknown_tool') return false;
    throw err;
  }
}

/** (a) One run through the kernel's code path: options parsed by the tool's schema, `execute` as a worker does. */
export async function runService(spec: ServiceSpec, files: InputFile[]): Promise<ServiceRun> {
  const tool = getTool(spec.tool);
  const t0 = performance.now();
  try {
    const opts = parseOptions(optionsSchema(tool), spec.options);
    const result = await execute(tool, files, opts, { lang: 'es', download: true, limits: spec.limits });
    const ms = performance.now() - t0;
    return { ok: true, ms, outBytes: result.files.reduce((n, f) => n + f.bytes.length, 0), outFiles: result.files.length, result };
  } catch (err) {
    return { ok: false, ms: performance.now() - t0, code: err instanceof ToolError ? err.code : `crash: ${(err as Error).message}`, outBytes: 0, outFiles: 0 };
  }
}

export interface ChildRun extends ServiceRun {
  /** Wall time of the process, start-up and module loading included. */
  wallMs: number;
  maxRssMb: number;
  /** RSS once modules were loaded, before the input was read. */
  baseRssMb: number;
}

/** (b) One run in a fresh `node` process (bench/one-run.ts). */
export function runServiceChild(spec: ServiceSpec, paths: string[], timeoutMs: number, fields?: (string | undefined)[]): Promise<ChildRun> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    // The same young generation as a job worker's (a third of it is one semi-space), the same old-generation
    // floor and V8 flags, so the peak is the service's.
    const semiSpace = `--max-semi-space-size=${JOB_YOUNG_GENERATION_MB / 3}`;
    const oldSpace = `--initial-old-space-size=${JOB_INITIAL_OLD_SPACE_MB}`;
    const child = spawn(process.execPath, [semiSpace, oldSpace, ...JOB_V8_FLAGS, '--import', 'tsx', join(ROOT, 'bench', 'one-run.ts'), JSON.stringify({ ...spec, files: paths, fields })], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b));
    child.stderr.on('data', (b: Buffer) => (err = (err + b).slice(-2000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const wallMs = performance.now() - t0;
      try {
        resolve({ ...(JSON.parse(out.trim().split('\n').pop()!) as Omit<ChildRun, 'wallMs'>), wallMs });
      } catch {
        resolve({ ok: false, ms: wallMs, wallMs, code: `child exit ${code}: ${err.trim().split('\n').slice(-2).join(' | ').slice(0, 200)}`, outBytes: 0, outFiles: 0, maxRssMb: 0, baseRssMb: 0 });
      }
    });
  });
}

export interface HttpService {
  url: string;
  pid: number;
  /** Where the server's phase probe writes (bench/phase-probe.ts), when it was started with it. */
  phasesFile?: string;
  close(): Promise<void>;
}

/** A service started as a child: its process, its exit code once it exits, and what it printed if asked to keep it. */
export interface ChildService extends HttpService {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Everything it wrote to stdout and stderr (`output: true`), else the last 2,000 characters of stderr. */
  output(): string;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/**
 * Starts a Node program as a child on a free loopback port and waits for `readyPath` to answer 200. `output`
 * keeps all it prints (npm run load looks for errors in it); otherwise stdout is not read at all.
 */
export async function startChild(args: string[], env: Record<string, string>, readyPath: string, o: { output?: boolean } = {}): Promise<ChildService> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', o.output ? 'pipe' : 'ignore', 'pipe'],
  });
  let out = '';
  const keep = o.output ? (b: Buffer) => (out += b) : (b: Buffer) => (out = (out + b).slice(-2000));
  child.stdout?.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited: ${out}`);
    try {
      if ((await fetch(url + readyPath)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (i > 300) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ')} did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    child,
    exited,
    output: () => out,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('close', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

/**
 * The real service (`npm start`'s entry, or another entry built on the same app) with a quota and input bound
 * that never limit the benchmark, and a DATA_DIR of its own that goes with it.
 */
export async function startService(env: Record<string, string>, entry = join(ROOT, 'mcp', 'main.ts'), o: { phases?: boolean; nodeFlags?: string[]; output?: boolean } = {}): Promise<ChildService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-data-'));
  const phasesFile = o.phases ? join(dataDir, 'phases.jsonl') : undefined;
  const probe = phasesFile ? ['--import', join(ROOT, 'bench', 'phase-probe.ts')] : [];
  const removeData = () => rmSync(dataDir, { recursive: true, force: true });
  let service: ChildService;
  try {
    service = await startChild(
      [...(o.nodeFlags ?? []), '--import', 'tsx', ...probe, entry],
      { ANON_RUNS_PER_HOUR: '1000000000', DATA_DIR: dataDir, ...(phasesFile ? { BENCH_PHASES_FILE: phasesFile } : {}), ...env },
      '/health',
      { output: o.output },
    );
  } catch (err) {
    removeData();
    throw err;
  }
  void service.exited.then(removeData);
  return { ...service, phasesFile, close: () => service.close().finally(removeData) };
}

export interface HttpRun {
  ok: boolean;
  ms: number;
  status: number;
  code?: string;
  outBytes: number;
  /** Peak RSS of the server process during this request (its VmHWM, reset before the request). */
  serverPeakMb: number | null;
  /** Peak RSS over the RSS before the request: of the server process, and of the job process that ran the job
   * (as it measured itself from the job's arrival; without the probe, of all job processes together). */
  serverGrowthMb: number | null;
  jobGrowthMb: number | null;
  /** Of the other job processes during the request (one starting, or collecting after an earlier job), when
   * the probe tells which process ran the job: the pool's, not this run's. */
  otherJobsGrowthMb: number | null;
  /** The job process that ran the job, when the probe tells. */
  jobPid: number | null;
  /** Where the time went (phases.ts marks and this client's), when the server was started with the probe. */
  phases: Phases | null;
}

/** A request body made once per task (and written to a file for curl), so that no encoding falls inside the timed request. */
export interface HttpBody {
  door: 'multipart' | 'json';
  contentType: string;
  bytes: Buffer;
  path: string;
}

export const PHASES = ['receive', 'decode', 'hand-off', 'run', 'hand-back', 'write'] as const;
export type Phases = Record<(typeof PHASES)[number], number>;

/** The body of a run: multipart with the files as parts, or JSON with them in base64 (options as JSON values). */
export function httpBody(door: 'multipart' | 'json', spec: ServiceSpec, files: Array<{ path: string; bytes: Uint8Array }>, field: 'file' | 'files', dir: string, fields?: (string | undefined)[]): HttpBody {
  const made = makeBody(door, spec, files, field, fields);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `body.${door}`);
  writeFileSync(path, made.bytes);
  return { ...made, door, path };
}

function makeBody(door: 'multipart' | 'json', spec: ServiceSpec, files: Array<{ path: string; bytes: Uint8Array }>, field: 'file' | 'files', fields?: (string | undefined)[]): { contentType: string; bytes: Buffer } {
  if (door === 'json') {
    const object = (f: { path: string; bytes: Uint8Array }) => ({ name: basename(f.path), contentBase64: Buffer.from(f.bytes).toString('base64') });
    // A file with a field of its own (merge-by-key's lookup-file) is that option; the others are `field`.
    const own = Object.fromEntries(files.flatMap((f, i) => (fields?.[i] ? [[fields[i]!, object(f)]] : [])));
    const objects = files.filter((_, i) => !fields?.[i]).map(object);
    const body = { ...spec.options, [field]: field === 'file' ? objects[0] : objects, ...own };
    return { contentType: 'application/json', bytes: Buffer.from(JSON.stringify(body)) };
  }
  const boundary = `----bench${Date.now().toString(16)}`;
  const parts: Buffer[] = [];
  for (const [i, f] of files.entries()) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${fields?.[i] ?? field}"; filename="${basename(f.path)}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
    parts.push(Buffer.from(f.bytes), Buffer.from('\r\n'));
  }
  for (const [k, v] of Object.entries(spec.options)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${String(v)}\r\n`));
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, bytes: Buffer.concat(parts) };
}

const epochNow = () => performance.timeOrigin + performance.now();

/** The last phase line of `tool` the probe wrote after `since` (the server writes it once the answer is out). */
interface Probed {
  phases: Phases | null;
  /** The job process that ran the job, and what it grew by (phases.ts). */
  jobPid?: number;
  jobGrowthMb?: number;
}

async function phasesOf(file: string, tool: string, since: number, exchange: Exchange): Promise<Probed | null> {
  for (let i = 0; i < 50; i++) {
    const lines = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
    for (let j = lines.length - 1; j >= 0 && lines[j]; j--) {
      const p = JSON.parse(lines[j]) as { tool: string; marks: PhaseMarks };
      if (p.tool !== tool || p.marks.start < since) continue;
      const { jobPid, jobGrowthMb, ...m } = p.marks;
      // The server had the request's head about when the client began to send it (loopback): the client's own
      // times are laid from there.
      const clientStart = exchange.sendingAfterMs === undefined ? exchange.start : m.start - exchange.sendingAfterMs;
      const clientEnd = clientStart + (exchange.end - exchange.start);
      if (process.env.BENCH_MARKS) console.log('    marks', JSON.stringify(Object.fromEntries(Object.entries({ ...m, clientEnd }).map(([k, v]) => [k, Math.round(v - clientStart)]))));
      const timed = m.bodyEnd !== undefined && m.jobStart !== undefined && m.got !== undefined && m.done !== undefined && m.returned !== undefined;
      const phases = timed
        ? {
            receive: m.bodyEnd! - clientStart,
            decode: m.jobStart! - m.bodyEnd!,
            'hand-off': m.got! - m.jobStart!,
            run: m.done! - m.got!,
            'hand-back': m.returned! - m.done!,
            write: clientEnd - m.returned!,
          }
        : null;
      return { phases, jobPid, jobGrowthMb };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return null;
}

interface Exchange {
  status: number;
  outBytes: number;
  /** The answer's first bytes (an Error body when the status is not 200). */
  head: Buffer;
  /** Epoch milliseconds of the request's first byte sent and of the answer's last byte received. */
  start: number;
  end: number;
  /**
   * When the client began to send the request, from its start (curl's `time_pretransfer`). curl's times are
   * its own, and this process hears of its end only once it has exited: start and end above then come late by
   * that, and a small upload's receive phase read as -1 to -7 ms. With this, the phases place the client's
   * start by the server's first mark instead (phasesOf).
   */
  sendingAfterMs?: number;
}

export const HAS_CURL = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;

/** Where curl writes answers: memory (tmpfs), since the disk's cost is the client's (28 MB: ~90 ms to disk here, ~30 to tmpfs). */
const ANSWERS = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

/**
 * The request through curl, as a user would send it, the answer written to a file: the time is curl's own
 * (`time_total`, its start-up left out). Node's own client costs the run far more than the server does on
 * large answers (about 50 ms more for 28 MB on this machine), so it is used only where curl is missing
 * (or with BENCH_HTTP_CLIENT=node).
 */
function curlExchange(url: string, body: HttpBody): Promise<Exchange> {
  const out = join(ANSWERS, `bench-answer-${process.pid}`);
  return new Promise((resolve, reject) => {
    const args = ['-s', '-o', out, '-w', '%{http_code} %{size_download} %{time_pretransfer} %{time_total}', '-X', 'POST', '-H', `Content-Type: ${body.contentType}`, '-H', 'Expect:', '--data-binary', `@${body.path}`, url];
    const child = spawn('curl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (b: Buffer) => (text += b));
    child.on('error', reject);
    child.on('close', (code) => {
      const end = epochNow();
      const [status, size, pretransfer, total] = text.trim().split(' ').map(Number);
      if (code !== 0 || !Number.isFinite(total)) return reject(new Error(`curl exit ${code}: ${text}`));
      const head = Buffer.alloc(Math.min(size, 65536));
      const fd = openSync(out, 'r');
      readSync(fd, head, 0, head.length, 0);
      closeSync(fd);
      rmSync(out, { force: true });
      resolve({ status, outBytes: size, head, start: end - total * 1000, end, sendingAfterMs: pretransfer * 1000 });
    });
  });
}

function nodeExchange(url: string, body: HttpBody): Promise<Exchange> {
  const start = epochNow();
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': body.contentType, 'content-length': body.bytes.length } }, (res) => {
      let n = 0;
      const kept: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        if (n < 65536) kept.push(chunk);
        n += chunk.length;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, outBytes: n, head: Buffer.concat(kept), start, end: epochNow() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body.bytes);
  });
}

/** (c) One POST with download=true, timed from the first byte sent to the last byte received. */
export async function runServiceHttp(service: HttpService, spec: ServiceSpec, body: HttpBody): Promise<HttpRun> {
  // The server and its job processes (not esbuild's service, which tsx starts as another child).
  const pids = [service.pid, ...jobPids(service.pid)];
  const before = new Map(pids.map((pid) => [pid, resetPeak(pid) ? (procMemory(pid)?.rssMb ?? null) : null]));
  const since = epochNow();
  const url = `${service.url}/api/v1/tools/${spec.tool}/run?download=true`;
  // A job process may be replaced once its job is answered (process-pool.ts), before this request ends: its
  // peak is read as the request goes, and the last reading stands for it once it is gone.
  const seen = new Map<number, number>();
  const watch = setInterval(() => {
    for (const pid of pids.slice(1)) {
      const m = procMemory(pid);
      if (m) seen.set(pid, m.hwmMb);
    }
  }, 25);
  let exchange: Exchange;
  try {
    exchange = await (HAS_CURL && process.env.BENCH_HTTP_CLIENT !== 'node' ? curlExchange(url, body) : nodeExchange(url, body));
  } finally {
    clearInterval(watch);
  }
  const { status, outBytes, head, start, end } = exchange;
  const ms = end - start;
  const growth = (pid: number) => {
    const base = before.get(pid);
    const hwm = procMemory(pid)?.hwmMb ?? seen.get(pid);
    return base === null || base === undefined || hwm === undefined ? null : Math.max(0, hwm - base);
  };
  const serverGrowthMb = growth(service.pid);
  // A process started during the request: counted from the least a loaded job process held before it, as a
  // process that has just loaded holds about that much (what the job's own process grew by comes from the probe).
  const loaded = Math.min(...pids.slice(1).map((pid) => before.get(pid) ?? Infinity));
  for (const pid of jobPids(service.pid)) {
    if (before.has(pid) || !Number.isFinite(loaded)) continue;
    before.set(pid, loaded);
    pids.push(pid);
  }
  const probed = service.phasesFile && status === 200 ? await phasesOf(service.phasesFile, spec.tool, since, exchange) : null;
  const phases = probed?.phases ?? null;
  const sum = (ps: number[]) => {
    const gs = ps.map(growth);
    return gs.some((g) => g === null) || gs.length === 0 ? null : gs.reduce((a, b) => a! + b!, 0);
  };
  const ran = probed?.jobPid !== undefined && probed.jobGrowthMb !== undefined;
  const jobGrowthMb = ran ? probed.jobGrowthMb! : sum(pids.slice(1));
  const others = pids.slice(1).filter((pid) => pid !== probed?.jobPid);
  const otherJobsGrowthMb = ran ? (others.length ? sum(others) : 0) : null;
  const mem = procMemory(service.pid);
  const serverPeakMb = before.get(service.pid) !== null && mem ? mem.hwmMb : null;
  if (status !== 200) {
    let code = `http ${status}`;
    try {
      code = (JSON.parse(head.toString()) as { error: string }).error;
    } catch {
      /* not an Error body */
    }
    return { ok: false, ms, status, code, outBytes: 0, serverPeakMb, serverGrowthMb, jobGrowthMb, otherJobsGrowthMb, jobPid: probed?.jobPid ?? null, phases };
  }
  return { ok: true, ms, status: 200, outBytes, serverPeakMb, serverGrowthMb, jobGrowthMb, otherJobsGrowthMb, jobPid: probed?.jobPid ?? null, phases };
}

export function readInputs(paths: string[]): Array<{ path: string; bytes: Uint8Array }> {
  return paths.map((path) => ({ path, bytes: new Uint8Array(readFileSync(path)) }));
}

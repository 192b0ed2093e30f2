// The service's side of a task, three ways: (a) in this process through the kernel's `execute`, as a worker
// runs it; (b) the same in a fresh child process per run, for a clean peak RSS; (c) over HTTP against the
// real server (`mcp/main.ts` as a child), multipart with download=true, timing the whole request.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolLimits } from '../tools/core/config.ts';
import { ToolError } from '../tools/core/errors.ts';
import { execute, type RunResult } from '../tools/core/execute.ts';
import type { InputFile } from '../tools/core/files.ts';
import { JOB_YOUNG_GENERATION_MB } from '../tools/core/jobs.ts';
import { getTool } from '../tools/core/registry.ts';
import { optionsSchema, parseOptions } from '../tools/core/schema.ts';
import { procMemory, resetPeak } from './measure.ts';

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
    // The same young generation as a job worker's (a third of it is one semi-space), so the peak is the service's.
    const semiSpace = `--max-semi-space-size=${JOB_YOUNG_GENERATION_MB / 3}`;
    const child = spawn(process.execPath, [semiSpace, '--import', 'tsx', join(ROOT, 'bench', 'one-run.ts'), JSON.stringify({ ...spec, files: paths, fields })], {
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
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** Starts a Node program as a child on a free loopback port and waits for `readyPath` to answer 200. */
export async function startChild(args: string[], env: Record<string, string>, readyPath: string): Promise<HttpService & { child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (b: Buffer) => (err = (err + b).slice(-2000)));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited: ${err}`);
    try {
      if ((await fetch(url + readyPath)).ok) break;
    } catch {
      /* not listening yet */
    }
    if (i > 300) throw new Error(`${args.join(' ')} did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    child,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('close', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

/**
 * The real service (`npm start`'s entry, or another entry built on the same app) with a quota and input bound
 * that never limit the benchmark.
 */
export function startService(env: Record<string, string>, entry = join(ROOT, 'mcp', 'main.ts')): Promise<HttpService> {
  return startChild(['--import', 'tsx', entry], {
    ANON_RUNS_PER_HOUR: '1000000000',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'bench-data-')),
    ...env,
  }, '/health');
}

export interface HttpRun {
  ok: boolean;
  ms: number;
  status: number;
  code?: string;
  outBytes: number;
  /** Peak RSS of the server process during this request (its VmHWM, reset before the request). */
  serverPeakMb: number | null;
}

/** (c) One multipart POST with download=true, timed from the first byte sent to the last byte received. */
export async function runServiceHttp(service: HttpService, spec: ServiceSpec, files: Array<{ path: string; bytes: Uint8Array }>, field: 'file' | 'files', fields?: (string | undefined)[]): Promise<HttpRun> {
  const form = new FormData();
  files.forEach((f, i) => form.append(fields?.[i] ?? field, new Blob([f.bytes]), basename(f.path)));
  for (const [k, v] of Object.entries(spec.options)) form.append(k, String(v));
  const canReset = resetPeak(service.pid);
  const t0 = performance.now();
  const res = await fetch(`${service.url}/api/v1/tools/${spec.tool}/run?download=true`, { method: 'POST', body: form });
  const body = new Uint8Array(await res.arrayBuffer());
  const ms = performance.now() - t0;
  const mem = procMemory(service.pid);
  const serverPeakMb = canReset && mem ? mem.hwmMb : null;
  if (res.status !== 200) {
    let code = `http ${res.status}`;
    try {
      code = (JSON.parse(Buffer.from(body).toString()) as { error: string }).error;
    } catch {
      /* not an Error body */
    }
    return { ok: false, ms, status: res.status, code, outBytes: 0, serverPeakMb };
  }
  return { ok: true, ms, status: 200, outBytes: body.length, serverPeakMb };
}

export function readInputs(paths: string[]): Array<{ path: string; bytes: Uint8Array }> {
  return paths.map((path) => ({ path, bytes: new Uint8Array(readFileSync(path)) }));
}

// Timing and memory of child processes, and the small statistics the report needs.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const GNU_TIME = '/usr/bin/time';
export const HAS_GNU_TIME = existsSync(GNU_TIME);
export const MB = 1024 * 1024;

/** A whole number of 0 or more from the environment variable `name`, else `fallback`. */
export function envInt(name: string, fallback: number): number {
  const n = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number`);
  return n;
}

/** Node or V8 flags for a server from the environment variable `name`, separated by spaces. */
export function envFlags(name: string): string[] {
  return (process.env[name] ?? '').split(' ').filter(Boolean);
}

/** The nearest-rank p-th percentile of numbers sorted ascending (NaN for none). */
export const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN);

export function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export interface ProcessRun {
  ok: boolean;
  /** Wall time of the whole process, start-up included. */
  ms: number;
  /** Peak resident memory (GNU time's %M: the largest process of the command, not the sum of a pipeline). */
  peakRssMb: number | null;
  /** The end of stderr, when the command failed. */
  error?: string;
  stdout: string;
}

/**
 * Runs a shell command as a child process and returns its wall time and peak RSS. The peak comes from GNU
 * time (`-f %M`) when /usr/bin/time exists (Debian package `time`); otherwise it is left null.
 */
export function timeCommand(command: string, o: { env?: Record<string, string>; timeoutMs: number; cwd?: string; rssFile: string }): Promise<ProcessRun> {
  const args = HAS_GNU_TIME ? [GNU_TIME, '-f', '%M', '-o', o.rssFile, 'sh', '-c', command] : ['sh', '-c', command];
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(args[0], args.slice(1), { cwd: o.cwd, env: { ...process.env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-4000)));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL'); // the whole group: sh, its pipeline, soffice.bin
      } catch {
        /* already gone */
      }
    }, o.timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - t0;
      let peakRssMb: number | null = null;
      if (HAS_GNU_TIME && existsSync(o.rssFile)) {
        const kb = Number(readFileSync(o.rssFile, 'utf8').trim().split('\n').pop());
        if (Number.isFinite(kb) && kb > 0) peakRssMb = kb / 1024;
        rmSync(o.rssFile, { force: true });
      }
      const ok = code === 0 && !timedOut;
      const error = timedOut ? `timed out after ${Math.round(o.timeoutMs / 1000)} s` : ok ? undefined : `exit ${code ?? signal}: ${lastLines(err)}`;
      resolve({ ok, ms, peakRssMb, error, stdout: Buffer.concat(out).toString() });
    });
  });
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' | ').slice(0, 300);
}

/** A fresh, empty folder. */
export function freshDir(dir: string): string {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Files under a folder (recursively) and their total size. */
export function dirOutput(dir: string): { files: number; bytes: number; paths: string[] } {
  let files = 0;
  let bytes = 0;
  const paths: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        files++;
        bytes += statSync(p).size;
        paths.push(p);
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return { files, bytes, paths };
}

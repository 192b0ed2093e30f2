// Runs the `spreadsheet-tools` command as a person does: a child process of cli/bin.mjs, with a bound on its
// time (the process is killed past it, so a hang fails the test instead of blocking the suite).
import { spawn } from 'node:child_process';

export const BIN = new URL('../../cli/bin.mjs', import.meta.url).pathname;

export interface CliResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * The environment of a person's shell, in Spanish unless told. NODE_TEST_CONTEXT stays: with it a missing
 * locale text throws (locales/index.ts) instead of showing its key.
 */
export function personEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _opts, ...env } = process.env;
  return { ...env, LANG: 'es_ES.UTF-8', LC_ALL: '', LC_MESSAGES: '', ...extra };
}

export function runCli(args: string[], o: { cwd: string; env?: Record<string, string>; timeoutMs?: number; command?: string[] }): Promise<CliResult> {
  const [cmd, ...pre] = o.command ?? [process.execPath, BIN];
  const child = spawn(cmd, [...pre, ...args], { cwd: o.cwd, env: personEnv(o.env), stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  let err = '';
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 180_000);
  return new Promise((resolve, reject) => {
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr: err });
    });
  });
}

/** Runs `jobs` at most `width` at a time (the machine has two cores), in order of start. */
export async function pooled<T>(jobs: Array<() => Promise<T>>, width = 2): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, jobs.length) }, async () => {
      while (next < jobs.length) {
        const i = next++;
        results[i] = await jobs[i]();
      }
    }),
  );
  return results;
}

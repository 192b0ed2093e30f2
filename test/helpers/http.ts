// Starts the real HTTP app (workers, quota, keys) on a free loopback port for contract and limits tests.
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../mcp/app.ts';
import { parseConfig } from '../../tools/core/config.ts';
import { createKernel, type Kernel, type KernelOptions } from '../../tools/core/kernel.ts';

export interface TestServer {
  url: string;
  kernel: Kernel;
  close(): Promise<void>;
}

/**
 * Config from env-style overrides; DATA_DIR defaults to a fresh temporary folder, removed by close() (a DATA_DIR
 * given in `env` is the caller's and stays), quota to plenty.
 */
export async function startServer(env: Record<string, string> = {}, options: KernelOptions = {}): Promise<TestServer> {
  const ownDir = env.DATA_DIR === undefined ? mkdtempSync(join(tmpdir(), 'st-data-')) : undefined;
  const config = parseConfig({ ANON_RUNS_PER_HOUR: '100000', DATA_DIR: ownDir, ...env });
  const kernel = createKernel(config, options);
  const server = createApp(kernel).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    kernel,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await kernel.close(0);
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    },
  };
}

/** A JSON file object for requests. */
export function fileObject(name: string, content: string | Uint8Array) {
  return { name, contentBase64: Buffer.from(content).toString('base64') };
}

/** POST JSON to a tool's run endpoint. */
export function postRun(base: string, tool: string, body: unknown, init: { query?: string; headers?: Record<string, string> } = {}) {
  return fetch(`${base}/api/v1/tools/${tool}/run${init.query ? `?${init.query}` : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: JSON.stringify(body),
  });
}

/** POST a multipart form (fetch builds the body and its boundary) to a tool's run endpoint. */
export function postForm(base: string, tool: string, form: FormData, init: { query?: string; headers?: Record<string, string> } = {}) {
  return fetch(`${base}/api/v1/tools/${tool}/run${init.query ? `?${init.query}` : ''}`, { method: 'POST', headers: init.headers, body: form });
}

/** A form with the given file parts (field `files` unless told) and text fields, in that order. */
export function formOf(files: Array<{ name: string; content: string | Uint8Array; field?: string }>, fields: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const f of files) form.append(f.field ?? 'files', new Blob([typeof f.content === 'string' ? f.content : Buffer.from(f.content)]), f.name);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

export interface RawAnswer {
  /** Everything the server sent before the connection ended (or the timeout). */
  text: string;
  status: number | null;
  /** The connection ended with an error (reset) rather than a clean close. */
  reset: boolean;
}

/**
 * Sends raw bytes over a fresh TCP connection and collects the answer: for bodies that fetch will not send
 * (truncated, lying Content-Length). `end: 'half'` closes only the write side after the bytes; `'destroy'`
 * drops the connection at once; `'keep'` leaves it open until the server answers and closes. `timeoutMs`, when
 * given, gives up waiting then (for a test that accepts no answer); without it nothing is timed here: a
 * server that never closes hangs the test, which the runner's timeout fails.
 */
export async function rawHttp(base: string, bytes: Uint8Array | string, o: { end?: 'keep' | 'half' | 'destroy'; timeoutMs?: number } = {}): Promise<RawAnswer> {
  const { createConnection } = await import('node:net');
  const url = new URL(base);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let reset = false;
    const socket = createConnection({ host: url.hostname, port: Number(url.port) });
    const done = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ text, status: m ? Number(m[1]) : null, reset });
    };
    const timer = o.timeoutMs === undefined ? undefined : setTimeout(() => socket.destroy(), o.timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => (reset = true));
    socket.on('close', done);
    socket.write(bytes, () => {
      if (o.end === 'half') socket.end();
      if (o.end === 'destroy') socket.destroy();
    });
  });
}

/** A response body as JSON, untyped: tests assert on its fields. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function bodyOf(res: Response): Promise<any> {
  return res.json();
}

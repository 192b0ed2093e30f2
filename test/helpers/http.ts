// Starts the real HTTP app (workers, quota, keys) on a free loopback port for contract and limits tests.
import { mkdtempSync } from 'node:fs';
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

/** Config from env-style overrides; DATA_DIR defaults to a fresh temporary folder, quota to plenty. */
export async function startServer(env: Record<string, string> = {}, options: KernelOptions = {}): Promise<TestServer> {
  const config = parseConfig({ ANON_RUNS_PER_HOUR: '100000', DATA_DIR: mkdtempSync(join(tmpdir(), 'st-data-')), ...env });
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

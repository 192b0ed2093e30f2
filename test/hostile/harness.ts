// The hostile suite's harness: the real app on the hardened HTTP server (mcp/http-server.ts), one input sent
// through every front door (JSON, multipart, MCP), and the checks each refusal must pass: stable code and
// status, a localized message with no stack, path or file content in it, one usage event per run, a server
// that answers a control request right after, and memory that comes back.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Server } from 'node:http';
import { createApp } from '../../mcp/app.ts';
import { listen, urlOf } from '../../mcp/http-server.ts';
import { parseConfig, type Config } from '../../tools/core/config.ts';
import { ERROR_STATUS, type ErrorCode } from '../../tools/core/errors.ts';
import type { InputFile } from '../../tools/core/files.ts';
import { createKernel, type Kernel, type KernelOptions } from '../../tools/core/kernel.ts';
import { getTool } from '../../tools/core/registry.ts';
import { settledHeap } from '../helpers/heap.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Json = any;

export interface HostileServer {
  url: string;
  kernel: Kernel;
  config: Config;
  server: Server;
  /** A connected MCP client (made on first use). */
  mcp(): Promise<Client>;
  close(): Promise<void>;
}

/**
 * The app as `npm start` serves it (workers unless told), quota out of the way, on a free loopback port. Its
 * DATA_DIR is a temporary folder removed by close(), unless `env` gives one (the caller's, which stays).
 */
export async function startHostile(env: Record<string, string> = {}, options: KernelOptions = {}): Promise<HostileServer> {
  const ownDir = env.DATA_DIR === undefined ? mkdtempSync(join(tmpdir(), 'st-hostile-')) : undefined;
  const config = parseConfig({ ANON_RUNS_PER_HOUR: '1000000', DATA_DIR: ownDir, PORT: '0', HOST: '127.0.0.1', ...env });
  const kernel = createKernel(config, options);
  const server = await listen(createApp(kernel), config);
  const url = urlOf(server);
  let client: Client | null = null;
  return {
    url,
    kernel,
    config,
    server,
    async mcp() {
      if (!client) {
        client = new Client({ name: 'hostile-test', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
      }
      return client;
    },
    async close() {
      await client?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await kernel.close(0);
      if (ownDir) rmSync(ownDir, { recursive: true, force: true });
    },
  };
}

export type Via = 'json' | 'multipart' | 'mcp';
export const EVERY_DOOR: Via[] = ['json', 'multipart', 'mcp'];

export interface Answer {
  via: Via;
  /** HTTP status; for MCP, the status of the error code (200 for a success). */
  status: number;
  /** The Error body or the RunResponse (MCP: structuredContent). */
  body: Json;
  /** MCP: the text block of the result. */
  text?: string;
  /** MCP: embedded resources (base64 blobs). */
  resources?: Array<{ uri: string; blob: string; mimeType?: string }>;
  ms: number;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/** Option values as multipart text fields: booleans and numbers in their plain form, lists as repeated fields. */
function appendField(form: FormData, name: string, value: unknown): void {
  if (Array.isArray(value)) for (const item of value) form.append(name, String(item));
  else form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
}

/** Sends one call through one front door. */
export async function send(srv: HostileServer, via: Via, toolId: string, files: InputFile[], options: Record<string, unknown> = {}, query = ''): Promise<Answer> {
  const field = getTool(toolId).input.kind;
  const fileArg = field === 'file' ? (files[0] ? { name: files[0].name, contentBase64: b64(files[0].bytes) } : undefined) : files.map((f) => ({ name: f.name, contentBase64: b64(f.bytes) }));
  const t0 = performance.now();
  const path = `${srv.url}/api/v1/tools/${toolId}/run${query ? `?${query}` : ''}`;
  if (via === 'json') {
    const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ [field]: fileArg, ...options }) });
    return { via, status: res.status, body: await res.json(), ms: performance.now() - t0 };
  }
  if (via === 'multipart') {
    const form = new FormData();
    for (const f of files) form.append(field, new Blob([Buffer.from(f.bytes)]), f.name);
    const more = (getTool(toolId).input.more ?? []).map((m) => m.field);
    for (const [k, v] of Object.entries(options)) {
      // A further file (lookup-file) given as a file object travels as a file part of its name.
      const file = v as { name?: unknown; contentBase64?: unknown } | null;
      if (more.includes(k) && file && typeof file.name === 'string' && typeof file.contentBase64 === 'string') form.append(k, new Blob([Buffer.from(file.contentBase64, 'base64')]), file.name);
      else appendField(form, k, v);
    }
    const res = await fetch(path, { method: 'POST', body: form });
    return { via, status: res.status, body: await res.json(), ms: performance.now() - t0 };
  }
  const client = await srv.mcp();
  const res = await client.callTool({ name: toolId, arguments: { [field]: fileArg, ...options } });
  const body = res.structuredContent as Json;
  const content = res.content as Array<{ type: string; text?: string; resource?: { uri: string; blob: string; mimeType?: string } }>;
  const status = res.isError ? ERROR_STATUS[body.error as ErrorCode] ?? 500 : 200;
  return {
    via,
    status,
    body,
    text: content.find((c) => c.type === 'text')?.text,
    resources: content.filter((c) => c.type === 'resource').map((c) => c.resource!),
    ms: performance.now() - t0,
  };
}

/** A `download=true` call over REST: the status and the raw body (the file, or the Error body). */
export async function sendDownload(srv: HostileServer, via: 'json' | 'multipart', toolId: string, files: InputFile[], options: Record<string, unknown> = {}) {
  const field = getTool(toolId).input.kind;
  const path = `${srv.url}/api/v1/tools/${toolId}/run?download=true`;
  let res: Response;
  if (via === 'json') {
    const fileArg = files.map((f) => ({ name: f.name, contentBase64: b64(f.bytes) }));
    res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ [field]: field === 'file' ? fileArg[0] : fileArg, ...options }) });
  } else {
    const form = new FormData();
    for (const f of files) form.append(field, new Blob([Buffer.from(f.bytes)]), f.name);
    const more = (getTool(toolId).input.more ?? []).map((m) => m.field);
    for (const [k, v] of Object.entries(options)) {
      // A further file (lookup-file) given as a file object travels as a file part of its name.
      const file = v as { name?: unknown; contentBase64?: unknown } | null;
      if (more.includes(k) && file && typeof file.name === 'string' && typeof file.contentBase64 === 'string') form.append(k, new Blob([Buffer.from(file.contentBase64, 'base64')]), file.name);
      else appendField(form, k, v);
    }
    res = await fetch(path, { method: 'POST', body: form });
  }
  return { via, status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** Total of the usage counter (`spreadsheet_tools_runs_total`) as /metrics shows it. */
export async function runsCounted(srv: HostileServer): Promise<number> {
  const text = await (await fetch(`${srv.url}/metrics`)).text();
  let total = 0;
  for (const m of text.matchAll(/^spreadsheet_tools_runs_total\{[^}]*\} (\d+(?:\.\d+)?)$/gm)) total += Number(m[1]);
  return total;
}

/**
 * Sends the same call through JSON, multipart and MCP, one after the other, and checks that each left
 * exactly one usage event (every door reaches the kernel) and that the server answers a control request
 * right after each.
 */
export async function sendEverywhere(srv: HostileServer, toolId: string, files: InputFile[], options: Record<string, unknown> = {}, doors: Via[] = EVERY_DOOR): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const via of doors) {
    const before = await runsCounted(srv);
    answers.push(await send(srv, via, toolId, files, options));
    assert.equal(await runsCounted(srv), before + 1, `${via}: exactly one usage event per run`);
    await assertServes(srv);
  }
  return answers;
}

/**
 * `/health` and a tiny valid run both answer 200. No time limit is asserted (a shared machine can be slow for
 * seconds at a time); a server that no longer answers hangs the test, which the runner's timeout fails.
 */
export async function assertServes(srv: HostileServer): Promise<void> {
  const health = await fetch(`${srv.url}/health`);
  assert.equal(health.status, 200);
  await health.arrayBuffer();
  const run = await fetch(`${srv.url}/api/v1/tools/split-rows/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ file: { name: 'control.csv', contentBase64: Buffer.from('a,b\n1,2\n').toString('base64') }, format: 'csv' }),
  });
  assert.equal(run.status, 200, 'the control run succeeds');
  await run.arrayBuffer();
}

type Tree = { [k: string]: string | Tree };
const ES: Tree = JSON.parse(readFileSync(new URL('../../locales/es.json', import.meta.url), 'utf8'));
const EN: Tree = JSON.parse(readFileSync(new URL('../../locales/en.json', import.meta.url), 'utf8'));

function templates(tree: Tree, paths: string[]): RegExp[] {
  const out: RegExp[] = [];
  const walk = (node: string | Tree | undefined) => {
    if (typeof node === 'string') {
      const parts = node.split(/\{\w+\}/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      out.push(new RegExp(`^${parts.join('[\\s\\S]*')}$`));
    } else if (node) Object.values(node).forEach(walk);
  };
  for (const p of paths) walk(p.split('.').reduce<string | Tree | undefined>((n, k) => (typeof n === 'object' ? n[k] : undefined), tree));
  return out;
}
const MESSAGE_PATHS = ['errors', 'error-details', 'rest.errors'];
const LOCALIZED = { es: templates(ES, MESSAGE_PATHS), en: templates(EN, MESSAGE_PATHS) };

/** What an error message must never carry: stack frames, paths of this machine, source names, raw errors. */
const INTERNALS = [/\n\s*at\s/, /\bat [\w.<>]+ \(/, /\/(work|tmp|home|root|usr|app|var)\//, /[A-Z]:\\/, /\.(ts|mjs|cjs|js):\d/, /node_modules/, /file:\/\//, /\b(TypeError|RangeError|SyntaxError|ReferenceError|Error):/, /ERR_[A-Z_]+/];

export interface Refusal {
  /** The option the error must name (`null` for none); left out, it is not checked. */
  option?: string | null;
  /** Language the message must be in. */
  lang?: 'es' | 'en';
  /** Strings taken from the file's content that must not be echoed. */
  secrets?: string[];
}

/** A short account of a body for assertion messages (no base64). */
export function describe(body: Json): string {
  if (body?.ok !== true) return JSON.stringify(body).slice(0, 400);
  const files = (body.files ?? []).map((f: Json) => `${f.name} (${f.size} B)`).join(', ');
  return `ok: ${files}; preview ${JSON.stringify(body.preview)?.slice(0, 200)}; messages ${JSON.stringify(body.messages).slice(0, 300)}`;
}

/** One answer is the clean refusal `code`: status, body shape, option, a localized text free of internals. */
export function assertRefusal(a: Answer, code: ErrorCode, o: Refusal = {}): void {
  const where = `${a.via}: ${describe(a.body)}`;
  assert.equal(a.status, ERROR_STATUS[code], where);
  assert.equal(a.body.ok, false, where);
  assert.equal(a.body.error, code, where);
  assert.deepEqual(Object.keys(a.body).sort(), ['error', 'message', 'ok', 'option'], where);
  if (o.option !== undefined) assert.equal(a.body.option, o.option, where);
  assertCleanMessage(a.body.message, o, where);
  if (a.via === 'mcp') assert.ok(a.text?.startsWith(`${code}: `), `${where}: the MCP text starts with the code`);
}

/** A message is one of the locale's texts (placeholders filled), carries no internals and echoes no secret. */
export function assertCleanMessage(message: unknown, o: Refusal = {}, where = ''): void {
  assert.equal(typeof message, 'string', where);
  const text = message as string;
  assert.ok(LOCALIZED[o.lang ?? 'es'].some((re) => re.test(text)), `${where}: not a localized text: ${text}`);
  assert.ok(!/\{\w+\}/.test(text), `${where}: unfilled placeholder in ${text}`);
  for (const re of INTERNALS) assert.ok(!re.test(text), `${where}: internals (${re}) in ${text}`);
  for (const s of o.secrets ?? []) assert.ok(!text.includes(s), `${where}: echoes file content ${JSON.stringify(s)}`);
  // eslint-disable-next-line no-control-regex
  assert.ok(!/[\u0000-\u0008\u000e-\u001f]/.test(text), `${where}: control characters in the message`);
}

/** Every answer is the clean refusal `code`. */
export function assertRefusedEverywhere(answers: Answer[], code: ErrorCode, o: Refusal = {}): void {
  for (const a of answers) assertRefusal(a, code, o);
}

/** Every answer is a success; returns them for further checks. */
export function assertOkEverywhere(answers: Answer[]): Answer[] {
  for (const a of answers) assert.equal(a.status, 200, `${a.via}: ${describe(a.body)}`);
  return answers;
}

/**
 * Memory checks around a file of hostile cases: the server's heap (requests are buffered on the main
 * thread) comes back after GC, and the whole process, worker heaps included, stays within the job bound.
 */
export function memoryWatch(maxJobs: number, jobMemoryMb: number) {
  const heap0 = settledHeap();
  const rss0 = process.memoryUsage().rss;
  return {
    assertReturned(heapSlackMb = 32) {
      const heap = settledHeap();
      const rss = process.memoryUsage().rss;
      const grown = (heap - heap0) / 2 ** 20;
      assert.ok(grown < heapSlackMb, `main heap grew by ${grown.toFixed(1)} MB after the hostile cases`);
      const rssGrown = (rss - rss0) / 2 ** 20;
      const bound = maxJobs * jobMemoryMb + 256;
      assert.ok(rssGrown < bound, `process memory grew by ${rssGrown.toFixed(0)} MB (bound ${bound} MB)`);
      return { heapGrownMb: grown, rssGrownMb: rssGrown };
    },
  };
}

/** Own property names and descriptors of Object.prototype, to compare before and after runs. */
export function prototypeSnapshot(): string {
  const names = Reflect.ownKeys(Object.prototype).map(String).sort();
  return JSON.stringify(names.map((n) => [n, typeof Object.getOwnPropertyDescriptor(Object.prototype, n)?.value]));
}

/** Object.prototype is as it was, and no stray property shows through a fresh object. */
export function assertPrototypeIntact(snapshot: string, where = ''): void {
  assert.equal(prototypeSnapshot(), snapshot, `Object.prototype changed ${where}`);
  const probe: Record<string, unknown> = {};
  for (const k of ['polluted', 'x', 'isAdmin', 'Hoja', 'Columna 1', '0']) assert.equal(probe[k], undefined, `({}).${k} is defined ${where}`);
  assert.equal(Object.getPrototypeOf(probe), Object.prototype);
}

/**
 * The server of one hostile test file: started before its tests (workers warmed by one small run, or by
 * `warm`), and after them its memory checked against the same MAX_JOBS and JOB_MEMORY_MB, then closed.
 */
export function hostileSuite(
  env: Record<string, string> & { MAX_JOBS: string; JOB_MEMORY_MB: string },
  warm: (srv: HostileServer) => Promise<unknown> = (srv) => sendEverywhere(srv, 'split-rows', [{ name: 'calentar.csv', bytes: new TextEncoder().encode('a\n1\n') }]),
): { srv: HostileServer } {
  const suite = {} as { srv: HostileServer };
  let memory: ReturnType<typeof memoryWatch> | undefined;
  before(async () => {
    suite.srv = await startHostile(env);
    await warm(suite.srv);
    memory = memoryWatch(Number(env.MAX_JOBS), Number(env.JOB_MEMORY_MB));
  });
  after(async () => {
    // The server is closed whatever happened before (a failed start, a failed check): an open one would
    // keep the test process alive after its last test.
    try {
      memory?.assertReturned();
    } finally {
      await suite.srv?.close();
    }
  });
  return suite;
}

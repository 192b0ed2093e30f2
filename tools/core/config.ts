// Configuration: environment variables only, parsed once at start-up into a frozen Config.
// The declaration below is also the source of the README configuration table.
import { availableParallelism } from 'node:os';
import * as v from 'valibot';
import { readCgroupLimits } from './cgroup.ts';

const int = (min: number, max: number) =>
  v.pipe(v.string(), v.trim(), v.regex(/^\d+$/, `a whole number from ${min} to ${max}`), v.transform(Number), v.minValue(min), v.maxValue(max));
const num = (min: number, max: number) =>
  v.pipe(v.string(), v.trim(), v.regex(/^\d+(\.\d+)?$/, `a number from ${min} to ${max}`), v.transform(Number), v.minValue(min), v.maxValue(max));
const list = v.pipe(v.string(), v.transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean)));
const text = v.pipe(v.string(), v.trim());
const redisUrl = v.pipe(
  v.string(),
  v.trim(),
  v.check((s) => s === '' || (URL.canParse(s) && ['redis:', 'rediss:'].includes(new URL(s).protocol)), 'a redis:// or rediss:// URL'),
);

/** An absolute http(s) URL with a host, optionally a path, and no credentials, query or fragment. */
function isBaseUrl(s: string): boolean {
  try {
    const url = new URL(s);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '' && !url.username && !url.password && !url.search && !url.hash && !s.includes('?') && !s.includes('#');
  } catch {
    return false;
  }
}

/** The base URL as URL writes it (lower-case host, no default port), without a trailing slash. */
function baseUrlOf(s: string): string {
  const url = new URL(s);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

interface Variable<S extends v.GenericSchema<string, unknown>> {
  schema: S;
  default: string;
  /** Shown in the README instead of the raw default when the default depends on the machine. */
  shownDefault?: string;
  /** A secret: a refused value is never echoed in the start-up error. */
  secret?: true;
  description: string;
}
const variable = <S extends v.GenericSchema<string, unknown>>(x: Variable<S>) => x;

export const CONFIG_VARIABLES = {
  PORT: variable({ schema: int(0, 65535), default: '3000', description: 'TCP port the service listens on.' }),
  HOST: variable({ schema: text, default: '127.0.0.1', description: 'Address to bind. The container image sets `0.0.0.0`.' }),
  TRUST_PROXY: variable({
    schema: text,
    default: 'false',
    description: "Express's trust-proxy setting (`false`, `true`, a hop count or a list of subnets). When on, the client address for quotas comes from `X-Forwarded-For`.",
  }),
  MAX_INPUT_MB: variable({ schema: num(0.001, 1024), default: '25', description: 'Decoded size of all input files of one call together, in MB. The request body limits follow from it.' }),
  MAX_INLINE_RESULT_MB: variable({ schema: num(0.001, 1024), default: '8', description: 'Largest result returned as base64 inside JSON; above it the call gets `result_too_large` and should use `download=true`.' }),
  MAX_RESULT_MB: variable({ schema: num(0.001, 4096), default: '100', description: 'Largest result returned with `download=true`, in MB.' }),
  MAX_JOBS: variable({
    schema: int(1, 1024),
    default: '',
    shownDefault: 'CPU cores, within the cgroup limits',
    description:
      "Runs executed at once; one more gets 503 `busy` with `Retry-After`. Unset, it is the number of cores the process may use (the cgroup's CPU quota, rounded up, when it has one), lowered until every run's `JOB_MEMORY_MB` fits the cgroup's memory limit beside the server's own share.",
  }),
  JOB_TIMEOUT_S: variable({ schema: num(0.001, 3600), default: '60', description: 'Time one run may take, in seconds; past it the run is stopped and answered 413 `too_complex`.' }),
  JOB_MEMORY_MB: variable({
    schema: int(16, 65536),
    default: '',
    shownDefault: '`1024`, less in a memory-limited cgroup',
    description:
      "Memory one run may use, in MB: its heap and its buffers alike (the resident memory its job process gains). Past it the run is stopped and answered 413 `too_complex`. Unset, it is 1024, or under a cgroup memory limit the limit's share per run (at most 1024) once the server's own share is set aside.",
  }),
  MAX_CELLS: variable({ schema: int(1, 1_000_000_000), default: '2000000', description: 'Cells one run may read (counted in the cells that exist, never in the range a file claims); past it the run is refused with 413 `too_complex` before the work is done.' }),
  // 50,000 rows of 10 columns take about 1 s and 70 MB over the runtime (tools/formats/pdf lays the table out
  // itself and writes each page out before drawing the next), well inside the default JOB_TIMEOUT_S and JOB_MEMORY_MB.
  PDF_MAX_ROWS: variable({ schema: int(1, 10_000_000), default: '50000', description: 'Rows `excel-to-pdf` lays out (a table printed in several column bands counts once per band); a longer table is refused with 413 `too_complex` before layout starts. 50,000 rows of 10 columns (1,471 pages) take 0.6–1.0 s and a fresh process peaks at 200 MB; raise `JOB_MEMORY_MB` and `JOB_TIMEOUT_S` with it.' }),
  ANON_RUNS_PER_HOUR: variable({ schema: int(0, 1_000_000_000), default: '30', description: 'Runs per hour per client address without an API key.' }),
  KEY_RUNS_PER_HOUR: variable({ schema: int(0, 1_000_000_000), default: '1000', description: 'Runs per hour for an API key that carries no quota of its own.' }),
  DATA_DIR: variable({
    schema: text,
    default: './data',
    description: 'Folder of the API key file (hashes only) when `REDIS_URL` is unset; processes sharing it see each other\'s changes. No uploaded file is ever written anywhere.',
  }),
  ADMIN_TOKEN: variable({
    schema: v.pipe(text, v.check((s) => s === '' || s.length >= 32, 'unset, or at least 32 characters (for example `openssl rand -base64 32`)')),
    default: '',
    secret: true,
    description: 'Enables `/admin` and `/admin/api` (key issuing) for callers presenting this token, which must be at least 32 characters; unset, they answer 404. Wrong tokens are logged (never the token) and limited to 10 per client address every 15 minutes.',
  }),
  REDIS_URL: variable({
    schema: redisUrl,
    default: '',
    description:
      'Shares hourly quotas and API keys between replicas through Redis (`redis://[user:password@]host:port[/db]`, `rediss://` for TLS). While Redis is unreachable each replica enforces the quotas alone and keeps accepting the keys it has seen, and says so once in its log.',
  }),
  PUBLIC_BASE_URL: variable({
    schema: v.pipe(text, v.check((s) => s === '' || isBaseUrl(s), 'an http or https URL with no query or fragment, such as https://tools.example.com'), v.transform((s) => (s ? baseUrlOf(s) : s))),
    default: '',
    description: 'The address clients reach the service at (for example `https://tools.example.com`), written into `/llms.txt`. Unset, it is taken from each request: its `Host`, and with `TRUST_PROXY` on, `X-Forwarded-Host` and `X-Forwarded-Proto` (http or https only).',
  }),
  ALLOWED_HOSTS: variable({ schema: list, default: '', shownDefault: 'loopback names when bound to loopback, else any', description: 'Comma list of accepted `Host` headers (DNS-rebinding protection).' }),
  ALLOWED_ORIGINS: variable({
    schema: list,
    default: '',
    shownDefault: "the service's own when bound to loopback, else any",
    description: 'Comma list of accepted `Origin` headers for browser callers; a request without `Origin` (any client that is not a browser) is never refused for it.',
  }),
  MAX_FILE_PARTS: variable({ schema: int(1, 1000), default: '20', description: 'File parts accepted in one multipart request.' }),
  SHUTDOWN_TIMEOUT_S: variable({ schema: num(0, 3600), default: '30', description: 'On SIGTERM, how long runs in flight may take to finish before the process exits.' }),
  // Node's own defaults let a slow client hold a socket for minutes: its timeouts are only checked every 30 s.
  HEADERS_TIMEOUT_S: variable({ schema: num(0.1, 600), default: '10', description: 'Time a client has to send the request line and headers; a slower one is cut off (408). Checked every second or faster.' }),
  REQUEST_TIMEOUT_S: variable({
    schema: num(0.1, 3600),
    default: '120',
    description: 'Time a client has to send the whole request, body included (a full 25 MB upload in base64 needs about 2.5 Mbit/s); a client that stalls is cut off (408). Not a bound on the run itself.',
  }),
  KEEP_ALIVE_TIMEOUT_S: variable({ schema: num(0.1, 600), default: '5', description: 'How long an idle keep-alive connection stays open between requests.' }),
} as const;

type Vars = typeof CONFIG_VARIABLES;
export type Config = Readonly<{ [K in keyof Vars]: v.InferOutput<Vars[K]['schema']> }>;

/** What the process may use: cores it can be scheduled on and its cgroup's limits. */
export interface Machine {
  cpus: number;
  /** Bytes, or null when no cgroup limit applies. */
  memoryBytes: number | null;
}

/** This process's machine: its cores (CPU affinity included) within its cgroup's CPU quota and memory limit. */
export function readMachine(fsRoot?: string): Machine {
  const cgroup = readCgroupLimits(fsRoot);
  const cores = availableParallelism();
  return { cpus: cgroup.cpus === null ? cores : Math.max(1, Math.min(cores, Math.ceil(cgroup.cpus))), memoryBytes: cgroup.memoryBytes };
}

/** The largest heap a run gets by default, and the least it gets before concurrency is lowered instead. */
export const JOB_MEMORY_DEFAULT_MB = 1024;
// Every benchmark task peaks under 200 MB of heap and 50,000 PDF rows under 300 MB: below 512 MB a run would
// start failing on ordinary files, so a small container runs fewer jobs rather than smaller ones.
const JOB_MEMORY_FLOOR_MB = 512;
const JOB_MEMORY_LEAST_MB = 64;
/** Memory the server needs beside its request bodies (code, Express, metrics): measured near 100 MB RSS idle. */
const SERVER_BASE_MB = 128;
/**
 * What a run holds besides the JOB_MEMORY_MB it may gain: its job process idle (Node, tsx and the tools loaded;
 * measured near 120 MB resident).
 */
const JOB_OVERHEAD_MB = 128;

/** Memory (MB) the server and `jobs` runs of `heapMb` each may hold at once, with request bodies of `bodyMb`. */
export function footprintMb(jobs: number, heapMb: number, bodyMb: number): number {
  return SERVER_BASE_MB + (jobs + 2) * bodyMb + jobs * (heapMb + JOB_OVERHEAD_MB);
}

/**
 * MAX_JOBS and JOB_MEMORY_MB for the variables left unset. Under a memory limit M (MB), the server keeps its
 * base and the request bodies admission lets in ((jobs + 2) bodies of `bodyMb`), and each run its heap plus
 * overhead: base + (jobs + 2) × body + jobs × (heap + overhead) ≤ M. Runs keep at least 512 MB while that
 * allows a job per CPU; below that, fewer jobs run with more heap each.
 */
export function jobDefaults(machine: Machine, bodyMb: number, set: { MAX_JOBS?: number; JOB_MEMORY_MB?: number }): { MAX_JOBS: number; JOB_MEMORY_MB: number } {
  const cpus = Math.max(1, machine.cpus);
  if (machine.memoryBytes === null) return { MAX_JOBS: set.MAX_JOBS ?? cpus, JOB_MEMORY_MB: set.JOB_MEMORY_MB ?? JOB_MEMORY_DEFAULT_MB };
  const room = machine.memoryBytes / MB - SERVER_BASE_MB - 2 * bodyMb;
  const jobsFor = (heap: number) => Math.max(1, Math.min(cpus, Math.floor(room / (bodyMb + heap + JOB_OVERHEAD_MB))));
  const jobs = set.MAX_JOBS ?? jobsFor(set.JOB_MEMORY_MB ?? JOB_MEMORY_FLOOR_MB);
  const heap = set.JOB_MEMORY_MB ?? Math.max(JOB_MEMORY_LEAST_MB, Math.min(JOB_MEMORY_DEFAULT_MB, Math.floor(room / jobs - bodyMb - JOB_OVERHEAD_MB)));
  return { MAX_JOBS: jobs, JOB_MEMORY_MB: heap };
}

/**
 * Parses the environment; throws an Error naming the first bad variable and what it accepts. MAX_JOBS and
 * JOB_MEMORY_MB, when unset, come from `machine` (see jobDefaults).
 */
export function parseConfig(env: Record<string, string | undefined> = process.env, machine: Machine = readMachine()): Config {
  const out: Record<string, unknown> = {};
  const derived = new Set<string>();
  for (const [name, decl] of Object.entries(CONFIG_VARIABLES)) {
    const raw = env[name] ?? decl.default;
    if (raw === '' && (name === 'MAX_JOBS' || name === 'JOB_MEMORY_MB')) {
      derived.add(name);
      continue;
    }
    const res = v.safeParse(decl.schema as v.GenericSchema<string, unknown>, raw);
    if (!res.success) {
      const shown = 'secret' in decl ? ` (${raw.length} characters, not shown)` : `=${JSON.stringify(raw)}`;
      throw new Error(`Invalid ${name}${shown}: expected ${res.issues[0].message}`);
    }
    out[name] = res.output;
  }
  if ((out.REQUEST_TIMEOUT_S as number) < (out.HEADERS_TIMEOUT_S as number)) {
    throw new Error(`Invalid REQUEST_TIMEOUT_S=${out.REQUEST_TIMEOUT_S}: expected at least HEADERS_TIMEOUT_S (${out.HEADERS_TIMEOUT_S}), since the request includes its headers.`);
  }
  const given = (name: 'MAX_JOBS' | 'JOB_MEMORY_MB') => (derived.has(name) ? undefined : (out[name] as number));
  Object.assign(out, jobDefaults(machine, bodyLimitBytes(out as { MAX_INPUT_MB: number }) / MB, { MAX_JOBS: given('MAX_JOBS'), JOB_MEMORY_MB: given('JOB_MEMORY_MB') }));
  return Object.freeze(out) as Config;
}

export const MB = 1024 * 1024;

/** The bounds a tool itself applies while it works (the kernel applies the others around it). */
export interface ToolLimits {
  maxCells: number;
  pdfMaxRows: number;
  /** MB the run's results may take: MAX_RESULT_MB for a download, else MAX_INLINE_RESULT_MB. */
  maxResultMb?: number;
}

export function toolLimitsOf(config: Pick<Config, 'MAX_CELLS' | 'PDF_MAX_ROWS'> & Partial<Pick<Config, 'MAX_RESULT_MB' | 'MAX_INLINE_RESULT_MB'>>, download?: boolean): ToolLimits {
  const maxResultMb = download === undefined ? undefined : download ? config.MAX_RESULT_MB : config.MAX_INLINE_RESULT_MB;
  return maxResultMb === undefined ? { maxCells: config.MAX_CELLS, pdfMaxRows: config.PDF_MAX_ROWS } : { maxCells: config.MAX_CELLS, pdfMaxRows: config.PDF_MAX_ROWS, maxResultMb };
}

/** The defaults, for code that runs tools without a configuration (tool tests, the benchmark). */
export const DEFAULT_TOOL_LIMITS: ToolLimits = Object.freeze(toolLimitsOf({ MAX_CELLS: 2_000_000, PDF_MAX_ROWS: 50_000 }));

/** Largest request body accepted: the input bound in base64 (4/3) plus room for options and JSON framing. */
export function bodyLimitBytes(config: Pick<Config, 'MAX_INPUT_MB'>): number {
  return Math.ceil((config.MAX_INPUT_MB * MB * 4) / 3) + MB;
}

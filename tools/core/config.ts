// Configuration: environment variables only, parsed once at start-up into a frozen Config.
// The declaration below is also the source of the README configuration table.
import { availableParallelism } from 'node:os';
import * as v from 'valibot';

const int = (min: number, max: number) =>
  v.pipe(v.string(), v.trim(), v.regex(/^\d+$/, `a whole number from ${min} to ${max}`), v.transform(Number), v.minValue(min), v.maxValue(max));
const num = (min: number, max: number) =>
  v.pipe(v.string(), v.trim(), v.regex(/^\d+(\.\d+)?$/, `a number from ${min} to ${max}`), v.transform(Number), v.minValue(min), v.maxValue(max));
const list = v.pipe(v.string(), v.transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean)));
const text = v.pipe(v.string(), v.trim());

interface Variable<S extends v.GenericSchema<string, unknown>> {
  schema: S;
  default: string;
  /** Shown in the README instead of the raw default when the default depends on the machine. */
  shownDefault?: string;
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
  MAX_JOBS: variable({ schema: int(1, 1024), default: String(availableParallelism()), shownDefault: 'number of CPU cores', description: 'Runs executed at once; one more gets 503 `busy` with `Retry-After`.' }),
  JOB_TIMEOUT_S: variable({ schema: num(0.001, 3600), default: '60', description: 'Time one run may take, in seconds; past it the run is stopped and answered 413 `too_complex`.' }),
  JOB_MEMORY_MB: variable({ schema: int(16, 65536), default: '1024', description: 'Heap one run may use, in MB; past it the run is stopped and answered 413 `too_complex`.' }),
  MAX_CELLS: variable({ schema: int(1, 1_000_000_000), default: '2000000', description: 'Cells one run may read (counted in the cells that exist, never in the range a file claims); past it the run is refused with 413 `too_complex` before the work is done.' }),
  // 50,000 rows of 10 columns take about 2-4 s and 170 MB over the runtime (tools/formats/pdf lays the table out
  // itself and draws it into pdfmake's pages), well inside the default JOB_TIMEOUT_S and JOB_MEMORY_MB.
  PDF_MAX_ROWS: variable({ schema: int(1, 10_000_000), default: '50000', description: 'Rows `excel-to-pdf` lays out (a table printed in several column bands counts once per band); a longer table is refused with 413 `too_complex` before layout starts. 50,000 rows of 10 columns take 2–5 s and under 300 MB; raise `JOB_MEMORY_MB` and `JOB_TIMEOUT_S` with it.' }),
  ANON_RUNS_PER_HOUR: variable({ schema: int(0, 1_000_000_000), default: '30', description: 'Runs per hour per client address without an API key.' }),
  KEY_RUNS_PER_HOUR: variable({ schema: int(0, 1_000_000_000), default: '1000', description: 'Runs per hour for an API key that carries no quota of its own.' }),
  DATA_DIR: variable({ schema: text, default: './data', description: 'Folder of the API key file (hashes only). No uploaded file is ever written anywhere.' }),
  ADMIN_TOKEN: variable({ schema: text, default: '', description: 'Enables `/admin` and `/admin/api` (key issuing) for callers presenting this token; unset, they answer 404.' }),
  REDIS_URL: variable({ schema: text, default: '', description: 'Shares quotas and API keys between replicas through Redis. Not supported yet: setting it stops start-up.' }),
  ALLOWED_HOSTS: variable({ schema: list, default: '', shownDefault: 'loopback names when bound to loopback, else any', description: 'Comma list of accepted `Host` headers (DNS-rebinding protection).' }),
  ALLOWED_ORIGINS: variable({ schema: list, default: '', shownDefault: 'any', description: 'Comma list of accepted `Origin` headers for browser callers.' }),
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

/** Parses the environment; throws an Error naming the first bad variable and what it accepts. */
export function parseConfig(env: Record<string, string | undefined> = process.env): Config {
  const out: Record<string, unknown> = {};
  for (const [name, decl] of Object.entries(CONFIG_VARIABLES)) {
    const raw = env[name] ?? decl.default;
    const res = v.safeParse(decl.schema as v.GenericSchema<string, unknown>, raw);
    if (!res.success) throw new Error(`Invalid ${name}=${JSON.stringify(raw)}: expected ${res.issues[0].message}`);
    out[name] = res.output;
  }
  if ((out.REQUEST_TIMEOUT_S as number) < (out.HEADERS_TIMEOUT_S as number)) {
    throw new Error(`Invalid REQUEST_TIMEOUT_S=${out.REQUEST_TIMEOUT_S}: expected at least HEADERS_TIMEOUT_S (${out.HEADERS_TIMEOUT_S}), since the request includes its headers.`);
  }
  if (out.REDIS_URL) throw new Error('REDIS_URL is set, but the Redis store is not implemented yet: unset REDIS_URL to use the built-in store.');
  return Object.freeze(out) as Config;
}

export const MB = 1024 * 1024;

/** The bounds a tool itself applies while it works (the kernel applies the others around it). */
export interface ToolLimits {
  maxCells: number;
  pdfMaxRows: number;
}

export function toolLimitsOf(config: Pick<Config, 'MAX_CELLS' | 'PDF_MAX_ROWS'>): ToolLimits {
  return { maxCells: config.MAX_CELLS, pdfMaxRows: config.PDF_MAX_ROWS };
}

/** The defaults, for code that runs tools without a configuration (tool tests, the benchmark). */
export const DEFAULT_TOOL_LIMITS: ToolLimits = Object.freeze(toolLimitsOf({ MAX_CELLS: 2_000_000, PDF_MAX_ROWS: 50_000 }));

/** Largest request body accepted: the input bound in base64 (4/3) plus room for options and JSON framing. */
export function bodyLimitBytes(config: Pick<Config, 'MAX_INPUT_MB'>): number {
  return Math.ceil((config.MAX_INPUT_MB * MB * 4) / 3) + MB;
}

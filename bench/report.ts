// What a task's runs add up to, and the terminal table of the whole run.
import { median } from './measure.ts';
import { PHASES, type Phases } from './service.ts';

/** The two request bodies a run is measured with over HTTP, both with download=true. */
export const DOORS = ['multipart', 'json'] as const;
export type Door = (typeof DOORS)[number];

export interface HttpResult {
  runsMs: number[];
  medianMs: number | null;
  /** Peak RSS of the server process, and the most the server and the job's process each grew in any one request. */
  serverPeakMb: number | null;
  serverGrowthMb: number | null;
  jobGrowthMb: number | null;
  /**
   * The most the server and the job's process grew together in one request (their sum, run by run), of the
   * runs in a process that had run the tool before.
   */
  runGrowthMb: number | null;
  /** The same, of runs that were their job process's first of the tool (what loading the tool costs: once per process). */
  firstUseGrowthMb: number | null;
  /** Each run's phases, and their medians. */
  phases: Phases[];
  /** Each run's time less its run in the job process: the path around it. */
  aroundMs: number[];
  phaseMedians: Phases | null;
  error?: string;
}

/** Issue 19's bound on a run over HTTP: 1.3 × its in-process time plus 50 ms. */
export const httpBoundMs = (inProcessMs: number) => 1.3 * inProcessMs + 50;

export const emptyHttp = (): HttpResult => ({ runsMs: [], medianMs: null, serverPeakMb: null, serverGrowthMb: null, jobGrowthMb: null, runGrowthMb: null, firstUseGrowthMb: null, phases: [], aroundMs: [], phaseMedians: null });

export function summarizeHttp(h: HttpResult): void {
  h.medianMs = median(h.runsMs);
  h.phaseMedians = h.phases.length ? (Object.fromEntries(PHASES.map((p) => [p, median(h.phases.map((x) => x[p]))])) as Phases) : null;
}

/** The slower door's median: every door has to meet a target. */
export function slowerHttp(s: ServiceResult): number | null {
  const ms = DOORS.map((d) => s.http[d].medianMs);
  return ms.some((x) => x === null) ? null : Math.max(...(ms as number[]));
}

// Paired figures. This machine's speed changes by up to half within seconds (the host-speed line of the
// report), so medians of runs taken at different moments can differ by that much for the same code. Within a
// round, the service's in-process run and its HTTP runs go back to back, and its peers right after: each of
// those runs is compared with the others of its own round, and the figure is the median over rounds. A series
// stops at its first error, so its n-th run is always the n-th round's.

/** Each round's slower door. */
export function slowerPerRound(s: ServiceResult): number[] {
  const n = Math.min(...DOORS.map((d) => s.http[d].runsMs.length));
  return Array.from({ length: n }, (_, r) => Math.max(...DOORS.map((d) => s.http[d].runsMs[r])));
}

/** The median over rounds of f(a[r], b[r]), over the rounds both series have. */
function perRound(a: number[], b: number[], f: (x: number, y: number) => number): number | null {
  return median(Array.from({ length: Math.min(a.length, b.length) }, (_, r) => f(a[r], b[r])));
}

export const pairedRatio = (a: number[], b: number[]) => perRound(a, b, (x, y) => x / y);

/** The slower door over the in-process run of the same round (median over rounds), and whether the median
 * round kept within httpBoundMs of its own in-process run. */
export function httpOverIn(s: ServiceResult): { ratio: number; within: boolean } | null {
  const slower = slowerPerRound(s);
  const ratio = pairedRatio(slower, s.inProcess.runsMs);
  const margin = perRound(slower, s.inProcess.runsMs, (h, i) => h - httpBoundMs(i));
  return ratio === null || margin === null ? null : { ratio, within: margin <= 0 };
}

export interface PeerResult {
  name: string;
  same: boolean;
  note?: string;
  status: 'ran' | 'failed' | 'missing';
  missing?: string[];
  error?: string;
  runsMs: number[];
  medianMs: number | null;
  peakRssMb: number | null;
  outBytes: number;
  outFiles: number;
  pages?: number | null;
}

export interface ServiceResult {
  /** heapGrowthMb: heap + array buffers right after the run over before it, a lower bound of the job's
   * peak (nothing can sample the heap while synchronous work runs); the fresh-process RSS is the real peak. */
  inProcess: { runsMs: number[]; medianMs: number | null; heapGrowthMb: number | null; error?: string };
  /** Fresh process per run: job time, process wall time, peak RSS and its growth over the loaded runtime. */
  child: { runsMs: number[]; medianMs: number | null; wallMedianMs: number | null; peakRssMb: number | null; growthMb: number | null; error?: string };
  http: Record<Door, HttpResult>;
  outBytes: number;
  outFiles: number;
  pages?: number | null;
}

export interface TaskResult {
  task: string;
  tool: string;
  rows: number;
  inputs: Array<{ name: string; bytes: number }>;
  status: 'ran' | 'skipped';
  note?: string;
  service?: ServiceResult;
  peers: PeerResult[];
  /** The fastest peer doing the same job. */
  fastestPeer: { name: string; medianMs: number; peakRssMb: number | null } | null;
  /** service in-process median ÷ fastest peer median, and the same with the HTTP median. */
  ratio: number | null;
  ratioHttp: number | null;
  /** The same ratios run by run within each round (median over rounds): the figures the report shows. */
  ratioPaired: number | null;
  ratioHttpPaired: number | null;
  /** The slower door over the in-process run, round by round (httpOverIn). */
  httpOverIn: { ratio: number; within: boolean } | null;
  /** 4 × (input + output), the memory rule a run's peak is compared with. */
  boundMb: number | null;
}

export function summarizePeer(p: Omit<PeerResult, 'medianMs'>): PeerResult {
  return { ...p, medianMs: median(p.runsMs) };
}

/** The fastest same-job peer and the ratios against it. */
export function compare(service: ServiceResult, peers: PeerResult[]): Pick<TaskResult, 'fastestPeer' | 'ratio' | 'ratioHttp' | 'ratioPaired' | 'ratioHttpPaired' | 'httpOverIn'> {
  const overIn = httpOverIn(service);
  const same = peers.filter((p) => p.same && p.medianMs !== null).sort((a, b) => a.medianMs! - b.medianMs!);
  const best = same[0];
  if (!best) return { fastestPeer: null, ratio: null, ratioHttp: null, ratioPaired: null, ratioHttpPaired: null, httpOverIn: overIn };
  const ratio = (x: number | null) => (x === null ? null : x / best.medianMs!);
  return {
    fastestPeer: { name: best.name, medianMs: best.medianMs!, peakRssMb: best.peakRssMb },
    ratio: ratio(service.inProcess.medianMs),
    ratioHttp: ratio(slowerHttp(service)),
    ratioPaired: pairedRatio(service.inProcess.runsMs, best.runsMs),
    ratioHttpPaired: pairedRatio(slowerPerRound(service), best.runsMs),
    httpOverIn: overIn,
  };
}

const ms = (x: number | null | undefined) => (x === null || x === undefined ? '—' : x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`);
const mb = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${Math.round(x)}`);
const ratio = (x: number | null) => (x === null ? '—' : x.toFixed(2));

function peerText(p: PeerResult, runs: number): string {
  const tag = p.same ? '' : '*';
  if (p.status === 'missing') return `${p.name}${tag} (not installed)`;
  if (p.status === 'failed' && p.medianMs === null) return `${p.name}${tag} failed`;
  return `${p.name}${tag} ${ms(p.medianMs)}${p.pages ? ` ${p.pages} p.` : ''}${p.runsMs.length === 1 && runs > 1 ? ' (1 run)' : ''}`;
}

/** One row per task: the columns issue 5 asks for. */
export function table(results: TaskResult[], runs: number): string {
  const peerCell = (p: PeerResult) => peerText(p, runs);
  const head = ['task', 'rows', 'service', 'HTTP multipart', 'HTTP JSON', 'HTTP ÷ in', 'fastest peer', 'peer', 'ratio', 'ratio HTTP', 'RSS MB svc/peer', 'svc growth', 'HTTP growth', '4×(in+out)', 'every peer (median; * = not the same job)'];
  const rows = results.map((r) => {
    if (r.status === 'skipped' || !r.service) return [r.task, String(r.rows), 'skipped', '', '', '', '', '', '', '', '', '', '', '', r.note ?? ''];
    const s = r.service;
    // The huge tasks run only in fresh processes: their job time stands in, marked.
    const svc = s.inProcess.error ?? (s.inProcess.medianMs === null && s.child.medianMs !== null ? `${ms(s.child.medianMs)} (proc)` : ms(s.inProcess.medianMs));
    const http = (d: Door) => s.http[d].error ?? ms(s.http[d].medianMs);
    const within = s.child.growthMb !== null && r.boundMb !== null ? (s.child.growthMb <= r.boundMb ? ' ok' : ' over') : '';
    const overIn = r.httpOverIn ? `${r.httpOverIn.ratio.toFixed(2)}${r.httpOverIn.within ? ' ok' : ' over'}` : '—';
    const growths = DOORS.map((d) => s.http[d].runGrowthMb).filter((g) => g !== null);
    const httpGrowth = growths.length ? Math.max(...growths) : null;
    const httpWithin = httpGrowth !== null && r.boundMb !== null ? (httpGrowth <= r.boundMb ? ' ok' : ' over') : '';
    const firsts = DOORS.map((d) => s.http[d].firstUseGrowthMb).filter((g) => g !== null);
    const firstUse = firsts.length ? ` (first use ${mb(Math.max(...firsts))})` : '';
    return [
      r.task,
      String(r.rows),
      svc + (s.pages ? ` (${s.pages} p.)` : ''),
      http('multipart'),
      http('json'),
      overIn,
      r.fastestPeer?.name ?? '—',
      ms(r.fastestPeer?.medianMs),
      ratio(r.ratioPaired),
      ratio(r.ratioHttpPaired),
      `${mb(s.child.peakRssMb)} / ${mb(r.fastestPeer?.peakRssMb)}`,
      mb(s.child.growthMb) + within,
      mb(httpGrowth) + httpWithin + firstUse,
      mb(r.boundMb),
      r.peers.map(peerCell).join(', '),
    ];
  });
  return layout(head, rows, [0, 6, head.length - 1]);
}

function layout(head: string[], rows: string[][], leftAligned: number[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (leftAligned.includes(i) ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** Where the time of a run over HTTP goes, per task and door (medians of each phase), next to the in-process run. */
export function phaseTable(results: TaskResult[]): string {
  const head = ['task', 'door', 'in-process', ...PHASES, 'HTTP', 'around the run'];
  const rows: string[][] = [];
  for (const r of results) {
    const s = r.service;
    if (!s) continue;
    for (const d of DOORS) {
      const p = s.http[d].phaseMedians;
      if (!p) continue;
      const http = s.http[d].medianMs;
      const around = s.http[d].aroundMs.length ? median(s.http[d].aroundMs) : null;
      const inMs = s.inProcess.medianMs;
      // What the bound leaves to the path when the run takes as long as in-process.
      const verdict = around === null || !inMs ? '' : around <= httpBoundMs(inMs) - inMs ? ' ok' : ' over';
      rows.push([r.task, d, ms(inMs), ...PHASES.map((x) => ms(p[x])), ms(http), around === null ? '—' : ms(around) + verdict]);
    }
  }
  return layout(head, rows, [0, 1]);
}

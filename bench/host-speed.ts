// How much this machine's own speed varies: one fixed piece of integer arithmetic, timed over and over for a
// few seconds while nothing else of the bench runs. On a shared host the same loop may take half as long
// again from one second to the next, and every timing of the run carries that spread; the report prints it
// beside the figures so that a reader can weigh a difference between two medians against it. The loop runs in
// a process of its own: in the bench's process, after the first use of every tool, V8 left it about five times
// slower than in a fresh process, its thread on a CPU all along, so it measured its own code, not the host.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { processStats } from '../test/helpers/child-pids.ts';
import { median, percentile } from './measure.ts';

export interface HostSpeed {
  runs: number;
  minMs: number;
  medianMs: number;
  p90Ms: number;
  maxMs: number;
  /**
   * Shares of the probe's time the loop's thread spent on a CPU and waiting for one (Linux schedstat; null
   * elsewhere): a slow loop that ran all along was slowed in the CPU itself (the host, or the loop's code), one
   * that waited was crowded out by the processes listed in `others`.
   */
  onCpu: number | null;
  waiting: number | null;
  /** Other processes that used a tenth of a CPU or more during the probe: name, pid and CPU ms. */
  others: { name: string; pid: number; cpuMs: number }[];
}

/**
 * About 30 ms of int32 arithmetic on this machine. Math.imul keeps it int32 in every tier: with `h * 31` the
 * same loop took 36 ms in a fresh process and 7 in the bench's, once another tier had compiled it.
 */
function fixedWork(): number {
  let h = 0;
  for (let i = 0; i < 20_000_000; i++) h = (Math.imul(h, 31) + i) | 0;
  return h;
}

/** This thread's nanoseconds on a CPU and waiting on a run queue (Linux); null where unreadable. */
function schedstat(): [number, number] | null {
  try {
    const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ').map(Number);
    return Number.isFinite(run) && Number.isFinite(wait) ? [run, wait] : null;
  } catch {
    return null;
  }
}

/**
 * Runs the probe for `seconds` in a fresh process (see above) and returns its figures; null, with the error
 * on stderr, if that process fails: a run of the bench keeps its results without them.
 */
export function hostSpeed(seconds: number): HostSpeed | null {
  try {
    const out = execFileSync(process.execPath, ['--import', import.meta.resolve('tsx'), fileURLToPath(import.meta.url), String(seconds)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    return JSON.parse(out) as HostSpeed;
  } catch (err) {
    console.error('host-speed probe failed:', err);
    return null;
  }
}

function probe(seconds: number): HostSpeed {
  const times: number[] = [];
  const cpu0 = new Map(processStats().map((p) => [p.pid, p.cpuMs]));
  const sched0 = schedstat();
  const start = performance.now();
  const until = start + seconds * 1000;
  while (performance.now() < until || times.length < 5) {
    const t0 = performance.now();
    fixedWork();
    times.push(performance.now() - t0);
  }
  const wallNs = (performance.now() - start) * 1e6;
  const sched1 = schedstat();
  const others: HostSpeed['others'] = [];
  for (const { pid, name, cpuMs } of processStats()) {
    const used = cpuMs - (cpu0.get(pid) ?? 0);
    if (pid !== process.pid && used >= (wallNs / 1e6) * 0.1) others.push({ name, pid, cpuMs: used });
  }
  others.sort((a, b) => b.cpuMs - a.cpuMs);
  // The first runs are the loop's own warm-up (interpreter, then optimized code).
  const s = times.slice(Math.min(3, times.length - 1)).sort((a, b) => a - b);
  const share = (i: 0 | 1) => (sched0 && sched1 ? (sched1[i] - sched0[i]) / wallNs : null);
  return { runs: s.length, minMs: s[0], medianMs: median(s)!, p90Ms: percentile(s, 90), maxMs: s[s.length - 1], onCpu: share(0), waiting: share(1), others };
}

const pct = (x: number) => `${Math.round(x * 100)} %`;

export const hostSpeedText = (h: HostSpeed | null) =>
  h === null
    ? 'the fixed loop could not run (its error is above)'
    : `a fixed loop took ${h.minMs.toFixed(0)} ms at best, ${h.medianMs.toFixed(0)} median, ${h.p90Ms.toFixed(0)} at p90, ${h.maxMs.toFixed(0)} at worst (${h.runs} runs; worst ÷ best ${(h.maxMs / h.minMs).toFixed(2)})` +
      (h.onCpu === null || h.waiting === null ? '' : `; its thread was on a CPU ${pct(h.onCpu)} of the time and waited for one ${pct(h.waiting)}`) +
      (h.others.length ? `; other processes busy meanwhile: ${h.others.map((o) => `${o.name} (${o.pid}) ${Math.round(o.cpuMs)} ms`).join(', ')}` : '');

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.stdout.write(JSON.stringify(probe(Number(process.argv[2]))) + '\n');

// How much this machine's own speed varies: one fixed piece of integer arithmetic, timed over and over for a
// few seconds while nothing else of the bench runs. On a shared host the same loop may take half as long
// again from one second to the next, and every timing of the run carries that spread; the report prints it
// beside the figures so that a reader can weigh a difference between two medians against it.
import { median, percentile } from './measure.ts';

export interface HostSpeed {
  runs: number;
  minMs: number;
  medianMs: number;
  p90Ms: number;
  maxMs: number;
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

export function hostSpeed(seconds: number): HostSpeed {
  const times: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until || times.length < 5) {
    const t0 = performance.now();
    fixedWork();
    times.push(performance.now() - t0);
  }
  // The first runs are the loop's own warm-up (interpreter, then optimized code).
  const s = times.slice(Math.min(3, times.length - 1)).sort((a, b) => a - b);
  return { runs: s.length, minMs: s[0], medianMs: median(s)!, p90Ms: percentile(s, 90), maxMs: s[s.length - 1] };
}

export const hostSpeedText = (h: HostSpeed) =>
  `a fixed loop took ${h.minMs.toFixed(0)} ms at best, ${h.medianMs.toFixed(0)} median, ${h.p90Ms.toFixed(0)} at p90, ${h.maxMs.toFixed(0)} at worst (${h.runs} runs; worst ÷ best ${(h.maxMs / h.minMs).toFixed(2)})`;

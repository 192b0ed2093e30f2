// One anonymous usage event per run, kept only as Prometheus metrics: no content, no address, no key.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const SIZE_BANDS = ['<100KB', '100KB-1MB', '1MB-10MB', '>10MB'] as const;

export function sizeBandOf(bytes: number): (typeof SIZE_BANDS)[number] {
  if (bytes < 100 * 1024) return '<100KB';
  if (bytes < 1024 * 1024) return '100KB-1MB';
  if (bytes < 10 * 1024 * 1024) return '1MB-10MB';
  return '>10MB';
}

export interface UsageEvent {
  tool: string;
  durationMs: number;
  inputBytes: number;
  /** `ok` or the error code. */
  outcome: string;
}

export interface Usage {
  registry: Registry;
  record(event: UsageEvent): void;
}

export function createUsage(): Usage {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['tool', 'size_band', 'outcome'] as const;
  const runs = new Counter({ name: 'spreadsheet_tools_runs_total', help: 'Tool runs, one per call, by tool, input size band and outcome.', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'spreadsheet_tools_run_duration_seconds',
    help: 'Duration of tool runs in seconds.',
    labelNames,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  return {
    registry,
    record(e) {
      const labels = { tool: e.tool, size_band: sizeBandOf(e.inputBytes), outcome: e.outcome };
      runs.inc(labels);
      duration.observe(labels, e.durationMs / 1000);
    },
  };
}

// Early answers for a call, before its body is read. A body costs the main thread its reading, JSON parsing
// and base64 decoding, and its memory until the answer is sent; when the call cannot run anyway, that cost
// buys nothing, and under load it is what delays the runs that do get a slot.
// - A run is refused at once as `busy` when every job slot is taken, answered as invoke would answer it:
//   key first (`invalid_api_key`), then quota (`quota_exceeded`; otherwise its state for the RateLimit
//   headers, nothing used), then `busy`, with the one usage event of the call.
// - Bodies admitted and not yet answered hold at most (MAX_JOBS + 2) full request bodies: enough for every
//   slot to run while the next bodies arrive, and a bound on what concurrent uploads can hold in memory.
//   A body declares its size (Content-Length), or is counted as the largest one allowed. One client address
//   holds at most MAX_JOBS full bodies of that budget, so that a few slow uploads from one place cannot keep
//   everyone else out (REQUEST_TIMEOUT_S bounds how long any upload holds its share).
import { bodyLimitBytes } from './config.ts';
import { asToolError, type ErrorDetail, ToolError } from './errors.ts';
import { quotaSubjectOf, type Caller, type KernelDeps } from './invoke.ts';
import { BUSY_RETRY_AFTER_S } from './jobs.ts';
import { getTool } from './registry.ts';

export interface Admission {
  /** Bytes of request bodies admitted and not yet answered. */
  readonly inFlight: number;
  /** Admits a tool run's body; resolves with its release, or throws what invoke would answer now. */
  run(toolId: string, caller: Caller, declaredBytes: number | undefined): Promise<() => void>;
  /** Admits any other body (an MCP message) from `address` within the same budget; throws `busy` past it. */
  body(address: string, declaredBytes: number | undefined): () => void;
}

/**
 * A refusal made before any work, without the stack trace an Error captures (about 12 µs at a router's
 * depth, most of what a busy answer cost its thread): its place in the code is known by its code, and it is
 * never logged. A client that ignores Retry-After meets this at full speed while runs are in progress.
 */
function refusal(code: 'busy' | 'quota_exceeded', detail: ErrorDetail): ToolError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new ToolError(code, detail);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

export function createAdmission(deps: KernelDeps): Admission {
  const limit = bodyLimitBytes(deps.config);
  const budget = (deps.config.MAX_JOBS + 2) * limit;
  const share = deps.config.MAX_JOBS * limit;
  let inFlight = 0;
  const byAddress = new Map<string, number>();
  const claimOf = (declared: number | undefined) => (declared !== undefined && Number.isFinite(declared) && declared >= 0 ? Math.min(declared, limit) : limit);
  // One body always fits, whatever its size: the bounds are on concurrency, not on the size of a lone call.
  const fits = (address: string, claim: number) => {
    const mine = byAddress.get(address) ?? 0;
    return (inFlight === 0 || inFlight + claim <= budget) && (mine === 0 || mine + claim <= share);
  };
  const reserve = (address: string, claim: number) => {
    inFlight += claim;
    byAddress.set(address, (byAddress.get(address) ?? 0) + claim);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inFlight -= claim;
      const left = (byAddress.get(address) ?? claim) - claim;
      if (left > 0) byAddress.set(address, left);
      else byAddress.delete(address);
    };
  };
  const busy = (rate?: { limit: number; remaining: number; reset: number }) => refusal('busy', { retryAfter: BUSY_RETRY_AFTER_S, rate });

  return {
    get inFlight() {
      return inFlight;
    },
    async run(toolId, caller, declaredBytes) {
      const tool = getTool(toolId);
      const claim = claimOf(declaredBytes);
      if (deps.jobs.active < deps.config.MAX_JOBS && fits(caller.ip, claim)) return reserve(caller.ip, claim);
      const started = performance.now();
      let outcome = 'busy';
      try {
        const { subject, limit: perHour } = await quotaSubjectOf(deps, caller);
        const taken = await deps.quota.take(subject, perHour);
        const rate = { limit: taken.limit, remaining: taken.remaining, reset: taken.reset };
        if (!taken.allowed) throw refusal('quota_exceeded', { retryAfter: taken.reset, rate });
        // Only the state was wanted: the run is given back, as a busy refusal never counts.
        await deps.quota.giveBack(subject, perHour);
        throw busy({ ...rate, remaining: rate.remaining + 1 });
      } catch (err) {
        const e = asToolError(err);
        outcome = e.code;
        throw e;
      } finally {
        deps.usage.record({ tool: tool.id, durationMs: performance.now() - started, inputBytes: declaredBytes ?? 0, outcome });
      }
    },
    body(address, declaredBytes) {
      const claim = claimOf(declaredBytes);
      if (!fits(address, claim)) throw busy();
      return reserve(address, claim);
    },
  };
}

// Early answers for a call, before its body is read. A body costs the main thread its reading, JSON parsing
// and base64 decoding, and its memory until the answer is sent; when the call cannot run anyway, that cost
// buys nothing, and under load it is what delays the runs that do get a slot.
// - A run is opened (counted) before its body is read, as invoke would open it: key first
//   (`invalid_api_key`), then quota (`quota_exceeded`). So a body refused while it is read (malformed, too
//   large) counts like any run refused for its input, and a client past its quota, whatever it sends, is
//   refused before its body costs anything: a flood of bad bodies is bounded by the quota.
// - Then, once what the headers say is checked (as invoke checks the input before it asks for a slot), the
//   run is refused at once as `busy` when every job slot is taken, its run given back.
// - Bodies admitted and not yet answered hold at most (MAX_JOBS + 2) full request bodies: enough for every
//   slot to run while the next bodies arrive, and a bound on what concurrent uploads can hold in memory.
//   A body declares its size (Content-Length), or is counted as the largest one allowed. One client
//   (clientOf: an IPv6 /64 is one) holds at most MAX_JOBS full bodies of that budget, so that a few slow
//   uploads from one place cannot keep everyone else out (REQUEST_TIMEOUT_S bounds how long any upload holds
//   its share).
import { clientOf } from './client-address.ts';
import { bodyLimitBytes } from './config.ts';
import { ToolError, type RateInfo } from './errors.ts';
import { openCall, quotaSubjectOf, refusal, type Call, type Caller, type KernelDeps } from './invoke.ts';
import { BUSY_RETRY_AFTER_S } from './jobs.ts';
import { getTool } from './registry.ts';

export interface Admission {
  /** Bytes of request bodies admitted and not yet answered. */
  readonly inFlight: number;
  /** Opens a tool run before its body is read, as invoke would open it (key, quota); throws what invoke would answer. */
  open(toolId: string, caller: Caller, declaredBytes: number | undefined): Promise<Call>;
  /**
   * Admits the body of an opened run: resolves with its release, or ends the call as `busy` (its run given
   * back) and throws that refusal when every job slot is taken or the body does not fit the budget.
   */
  reserve(call: Call, caller: Caller, declaredBytes: number | undefined): Promise<() => void>;
  /** Admits any other body (an MCP message) from `address` within the same budget; throws `busy` past it. */
  body(address: string, declaredBytes: number | undefined): () => void;
  /**
   * The quota state of a caller without using it: null when a run would be allowed (or the key is not one,
   * which the call itself answers), else the state of a used-up quota.
   */
  exhausted(caller: Caller): Promise<RateInfo | null>;
  /** Counts a body that could not be read as a message (an MCP body) as one run of its caller, if it has one left. */
  unreadable(caller: Caller): Promise<void>;
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
  const busy = (rate?: RateInfo) => refusal('busy', { retryAfter: BUSY_RETRY_AFTER_S, rate });

  return {
    get inFlight() {
      return inFlight;
    },
    open(toolId, caller, declaredBytes) {
      return openCall(deps, getTool(toolId).id, caller, { inputBytes: declaredBytes ?? 0 });
    },
    async reserve(call, caller, declaredBytes) {
      const address = clientOf(caller.ip);
      const claim = claimOf(declaredBytes);
      if (deps.jobs.active < deps.config.MAX_JOBS && fits(address, claim)) return reserve(address, claim);
      throw busy(await call.end('busy', declaredBytes ?? 0));
    },
    async exhausted(caller) {
      try {
        const { subject, limit: perHour } = await quotaSubjectOf(deps, caller);
        const taken = await deps.quota.take(subject, perHour);
        if (!taken.allowed) return { limit: taken.limit, remaining: 0, reset: taken.reset };
        await deps.quota.giveBack(subject, perHour);
        return null;
      } catch (err) {
        if (err instanceof ToolError && err.code === 'invalid_api_key') return null;
        throw err;
      }
    },
    async unreadable(caller) {
      try {
        const { subject, limit: perHour } = await quotaSubjectOf(deps, caller);
        await deps.quota.take(subject, perHour);
      } catch (err) {
        if (!(err instanceof ToolError && err.code === 'invalid_api_key')) throw err;
      }
    },
    body(address, declaredBytes) {
      const claim = claimOf(declaredBytes);
      const client = clientOf(address);
      if (!fits(client, claim)) throw busy();
      return reserve(client, claim);
    },
  };
}

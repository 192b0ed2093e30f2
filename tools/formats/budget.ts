// The bytes one run's results may take (issue 13): writers count what they produce as they produce it and stop
// at the bound, so a run never holds more result than it could deliver. A 10 KB xlsx whose one 8 MB shared
// string filled 150 cells wrote CSV pieces outside the heap (Buffers) until the process held gigabytes; the
// bound was only checked on the finished result. What is counted is what is delivered: text as encoded, a ZIP
// entry as deflated. Several files of one run count together.
import { FormatError } from './errors.ts';
import type { FormatLimits } from './model.ts';

const MB = 1024 * 1024;

export class ResultBudget {
  used = 0;
  private readonly maxBytes: number;
  constructor(readonly maxMb: number) {
    this.maxBytes = Math.ceil(maxMb * MB);
  }

  /** Counts `bytes` more of result; past the bound, the run ends with `result-size`. */
  add(bytes: number): void {
    this.used += bytes;
    this.check(0);
  }

  /**
   * Ends the run when `pending` more bytes (not counted yet: text still being built, where its length in
   * characters is a lower bound of its bytes) would pass the bound.
   */
  check(pending: number): void {
    if (this.used + pending > this.maxBytes) throw new FormatError('result-size', `results past ${this.maxMb} MB`, { params: { max: this.maxMb } });
  }
}

const budgets = new WeakMap<object, ResultBudget>();

/** The run's budget (one per context: every writer of the run shares it), or null when the run sets none. */
export function resultBudget(ctx: { limits?: Partial<FormatLimits> } | null | undefined): ResultBudget | null {
  const max = ctx?.limits?.maxResultMb;
  if (ctx == null || max === undefined) return null;
  let b = budgets.get(ctx);
  if (!b) budgets.set(ctx, (b = new ResultBudget(max)));
  return b;
}

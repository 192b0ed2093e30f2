// Asserts a ToolError by its code and the parts of its detail a test cares about (assert.rejects would
// compare nested objects whole).
import assert from 'node:assert/strict';
import { mapFormatError } from '../../tools/core/format-errors.ts';

interface Detail {
  option?: string;
  params?: Record<string, unknown>;
}

/** Rejects with a ToolError of `code` whose `option` (when given) and listed `params` are as expected. */
export async function rejectsWith(p: Promise<unknown>, code: string, detail: Detail = {}): Promise<void> {
  await assert.rejects(p, (err: { code: string; detail: Detail }) => {
    assert.equal(err.code, code);
    if ('option' in detail) assert.equal(err.detail.option, detail.option);
    for (const [k, v] of Object.entries(detail.params ?? {})) assert.equal(err.detail.params?.[k], v, `params.${k}`);
    return true;
  });
}

/**
 * Asserts that `fn` throws a verdict of the format library that the kernel gives callers as `code` (and
 * `messageKey`, when listed): what a reader's or writer's error becomes, checked where it is thrown.
 */
export function throwsVerdict(fn: () => unknown, expected: { code?: string; messageKey?: string }, label?: string): void {
  assert.throws(
    () => {
      try {
        fn();
      } catch (err) {
        throw mapFormatError(err, 'file');
      }
    },
    (err: { code?: string; detail?: { messageKey?: string } }) => {
      if (expected.code !== undefined) assert.equal(err.code, expected.code, label);
      if (expected.messageKey !== undefined) assert.equal(err.detail?.messageKey, expected.messageKey, label);
      return true;
    },
    label,
  );
}

// Asserts a ToolError by its code and the parts of its detail a test cares about (assert.rejects would
// compare nested objects whole).
import assert from 'node:assert/strict';

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

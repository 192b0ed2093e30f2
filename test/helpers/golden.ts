// Golden files for text results: committed, read by a person before they were committed, compared byte for
// byte. UPDATE_GOLDEN=1 rewrites them; a missing one is written locally but fails in CI.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';

/** A matcher for the golden files of one tool, under test/golden/<tool>/. */
export function golden(tool: string): (name: string, content: Uint8Array | string) => void {
  const dir = new URL(`../golden/${tool}/`, import.meta.url);
  return (name, content) => {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    const file = new URL(name, dir);
    if (process.env.UPDATE_GOLDEN || (!existsSync(file) && !process.env.CI)) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(file, bytes);
      return;
    }
    assert.ok(existsSync(file), `missing golden file ${tool}/${name}: run UPDATE_GOLDEN=1, read it, and commit it`);
    const expected = readFileSync(file);
    assert.equal(bytes.toString('utf8'), expected.toString('utf8'), `${tool}/${name} differs from its golden file`);
    assert.ok(bytes.equals(expected), `${tool}/${name}: same text, different bytes`);
  };
}

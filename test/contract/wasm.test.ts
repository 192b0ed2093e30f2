// The WebAssembly modules are built from their text (scripts/build-wasm.ts): each committed .wasm must be what
// its .wat builds today. That each loads here is asserted beside the tests comparing it with the JavaScript
// it stands in for (test/formats/csv-records-wasm.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { build, MODULES, wasmOf } from '../../scripts/build-wasm.ts';

for (const wat of MODULES) {
  const name = (url: URL) => url.pathname.split('/').slice(-2).join('/');
  test(`${name(wasmOf(wat))} is what ${name(wat)} builds`, async () => {
    const built = await build(wat);
    assert.deepEqual(Buffer.from(built), readFileSync(wasmOf(wat)));
  });
}

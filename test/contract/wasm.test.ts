// The WebAssembly modules are built from their text (scripts/build-wasm.ts): each committed .wasm must be what
// its .wat builds today, and each must load here (WebAssembly with SIMD), or the tests comparing them with
// the JavaScript they stand in for would compare nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { build, MODULES } from '../../scripts/build-wasm.ts';
import { windowScanner } from '../../tools/formats/csv/records-wasm.ts';

for (const wat of MODULES) {
  const name = wat.pathname.split('/').slice(-2).join('/');
  test(`${name.replace(/\.wat$/, '.wasm')} is what ${name} builds`, async () => {
    const built = await build(wat);
    assert.deepEqual(Buffer.from(built), readFileSync(new URL(wat.href.replace(/\.wat$/, '.wasm'))));
  });
}

test('the modules load here', () => {
  assert.ok(windowScanner(0x2c), 'records.wasm did not load');
});

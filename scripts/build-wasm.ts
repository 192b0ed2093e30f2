// Builds the WebAssembly modules from their text (tools/formats/csv/records.wat → records.wasm) with wabt.
// test/contract/wasm.test.ts builds them in memory and compares them with the committed ones.
import { readFileSync, writeFileSync } from 'node:fs';
import wabt from 'wabt';

export const MODULES = [new URL('../tools/formats/csv/records.wat', import.meta.url)];

/** Where the module built from `wat` is committed: beside it. */
export const wasmOf = (wat: URL) => new URL(wat.href.replace(/\.wat$/, '.wasm'));

export async function build(wat: URL): Promise<Uint8Array> {
  const w = await wabt();
  const parsed = w.parseWat(wat.pathname, readFileSync(wat, 'utf8'), { simd: true });
  try {
    parsed.validate();
    return new Uint8Array(parsed.toBinary({}).buffer);
  } finally {
    parsed.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const wat of MODULES) writeFileSync(wasmOf(wat), await build(wat));
}

// Builds the WebAssembly modules from their text (tools/formats/csv/records.wat → records.wasm) with wabt.
// `--check` builds in memory and fails when a committed module differs from its text (the tests run it).
import { readFileSync, writeFileSync } from 'node:fs';
import wabt from 'wabt';

export const MODULES = [new URL('../tools/formats/csv/records.wat', import.meta.url)];

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
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const wat of MODULES) {
    const wasm = new URL(wat.href.replace(/\.wat$/, '.wasm'));
    const bytes = await build(wat);
    if (check) {
      if (!Buffer.from(bytes).equals(readFileSync(wasm))) {
        console.error(`${wasm.pathname} does not match ${wat.pathname}: npm run build:wasm`);
        stale++;
      }
    } else writeFileSync(wasm, bytes);
  }
  process.exit(stale ? 1 : 0);
}

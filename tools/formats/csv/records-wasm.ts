// The record scan of csv/records.ts over a window of text at a time, in records.wasm (records.wat): the same
// records, field offsets and flags as its own loop, which reads what the module leaves (a record longer than a
// window, a quote that never closes) and does all of it where WebAssembly's SIMD is missing.
import { readFileSync } from 'node:fs';
import { CR, LF, QUOTE } from './tokens.ts';

/** Int32 values per record: start, end, fields, flags, first field. */
export const RECORD_INTS = 5;

/** What one window gave: whole records from its start, and the field offsets they hold. */
export interface WindowScan {
  /** Records found (their values are `records[RECORD_INTS * j …]`, relative to the window's start). */
  count: number;
  /** Bytes those records took, line ends included: where the next window starts. */
  taken: number;
  /** Fields of those records, whose offsets are `offsets[0 … fields)`. */
  fields: number;
  /** Fields that are not empty. */
  used: number;
  records: Int32Array;
  offsets: Uint16Array;
}

/** The parts of the WebAssembly global used here (the project's types leave out the DOM library, which has them). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
};

export type WindowScanner = (b: Uint8Array, from: number, to: number, last: boolean, d: number) => WindowScan;

/** Where the module's memory holds what (records.wat's exported layout). */
type Layout = Record<'window' | 'head' | 'records_at' | 'fields_at', { value: number }>;

function load(): { scan: WindowScanner; window: number } | null {
  let exports: Layout & { mem: { buffer: ArrayBuffer }; records(len: number, last: number, d: number): number };
  try {
    const bytes = readFileSync(new URL('./records.wasm', import.meta.url));
    exports = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as typeof exports;
  } catch {
    // No WebAssembly, or no SIMD in it (V8 needs SSE4.1 on x86): the loop in records.ts does the work.
    return null;
  }
  const memory = exports.mem.buffer;
  const window = exports.window.value;
  const text = new Uint8Array(memory, 0, window);
  const head = new Int32Array(memory, exports.head.value, 3);
  const out: WindowScan = {
    count: 0,
    taken: 0,
    fields: 0,
    used: 0,
    records: new Int32Array(memory, exports.records_at.value, RECORD_INTS * window),
    offsets: new Uint16Array(memory, exports.fields_at.value, window + 1),
  };
  const scan: WindowScanner = (b, from, to, last, d) => {
    text.set(b.subarray(from, to));
    out.count = exports.records(to - from, last ? 1 : 0, d);
    out.taken = head[0];
    out.fields = head[1];
    out.used = head[2];
    return out;
  };
  return { scan, window };
}

const loaded = load();

/** Most bytes of text a window holds (0 where the module is not loaded). */
export const WINDOW = loaded?.window ?? 0;
const scanner = loaded?.scan ?? null;

/**
 * The module's scan for delimiter `d`, or null where it cannot be used: no SIMD, or a delimiter the module's
 * grammar would misread (a quote or line end, or one not a single byte in UTF-8: no detected delimiter is
 * any of them). Windows share one memory: a window's values are read before the next is scanned.
 */
export function windowScanner(d: number): WindowScanner | null {
  return d === QUOTE || d === CR || d === LF || d > 0x7f ? null : scanner;
}

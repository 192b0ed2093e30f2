// Synchronous streaming inflate on Node's own (native) zlib.
//
// Node offers zlib either on whole buffers (`inflateRawSync`: the whole part in memory at once) or as
// asynchronous streams; the workbook reader is synchronous and must not hold a whole sheet's XML. So this
// drives the native handle as Node's own *Sync functions do (lib/zlib.js, `processChunkSync`: `_handle.writeSync`
// and `_writeState`), but keeps the handle open between pieces and reuses one output buffer, which the caller
// reads before the next piece overwrites it. Measured on the 32 MB sheet XML of 100,000 rows × 10 columns in a
// fresh process: 55 ms and no resident growth, against 65–90 ms and +31 MB (+63 MB with zlib's default output
// pieces) for `inflateRawSync`, and 260–440 ms for fflate's streaming `Inflate`.
//
// These are Node internals, stable since Node 10 but not promised: `rawInflater()` checks them once on a known
// stream and returns null when they are missing or misbehave, and zip.ts then streams through fflate instead.
// Whatever inflates, zip.ts checks each entry's size and CRC-32 on the bytes that come out.
import * as zlib from 'node:zlib';

/** Bytes handed out at a time: a view of one reused buffer. */
const OUT_BYTES = 256 * 1024;

interface NativeHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
}

interface NodeZlib {
  _handle?: NativeHandle | null;
  _writeState?: Uint32Array;
  errored?: Error | null;
  on(event: 'error', listener: (err: Error) => void): unknown;
  close(): void;
}

export interface RawInflater {
  /**
   * Inflates the next piece of the stream (`last` for the final one). `onOut` gets the bytes as they come, in a
   * view that is valid only during the call, and the input bytes consumed so far; it may throw to stop.
   */
  push(input: Uint8Array, last: boolean, onOut: (chunk: Uint8Array, consumed: number) => void): void;
  /** The same, pulled: each chunk with the input consumed so far, valid until the next one is pulled. */
  outputs(input: Uint8Array, last: boolean): Generator<[Uint8Array, number]>;
  /** Frees the native stream; safe to call more than once. */
  close(): void;
}

class HandleInflater implements RawInflater {
  private readonly out = Buffer.allocUnsafeSlow(OUT_BYTES);
  private consumed = 0;
  private closed = false;

  constructor(
    private readonly z: NodeZlib,
    private readonly handle: NativeHandle,
    private readonly state: Uint32Array,
  ) {}

  push(input: Uint8Array, last: boolean, onOut: (chunk: Uint8Array, consumed: number) => void): void {
    for (const [chunk, consumed] of this.outputs(input, last)) onOut(chunk, consumed);
  }

  *outputs(input: Uint8Array, last: boolean): Generator<[Uint8Array, number]> {
    if (this.closed) throw new Error('inflate: stream closed');
    const flush = last ? zlib.constants.Z_FINISH : zlib.constants.Z_NO_FLUSH;
    let inOff = 0;
    let inLen = input.length;
    for (;;) {
      this.handle.writeSync(flush, input, inOff, inLen, this.out, 0, OUT_BYTES);
      // A corrupt or cut stream destroys the Node stream synchronously (its `error` event comes later).
      if (this.z.errored) throw this.z.errored;
      const availOut = this.state[0];
      const availIn = this.state[1];
      this.consumed += inLen - availIn;
      inOff += inLen - availIn;
      inLen = availIn;
      const have = OUT_BYTES - availOut;
      if (have > 0) yield [this.out.subarray(0, have), this.consumed];
      // Output space left over means zlib took all it could from this piece; a full buffer may have more to come.
      if (availOut !== 0) return;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.z.close();
  }
}

function handleInflater(): RawInflater | null {
  const z = new zlib.InflateRaw() as unknown as NodeZlib;
  // The stream's `error` event, emitted after a failure we have already thrown, must not become uncaught.
  z.on('error', () => {});
  const handle = z._handle;
  const state = z._writeState;
  if (!handle || typeof handle.writeSync !== 'function' || !(state instanceof Uint32Array) || state.length < 2) {
    z.close();
    return null;
  }
  return new HandleInflater(z, handle, state);
}

let works: boolean | undefined;

/** Whether the native handle inflates a known stream (in several pieces) to exactly its bytes. */
function selfTest(): boolean {
  try {
    // More than one output buffer's worth, so that the loop over a full buffer is exercised too.
    const text = Buffer.from('<row r="1"><c r="A1" t="s"><v>0</v></c></row>'.repeat(7_000));
    const packed = zlib.deflateRawSync(text, { level: 1 });
    const inflater = handleInflater();
    if (!inflater) return false;
    const parts: Buffer[] = [];
    try {
      const half = packed.length >> 1;
      inflater.push(packed.subarray(0, half), false, (c) => void parts.push(Buffer.from(c)));
      inflater.push(packed.subarray(half), true, (c) => void parts.push(Buffer.from(c)));
    } finally {
      inflater.close();
    }
    return Buffer.concat(parts).equals(text);
  } catch {
    return false;
  }
}

/** A streaming raw-deflate inflater on native zlib, or null where Node's internals do not allow it. */
export function rawInflater(): RawInflater | null {
  works ??= selfTest();
  return works ? handleInflater() : null;
}

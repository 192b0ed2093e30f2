// Which file buffers cross between the main thread and a job worker by transfer rather than by copy.
// A structured clone copies every byte twice (into the message, out of it): for a 25 MB upload or a 30 MB
// JSON result that is tens of milliseconds and a second copy in memory on both sides.
import { Piscina } from 'piscina';

/**
 * Only a buffer the view covers whole, and that is big enough for the copy to matter, is handed over: a
 * small Buffer may be a slice of Node's shared pool, and detaching that would break every other Buffer
 * cut from it. A buffer shared by two files is listed once (a repeated transfer is an error).
 */
export const TRANSFER_MIN_BYTES = 64 * 1024;

export function transferables(views: Iterable<Uint8Array>): ArrayBuffer[] {
  const list = new Set<ArrayBuffer>();
  for (const v of views) {
    const buf = v.buffer;
    if (buf instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === buf.byteLength && buf.byteLength >= TRANSFER_MIN_BYTES) list.add(buf);
  }
  return [...list];
}

/** A worker's reply that hands its result buffers over instead of copying them (piscina's movable protocol). */
export function movable<T extends object>(value: T, buffers: ArrayBuffer[]): T {
  if (buffers.length === 0) return value;
  return Piscina.move({ [Piscina.transferableSymbol]: buffers, [Piscina.valueSymbol]: value } as never) as T;
}

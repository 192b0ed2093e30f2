// Upload buffers this process lets go of as soon as a job process has them. A 25 MB upload would otherwise
// stay alive here, referenced by the request's handlers, until the run answers: the input held twice at once.

/**
 * Only a buffer the view covers whole (or that a body reader marked as the request's own), and that is big
 * enough for it to matter, is let go: a small Buffer may be a slice of Node's shared pool, and detaching that
 * would break every other Buffer cut from it. A buffer shared by two files is listed once.
 */
export const TRANSFER_MIN_BYTES = 64 * 1024;

/** Buffers a body reader made for one request and that hold nothing but its files (own()). */
const owned = new WeakSet<ArrayBuffer>();

/**
 * Marks a buffer as one request's own, holding its files and nothing any other code reads (the multipart
 * reader's buffer for all of a body's files, the JSON reader's body buffer with files decoded in it, a result
 * file as a job process sent it): such a buffer is let go even when the files are views of parts of it.
 */
export function own(buffer: ArrayBufferLike): void {
  // One too small to be let go is not listed: a small body's upload need not cost a WeakSet entry.
  if (buffer instanceof ArrayBuffer && buffer.byteLength >= TRANSFER_MIN_BYTES) owned.add(buffer);
}

/** Whether a view covers the whole of its buffer (a buffer of its own), of at least `min` bytes. */
const coversWhole = (v: Uint8Array, min: number) => v.buffer instanceof ArrayBuffer && v.buffer.byteLength >= min && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength;

export function transferables(views: Iterable<Uint8Array>): ArrayBuffer[] {
  const list = new Set<ArrayBuffer>();
  // own() lists no buffer under TRANSFER_MIN_BYTES.
  for (const v of views) if ((v.buffer instanceof ArrayBuffer && owned.has(v.buffer)) || coversWhole(v, TRANSFER_MIN_BYTES)) list.add(v.buffer as ArrayBuffer);
  return [...list];
}

/** ArrayBuffer.prototype.transfer (ES2024; the project's types stop at ES2023). */
type MovableBuffer = ArrayBuffer & { transfer(length: number): ArrayBuffer };

/**
 * Detaches the buffers `transferables` picks: every view of them reads as empty from then on (as after a
 * transfer to a worker). Each is moved into a buffer of no bytes, which frees its memory at once and takes
 * it off V8's count of memory outside the heap; handed to a clone instead (structuredClone), the memory
 * stayed counted until a collection swept the clone, and that count is what sets off the server's full
 * collections for external memory pressure.
 */
export function release(views: Iterable<Uint8Array>): void {
  detach(transferables(views));
}

/** Detaches buffers `transferables` picked (release() does both). */
export function detach(buffers: ArrayBuffer[]): void {
  for (const buffer of buffers) {
    try {
      (buffer as MovableBuffer).transfer(0);
    } catch {
      // Not detachable (a WebAssembly memory's buffer, should a tool's result be one): left to its owner.
    }
  }
}

/** release() for the buffers marked with own() only: a result from a job process, never one a tool may share. */
export function releaseOwned(views: Iterable<Uint8Array>): void {
  release([...views].filter((v) => v.buffer instanceof ArrayBuffer && owned.has(v.buffer)));
}

/** Chunks smaller than this are not worth a detach (and a Buffer under 4 KB may be a slice of Node's pool). */
const CHUNK_MIN_BYTES = 16 * 1024;

/**
 * A request body's chunk, once its bytes are copied where they belong. Node's HTTP parser hands each chunk
 * over as a copy in a buffer of its own; left to the next collection, a 33 MB upload's chunks were as much
 * again beside the body's own buffer (V8 counts them as memory outside the heap until swept). Only a chunk
 * its view covers whole is let go, and only by a reader that keeps no view of it.
 */
export function releaseChunk(chunk: Uint8Array): void {
  if (coversWhole(chunk, CHUNK_MIN_BYTES)) (chunk.buffer as MovableBuffer).transfer(0);
}

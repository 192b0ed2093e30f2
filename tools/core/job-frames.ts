// The wire between the server and its job processes (process-pool.ts, job-process.ts): one frame per message,
// both ways, over a Unix socket pair. A frame is a 4-byte big-endian length, that many bytes of JSON (the
// message, listing the byte size of each file it carries in `sizes`), then those files' bytes back to back.
// Files travel as they are: the sender writes its own buffers (no serialized copy of them), the receiver
// reads each file into one buffer of its final size (no chunks to concatenate, nor a clone to decode).

import type { Writable } from 'node:stream';

export interface FrameHead {
  /** Byte sizes of the files that follow the head, in order. */
  sizes?: number[];
  [key: string]: unknown;
}

const LENGTH_BYTES = 4;

/** The chunks of one frame, to be written in order (the files are the caller's own buffers, not copies). */
export function frameOf(head: Record<string, unknown>, files: Uint8Array[] = []): Uint8Array[] {
  const json = Buffer.from(JSON.stringify(files.length > 0 ? { ...head, sizes: files.map((f) => f.byteLength) } : head), 'utf8');
  const prefix = Buffer.allocUnsafe(LENGTH_BYTES);
  prefix.writeUInt32BE(json.length, 0);
  return [prefix, json, ...files.filter((f) => f.byteLength > 0)];
}

/**
 * Writes one frame to `channel` in one go (corked: the head and small files leave together); `sent` is called
 * once its last chunk is written, when the caller's buffers are free to go.
 */
export function writeFrame(channel: Writable, head: Record<string, unknown>, files: Uint8Array[] = [], sent?: () => void): void {
  const chunks = frameOf(head, files);
  channel.cork();
  chunks.forEach((chunk, i) => channel.write(chunk, i === chunks.length - 1 && sent ? () => sent() : undefined));
  channel.uncork();
}

export class FrameError extends Error {}
/** A frame whose files together exceed the reader's `maxFileBytes`. */
export class FrameTooLarge extends FrameError {}

/**
 * Reassembles frames from the bytes of a stream, in whatever pieces they arrive. Bytes are either pushed (and
 * copied where they belong), or read by the caller straight into `target()` and then acknowledged with
 * `filled()`: a file's bytes then land in their buffer without any copy here.
 */
export class FrameReader {
  private head = Buffer.allocUnsafe(256);
  /** Bytes of the length prefix and head read so far. */
  private headRead = 0;
  /** The head's length once the prefix is complete, else -1. */
  private headLength = -1;
  private message: FrameHead | null = null;
  private files: Uint8Array[] = [];
  /** The file being filled and how much of it is. */
  private file = 0;
  private fileRead = 0;

  private readonly onFrame: (head: FrameHead, files: Uint8Array[]) => void;
  private readonly maxHeadBytes: number;
  /** Most bytes the files of one frame may hold together: a frame declaring more is refused before any is read. */
  maxFileBytes: number;
  /**
   * Told of a frame with files as soon as its head is read, with the files' buffers (empty yet, of their final
   * size), then of every byte count that lands in them (`onBytes`): a reader may use the bytes as they come.
   * `onFrame` still follows once the last byte is in.
   */
  onStart: ((head: FrameHead, files: Uint8Array[]) => void) | null = null;
  onBytes: ((n: number) => void) | null = null;

  constructor(onFrame: (head: FrameHead, files: Uint8Array[]) => void, o: { maxHeadBytes: number; maxFileBytes: number }) {
    this.onFrame = onFrame;
    this.maxHeadBytes = o.maxHeadBytes;
    this.maxFileBytes = o.maxFileBytes;
  }

  /** Where the next bytes of a file go, or null while a length or head is being read. */
  target(): Uint8Array | null {
    if (!this.message) return null;
    return this.files[this.file].subarray(this.fileRead);
  }

  /** `n` bytes were read into `target()`. */
  filled(n: number): void {
    this.fileRead += n;
    if (n > 0) this.onBytes?.(n);
    this.nextFile();
  }

  push(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.message) {
        const dest = this.files[this.file];
        const n = Math.min(dest.length - this.fileRead, chunk.length - at);
        dest.set(chunk.subarray(at, at + n), this.fileRead);
        at += n;
        this.filled(n);
        continue;
      }
      const want = (this.headLength < 0 ? LENGTH_BYTES : LENGTH_BYTES + this.headLength) - this.headRead;
      const n = Math.min(want, chunk.length - at);
      if (this.headRead + n > this.head.length) {
        const bigger = Buffer.allocUnsafe(Math.max(this.headRead + n, this.head.length * 2));
        this.head.copy(bigger, 0, 0, this.headRead);
        this.head = bigger;
      }
      this.head.set(chunk.subarray(at, at + n), this.headRead);
      this.headRead += n;
      at += n;
      if (this.headLength < 0 && this.headRead === LENGTH_BYTES) {
        this.headLength = this.head.readUInt32BE(0);
        if (this.headLength > this.maxHeadBytes) throw new FrameError(`frame head of ${this.headLength} bytes`);
      }
      if (this.headLength >= 0 && this.headRead === LENGTH_BYTES + this.headLength) this.startFiles();
    }
  }

  private startFiles(): void {
    let message: FrameHead;
    try {
      message = JSON.parse(this.head.toString('utf8', LENGTH_BYTES, LENGTH_BYTES + this.headLength)) as FrameHead;
    } catch {
      throw new FrameError('frame head is not JSON');
    }
    const sizes = message.sizes ?? [];
    if (!Array.isArray(sizes) || !sizes.every((s) => Number.isSafeInteger(s) && s >= 0)) throw new FrameError('frame file sizes are not sizes');
    const total = sizes.reduce((a, b) => a + b, 0);
    if (total > this.maxFileBytes) throw new FrameTooLarge(`frame files of ${total} bytes`);
    this.headRead = 0;
    this.headLength = -1;
    if (this.head.length > 65536) this.head = Buffer.allocUnsafe(256);
    this.message = message;
    // Not zeroed (zeroing a large result is a pass over it of its own): every byte is written before a reader
    // may use it, a file being read as it arrives only up to the bytes in. A plain Uint8Array (not a Buffer,
    // whose slice is a view).
    this.files = sizes.map((s) => (s > 0 ? new Uint8Array(Buffer.allocUnsafeSlow(s).buffer, 0, s) : new Uint8Array(0)));
    this.file = 0;
    this.fileRead = 0;
    if (total > 0) this.onStart?.(message, this.files);
    this.nextFile();
  }

  /** Moves past every full file; hands the frame over once the last one is. */
  private nextFile(): void {
    while (this.message && (this.file >= this.files.length || this.fileRead === this.files[this.file].length)) {
      if (this.file >= this.files.length) {
        const message = this.message;
        const files = this.files;
        this.message = null;
        this.files = [];
        this.onFrame(message, files);
        return;
      }
      this.file++;
      this.fileRead = 0;
    }
  }
}

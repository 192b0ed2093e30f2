// The job processes' wire (job-frames.ts): a frame comes out as it went in, whatever pieces its bytes arrive
// in and whether they are pushed or read straight into the files' buffers; sizes out of bounds are refused
// before any file byte is read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameError, frameOf, FrameReader, FrameTooLarge, type FrameHead } from '../../tools/core/job-frames.ts';

const concat = (chunks: Uint8Array[]) => Buffer.concat(chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)));

function collect(maxFileBytes = 1 << 30) {
  const frames: Array<{ head: FrameHead; files: Uint8Array[] }> = [];
  const reader = new FrameReader((head, files) => frames.push({ head, files }), { maxHeadBytes: 1 << 20, maxFileBytes });
  return { frames, reader };
}

const files = [new Uint8Array([1, 2, 3]), new Uint8Array(0), Uint8Array.from({ length: 70_000 }, (_, i) => i % 251)];
const wire = concat([...frameOf({ t: 'job', name: 'ñandú \u202e.csv' }, files), ...frameOf({ t: 'ready', rss: 5 })]);

test('frames: two frames come out whole from pieces of every size, pushed', () => {
  for (const size of [1, 2, 3, 7, 4096, 65536, wire.length]) {
    const { frames, reader } = collect();
    for (let at = 0; at < wire.length; at += size) reader.push(wire.subarray(at, at + size));
    assert.equal(frames.length, 2, `pieces of ${size}`);
    assert.deepEqual(frames[0].head, { t: 'job', name: 'ñandú \u202e.csv', sizes: [3, 0, 70_000] });
    assert.deepEqual(frames[0].files.map((f) => Buffer.from(f)), files.map((f) => Buffer.from(f)));
    assert.deepEqual(frames[1], { head: { t: 'ready', rss: 5 }, files: [] });
  }
});

test('frames: each file comes in a plain Uint8Array of its own, exactly its size (slice copies, as for an upload)', () => {
  const { frames, reader } = collect();
  reader.push(wire);
  for (const [i, f] of frames[0].files.entries()) {
    assert.equal(Object.getPrototypeOf(f), Uint8Array.prototype);
    assert.equal(f.byteOffset, 0);
    assert.equal(f.buffer.byteLength, files[i].length);
  }
  // A copy made by slice is not a view: writing to it leaves the file as it came.
  const copy = frames[0].files[2].slice(0, 3);
  copy[0] = 99;
  assert.equal(frames[0].files[2][0], 0);
});

test('frames: file bytes read straight into target() land where they belong', () => {
  const { frames, reader } = collect();
  let at = 0;
  while (at < wire.length) {
    const target = reader.target();
    if (target) {
      const n = Math.min(target.length, 1000, wire.length - at);
      target.set(wire.subarray(at, at + n));
      reader.filled(n);
      at += n;
    } else {
      reader.push(wire.subarray(at, at + 5));
      at += 5;
    }
  }
  assert.equal(frames.length, 2);
  assert.deepEqual(frames[0].files.map((f) => Buffer.from(f)), files.map((f) => Buffer.from(f)));
});

test('frames: files past the bound, bad sizes and heads that are not JSON are refused', () => {
  assert.throws(() => collect(70_000).reader.push(wire), FrameTooLarge);
  const bad = (head: string) => {
    const json = Buffer.from(head);
    const prefix = Buffer.alloc(4);
    prefix.writeUInt32BE(json.length);
    return Buffer.concat([prefix, json]);
  };
  assert.throws(() => collect().reader.push(bad('{"sizes":[-1]}')), FrameError);
  assert.throws(() => collect().reader.push(bad('{"sizes":[1.5]}')), FrameError);
  assert.throws(() => collect().reader.push(bad('{"sizes":')), FrameError);
  const huge = Buffer.alloc(4);
  huge.writeUInt32BE(2 ** 31);
  assert.throws(() => collect().reader.push(huge), FrameError);
});

test('frames: a reader told of a frame as its head arrives sees its files fill in order, then the whole frame', () => {
  const sent = concat(files);
  for (const size of [1, 7, 4096, wire.length]) {
    const { frames, reader } = collect();
    const events: string[] = [];
    let buffers: Uint8Array[] = [];
    let filled = 0;
    /** The byte at `i` of the files back to back, as the reader holds them. */
    const byteAt = (i: number) => {
      for (const b of buffers) {
        if (i < b.length) return b[i];
        i -= b.length;
      }
      return -1;
    };
    reader.onStart = (head, f) => {
      events.push(`start ${head.t}`);
      buffers = f;
      assert.equal(frames.length, 0, 'before the frame is whole');
    };
    reader.onBytes = (n) => {
      // What came in is in place: the files' bytes from `filled` on, back to back.
      for (let i = filled; i < filled + n; i++) if (byteAt(i) !== sent[i]) assert.fail(`pieces of ${size}: byte ${i}`);
      filled += n;
    };
    for (let at = 0; at < wire.length; at += size) reader.push(wire.subarray(at, at + size));
    assert.deepEqual(events, ['start job'], `pieces of ${size}: only frames with files are announced`);
    assert.equal(filled, 70_003);
    assert.equal(frames.length, 2);
    assert.equal(frames[0].files, buffers, 'the frame hands over the buffers it announced');
  }
});

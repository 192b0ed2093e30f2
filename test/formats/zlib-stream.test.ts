// The synchronous streaming inflate on Node's zlib handle (tools/formats/zip/inflate.ts): it must be the one
// in use on the Node versions the service runs on, give exactly the bytes of the stream whatever the pieces,
// and fail on a damaged stream without leaving an error event behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import { rawInflater } from '../../tools/formats/zip/inflate.ts';

const text = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `<row r="${i + 1}"><c r="A${i + 1}"><v>${(i * 7919) % 10007}</v></c></row>`).join(''));
const packed = deflateRawSync(text);

function inflate(data: Uint8Array, piece: number): { out: Buffer; consumed: number[] } {
  const inflater = rawInflater();
  assert.ok(inflater, 'native zlib streams on this Node (else every sheet falls back to fflate, several times slower)');
  const parts: Buffer[] = [];
  const consumed: number[] = [];
  try {
    for (let i = 0; i < data.length; i += piece) {
      const end = Math.min(data.length, i + piece);
      inflater.push(data.subarray(i, end), end === data.length, (chunk, used) => {
        parts.push(Buffer.from(chunk));
        consumed.push(used);
      });
    }
  } finally {
    inflater.close();
  }
  return { out: Buffer.concat(parts), consumed };
}

test('zlib stream: the same bytes whatever the pieces, with the compressed bytes consumed so far', () => {
  assert.ok(text.length > 1024 * 1024, 'several output buffers');
  for (const piece of [3, 1000, 65_536, packed.length]) {
    const { out, consumed } = inflate(packed, piece);
    assert.ok(out.equals(text), `pieces of ${piece}`);
    assert.ok(consumed.every((c, i) => c <= packed.length && (i === 0 || c >= consumed[i - 1])), `consumed grows (${piece})`);
  }
});

test('zlib stream: a damaged or cut stream throws a zlib error, and no error event is left to crash the process', async () => {
  const damaged = Buffer.from(packed);
  for (let k = 200; k < 260; k++) damaged[k] ^= 0x5a;
  const cut = packed.subarray(0, packed.length >> 1);
  for (const [label, data] of [['damaged', damaged], ['cut', cut], ['not deflate', Buffer.from('plain text, not a deflate stream')]] as const) {
    assert.throws(() => inflate(data, 4096), (err: { code?: string }) => /^Z_/.test(String(err.code)), label);
  }
  // The stream's own 'error' event comes on a later tick: it must find a listener.
  await new Promise((r) => setTimeout(r, 20));
});

test('zlib stream: a closed inflater refuses more input; close twice is harmless', () => {
  const inflater = rawInflater()!;
  inflater.close();
  inflater.close();
  assert.throws(() => inflater.push(packed, true, () => {}), /closed/);
});

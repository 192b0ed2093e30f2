// The JSON body reader's long-string path (tools/core/json-text.ts, base64.ts) against JSON.parse and the
// base64 rule on the same bodies: the same value, the same files, the same refusals, and an invalid body
// refused as invalid whatever its long strings hold. Each body is past SKELETON_MIN_BODY, so the path is taken.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodedBase64, decodeBase64Fast, decodeBase64InPlace } from '../../tools/core/base64.ts';
import { decodeBase64 } from '../../tools/core/files.ts';
import { LONG_STRING, longStrings, parseJsonBody, SKELETON_MIN_BODY } from '../../tools/core/json-text.ts';
import { transferables } from '../../tools/core/transfer.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/** Deterministic bytes: a file of `n` bytes. */
function bytesOf(n: number, seed = 7): Buffer {
  const b = Buffer.alloc(n);
  let x = seed;
  for (let i = 0; i < n; i++) b[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
  return b;
}

const FILE = bytesOf(SKELETON_MIN_BODY);
const B64 = FILE.toString('base64');
const B64URL = FILE.toString('base64url');

/** Values with every DecodedBase64 decoded as the kernel would decode it, or the refusal's code. */
function kernelView(v: unknown): unknown {
  if (v instanceof DecodedBase64) {
    try {
      return { decoded: Buffer.from(decodeBase64(v, 'file')).toString('hex').slice(0, 64), length: decodeBase64(v, 'file').length };
    } catch (err) {
      return { refused: (err as { code: string }).code };
    }
  }
  if (Array.isArray(v)) return v.map(kernelView);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'contentBase64' && typeof x === 'string' ? kernelView(asDecoded(x)) : kernelView(x)]));
  return v;
}
/** What the kernel makes of a contentBase64 string (the rule, through decodeBase64). */
function asDecoded(text: string): unknown {
  try {
    const bytes = decodeBase64(text, 'file');
    return new DecodedBase64(text.length, bytes);
  } catch {
    return new DecodedBase64(text.length, null);
  }
}

/**
 * Both readers on the same body text: the same outcome (a value seen as the kernel sees it, or a SyntaxError).
 * Unless told, the long-string path must be the one taken.
 */
function sameAsJsonParse(text: string, o: { whole?: boolean } = {}) {
  const buf = Buffer.from(text, 'utf8');
  if (!o.whole) assert.ok(buf.length >= SKELETON_MIN_BODY && longStrings(buf)?.length, `the long-string path for ${text.slice(0, 80)}`);
  const expected = (() => {
    try {
      // The reader's rule before this path: a byte order mark dropped, an object or an array.
      let t = text;
      if (t.charCodeAt(0) === 0xfeff) t = t.slice(1);
      if (!/^[\x20\x09\x0a\x0d]*[[{]/.test(t)) throw new SyntaxError('not an object or an array');
      return { value: kernelView(JSON.parse(t)) };
    } catch {
      return { error: 'SyntaxError' };
    }
  })();
  const got = (() => {
    try {
      return { value: kernelView(parseJsonBody(Buffer.from(text, 'utf8'))) };
    } catch (err) {
      return { error: (err as Error).name };
    }
  })();
  assert.deepEqual(got, expected, text.slice(0, 120));
}

test('json-text: bodies of long strings read as JSON.parse reads them, files decoded as the rule decodes them', () => {
  const long = 'x'.repeat(LONG_STRING);
  // Past SKELETON_MIN_BODY with a long value that is no file, so that short files take the path too.
  const pad = 'p'.repeat(SKELETON_MIN_BODY);
  const bodies: unknown[] = [
    { file: { name: 'a.csv', contentBase64: B64 }, format: 'csv' },
    { file: { name: 'a.csv', contentBase64: B64URL } },
    { files: [{ name: 'a.csv', contentBase64: B64 }, { name: 'b.csv', contentBase64: B64.slice(0, -4) }] },
    // Padding, a text cut to leave one character over, both alphabets at once: the rule decides.
    { file: { name: 'a.csv', contentBase64: B64.slice(0, 4 * 20000) + 'QQ==' } },
    { file: { name: 'a.csv', contentBase64: B64.slice(0, 4 * 20000 + 1) } },
    { file: { name: 'a.csv', contentBase64: B64.slice(0, 4 * 20000) + '-_+/' } },
    { file: { name: 'a.csv', contentBase64: B64.slice(0, 4 * 20000) + 'QQ=QQ==' } },
    { file: { name: 'a.csv', contentBase64: B64.slice(0, 4 * 20000) + '*' } },
    // Whitespace (the rule drops it), a non-ASCII space, an escape: read as strings, as before.
    { file: { name: 'a.csv', contentBase64: B64.slice(0, 4 * 20000) + ' QUJD' } },
    { file: { name: 'a.csv', contentBase64: B64.slice(0, 4 * 20000) + '\u00a0QUJD' } },
    { file: { name: 'a.csv', contentBase64: B64.slice(0, 4 * 20000) + '\nQUJD' } },
    // Long strings that are not files, a long key, a prototype name, an array at the top.
    { file: { name: 'a.csv', contentBase64: B64 }, note: long, [long]: 1 },
    { constructor: { contentBase64: B64 } },
    [{ contentBase64: B64 }, long, 'ñandú'.repeat(LONG_STRING)],
    // A string that looks like the reader's own placeholder stays what it is.
    { file: { name: 'a.csv', contentBase64: B64 }, sheet: '\u00000000:0' },
  ];
  for (const body of bodies) sameAsJsonParse(JSON.stringify(Array.isArray(body) ? [...body, pad] : { ...(body as object), pad }));
  // A prototype name as a key (an object literal would set the prototype instead).
  sameAsJsonParse(`{"__proto__": "${B64}", "x": {"__proto__": {"contentBase64": "${B64}"}}}`);
  // A byte order mark, whitespace around, a key given twice (the last one counts).
  sameAsJsonParse(`\ufeff {"file": {"name": "a.csv", "contentBase64" : "${B64}"} } `);
  sameAsJsonParse(`{"file": {"name": "a.csv", "contentBase64": "${B64}", "contentBase64": "${B64URL}"}}`);
});

test('json-text: a body that is not JSON is refused, whatever its long strings hold', () => {
  const bad = [
    // A raw control character inside a long string: in a file, in another value, in a value a later key replaces.
    `{"file": {"name": "a.csv", "contentBase64": "${B64.slice(0, 8000)}\u0001${B64.slice(8000)}"}}`,
    `{"file": {"name": "a.csv", "contentBase64": "${B64.slice(0, 4 * 100000)}\t${B64.slice(4 * 100000)}"}}`,
    `{"note": "${B64}\u0000"}`,
    `{"pad": "${'p'.repeat(SKELETON_MIN_BODY)}", "file": {"name": "a.csv", "contentBase64": "${B64.slice(0, 4 * 20000)}\u0002QUJD"}}`,
    `{"file": {"name": "a.csv", "contentBase64": "${B64}\u001f"}, "file": 1}`,
    // Cut short, a stray quote, not an object or an array, trailing garbage.
    `{"file": {"name": "a.csv", "contentBase64": "${B64}`,
    `{"file": {"name": "a.csv", "contentBase64": "${B64}""}}`,
    `"${B64}"`,
    `{"file": {"name": "a.csv", "contentBase64": "${B64}"}} x`,
  ];
  for (const text of bad.slice(0, 5)) sameAsJsonParse(text);
  for (const text of bad.slice(5)) sameAsJsonParse(text, { whole: true });
  for (const text of bad) assert.throws(() => parseJsonBody(Buffer.from(text)), SyntaxError);
});

test('json-text: the search for long strings is bounded, and a body of many strings is parsed whole', () => {
  const many = JSON.stringify({ file: { name: 'a.csv', contentBase64: B64 }, rows: Array.from({ length: 5000 }, (_, i) => `v${i}`) });
  assert.equal(longStrings(Buffer.from(many)), null, 'past 4,096 strings: parsed whole');
  sameAsJsonParse(many, { whole: true });
  const mostlySmall = JSON.stringify({ file: { name: 'a.csv', contentBase64: B64 }, numbers: Array.from({ length: 400_000 }, (_, i) => i) });
  assert.equal(longStrings(Buffer.from(mostlySmall)), null, 'a skeleton past 1 MB: parsed whole');
  sameAsJsonParse(mostlySmall, { whole: true });
  const escapes = JSON.stringify({ a: '\\"'.repeat(3000), file: { name: 'a.csv', contentBase64: B64 } });
  assert.equal(longStrings(Buffer.from(escapes)), null, 'escapes count too');
  sameAsJsonParse(escapes, { whole: true });
});

test('json-text: a decoded file lives in the body\'s own buffer, which is let go whole once the job has it', () => {
  const body = Buffer.from(JSON.stringify({ files: [{ name: 'a.csv', contentBase64: B64 }, { name: 'b.csv', contentBase64: B64URL }] }));
  const value = parseJsonBody(body) as any;
  const files = value.files.map((f: any) => decodeBase64(f.contentBase64, 'files'));
  assert.ok(files.every((f: Uint8Array) => f.buffer === body.buffer), 'no copy of the input');
  assert.deepEqual(files.map((f: Uint8Array) => Buffer.compare(Buffer.from(f), FILE)), [0, 0]);
  assert.deepEqual(transferables(files), [body.buffer], 'views of part of an owned buffer: let go once');
});

test('base64: the fast paths agree with the rule on random texts', () => {
  const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
  const BASE64URL = /^[A-Za-z0-9_-]*$/;
  const rule = (text: string): Buffer | null => {
    const compact = text.replace(/\s+/g, '');
    const ok = (BASE64.test(compact) && compact.length % 4 === 0) || (BASE64URL.test(compact) && compact.length % 4 !== 1);
    return ok ? Buffer.from(compact, BASE64URL.test(compact) && /[-_]/.test(compact) ? 'base64url' : 'base64') : null;
  };
  const pools = ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', '+/', '-_', '=', ' ', '\n\t\x01', '\u00a0é\u2028', '*!.'];
  let seed = 1;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const seen = { fast: 0, inPlace: 0, invalid: 0, control: 0, asString: 0 };
  for (let i = 0; i < 60_000; i++) {
    const weights = pools.map((_, k) => (k === 0 ? 1 : rnd() < 0.5 ? 0 : rnd() * 0.1));
    const total = weights.reduce((a, b) => a + b, 0);
    let text = '';
    for (let j = Math.floor(rnd() * 40); j > 0; j--) {
      let r = rnd() * total;
      let k = 0;
      while (k < pools.length - 1 && r > weights[k]) r -= weights[k++];
      text += pools[k][Math.floor(rnd() * pools[k].length)];
    }
    if (rnd() < 0.3) text += rnd() < 0.5 ? '=' : '==';
    const expected = rule(text);
    const fast = decodeBase64Fast(text);
    if (fast) {
      seen.fast++;
      assert.deepEqual(Buffer.from(fast), expected, JSON.stringify(text));
    }
    const buf = Buffer.concat([Buffer.from('{"'), Buffer.from(text), Buffer.from('"}')]);
    const before = Buffer.from(buf);
    const got = decodeBase64InPlace(buf, 2, buf.length - 2, 4 * (1 + Math.floor(rnd() * 3)));
    const control = /[\x00-\x1f]/.test(text);
    if (got === null) {
      seen.asString++;
      assert.deepEqual(buf, before, 'left untouched for the rule');
      assert.match(text, /[ \u0080-\uffff]/);
    } else if (got === 'control') {
      seen.control++;
      assert.ok(control, JSON.stringify(text));
    } else if (got === 'invalid') {
      seen.invalid++;
      assert.ok(!control && expected === null, JSON.stringify(text));
    } else {
      seen.inPlace++;
      assert.ok(!control);
      assert.deepEqual(Buffer.from(got), expected, JSON.stringify(text));
    }
  }
  // Every outcome was met many times.
  for (const [k, n] of Object.entries(seen)) assert.ok(n > 1000, `${k}: ${n}`);
});

test('decodeBase64InPlace: a large text leaves no copy of itself behind outside the heap', () => {
  const raw = bytesOf(6_000_000);
  const buf = Buffer.from(raw.toString('base64'), 'latin1');
  const external = () => process.memoryUsage().external;
  const before = external();
  const got = decodeBase64InPlace(buf, 0, buf.length);
  const left = external() - before;
  assert.ok(got instanceof Uint8Array && Buffer.compare(got, raw) === 0);
  // Slices of over ~1 MB became external strings, each kept until a collection: 8 MB of text left 7 MB.
  assert.ok(left < 1024 * 1024, `${(left / 2 ** 20).toFixed(1)} MB left outside the heap`);
});

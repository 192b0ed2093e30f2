// Strict base64 without a regular expression over the text. The rule (files.ts) is standard base64 with at
// most two `=` at the end and a length that is a multiple of 4, or URL-safe base64 without padding whose
// length leaves no single character over; whitespace is dropped first. A regular expression checking that
// took ~95 ms on a 16 MB text here, three times the decoding. Node's decoder skips a character it does not
// know and stops at an `=`, so the bytes it gives back fall short of the count the length promises exactly
// when the text breaks the rule (files.test.ts compares this with the rule on random texts). Whatever does
// not pass here goes to the rule itself, which decides.
import { isAscii } from 'node:buffer';

const EQ = 0x3d;
const PLUS = 0x2b;
const SLASH = 0x2f;
const DASH = 0x2d;
const UNDERSCORE = 0x5f;
const SPACE = 0x20;

/** Bytes the text's data characters give (each 4 give 3; 2 or 3 left over give 1 or 2). */
const bytesOf = (chars: number) => Math.floor((chars * 3) / 4);

/** The `=` at the end of a text that may count as padding (at most two). */
function paddingOf(at: (i: number) => number, length: number): number {
  if (length > 0 && at(length - 1) === EQ) return length > 1 && at(length - 2) === EQ ? 2 : 1;
  return 0;
}

/** Whether a text of `length` characters, `padding` of them padding, may be one alphabet's base64. */
function shapeFits(length: number, padding: number, standard: boolean, urlSafe: boolean): boolean {
  return (standard && length % 4 === 0) || (urlSafe && padding === 0 && length % 4 !== 1);
}

/** The bytes of a text that is strictly base64 with no whitespace, or null when the rule has to decide. */
export function decodeBase64Fast(text: string): Uint8Array | null {
  const padding = paddingOf((i) => text.charCodeAt(i), text.length);
  const standard = !text.includes('-') && !text.includes('_');
  const urlSafe = !text.includes('+') && !text.includes('/');
  if (!shapeFits(text.length, padding, standard, urlSafe)) return null;
  const bytes = Buffer.from(text, 'base64');
  return bytes.length === bytesOf(text.length - padding) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length) : null;
}

/**
 * Characters decoded at a time in place (a multiple of 4): the text of one slice is copied once, as a
 * short-lived string. Small enough for that string to live in V8's young generation: Node makes a text of
 * over ~1 MB an external string, whose memory stays until a collection finds it (decoding 44 MB of base64 by
 * 1 MB slices left 41 MB of them, and took 36 ms; by 64 KB, none, in 18 ms).
 */
const SLICE_CHARS = 1 << 16;

const has = (buf: Uint8Array, byte: number, start: number, end: number) => {
  const at = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).indexOf(byte, start);
  return at >= 0 && at < end;
};

/**
 * Decodes the base64 text at `buf[start, end)` over itself: slice by slice, each slice's bytes are written
 * where its text began (they never reach text not read yet), so the decoded file takes no memory beyond the
 * request's own buffer. Returns the decoded bytes (a view of `buf`); `invalid` when the text breaks the rule;
 * `control` when it holds a control character (which no JSON string may hold raw: the body is not JSON);
 * null when it is not for this path (whitespace or non-ASCII characters, which the rule reads as a string),
 * with `buf` untouched.
 */
export function decodeBase64InPlace(buf: Uint8Array, start: number, end: number, sliceChars = SLICE_CHARS): Uint8Array | 'invalid' | 'control' | null {
  const text = buf.subarray(start, end);
  if (!isAscii(text) || has(buf, SPACE, start, end)) return null;
  const whole = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const CONTROL = /[\x00-\x1f]/;
  const refused = (text: string, rest: number) => (CONTROL.test(text) || CONTROL.test(whole.toString('latin1', rest, end)) ? 'control' : 'invalid');
  const length = end - start;
  const padding = paddingOf((i) => text[i], length);
  const standard = !has(buf, DASH, start, end) && !has(buf, UNDERSCORE, start, end);
  const urlSafe = !has(buf, PLUS, start, end) && !has(buf, SLASH, start, end);
  if (!shapeFits(length, padding, standard, urlSafe)) return refused('', start);
  const dataEnd = end - padding;
  let out = start;
  for (let at = start; at < dataEnd; at += sliceChars) {
    const sliceEnd = Math.min(at + sliceChars, dataEnd);
    const slice = whole.toString('latin1', at, sliceEnd);
    const written = whole.write(slice, out, 'base64');
    // The slices before this one were base64 through and through: whatever is wrong lies in this one's text
    // (its copy: its bytes may be written over by now) or after it (not written over).
    if (written !== bytesOf(sliceEnd - at)) return refused(slice, sliceEnd);
    out += written;
  }
  return buf.subarray(start, out);
}

/**
 * A `contentBase64` the JSON body reader decoded where it lay in the request's buffer (json-text.ts): it
 * stands in for the text wherever a file object is read (files.ts), with the text's length for the size
 * check made before decoding, and the verdict on the text, given when the file is decoded.
 */
export class DecodedBase64 {
  /** Characters of the base64 text. */
  readonly length: number;
  /** The decoded bytes, or null when the text was not base64 by the rule. */
  readonly bytes: Uint8Array | null;
  constructor(length: number, bytes: Uint8Array | null) {
    this.length = length;
    this.bytes = bytes;
  }
}

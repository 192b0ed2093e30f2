// A request's JSON body as a value. A body that is mostly long strings (files in base64) is not turned into
// one string and parsed whole: its long strings are taken out of the text, the rest (the skeleton, a few
// hundred bytes) is parsed, and each long string is put back. A `contentBase64` is decoded where it lies in
// the body's buffer (base64.ts) and stands in as a DecodedBase64; any other long string becomes a string.
// On 16 MB of base64 the whole text, its parse and its decoding took ~55 ms and three copies of the input
// (the text, the parsed string, the bytes); taken out, ~15 ms and none (bench/out, 2026-11-26).
//
// Strings are found with the JSON grammar's own rule (a quote opens one, a backslash escapes the next byte,
// a quote closes it), which every valid body follows; the only thing the skeleton's parse cannot see is a
// control character inside a string taken out, and each one taken out is checked for that as it is put
// back. A body with many strings (or none long enough) is parsed whole, as before: the search is bounded.
import { randomBytes } from 'node:crypto';
import { DecodedBase64, decodeBase64InPlace } from './base64.ts';
import { own } from './transfer.ts';

/** Bodies smaller than this are parsed whole. */
export const SKELETON_MIN_BODY = 256 * 1024;
/** Strings shorter than this stay in the skeleton. */
export const LONG_STRING = 64 * 1024;
/** Most bytes left once the long strings are out; past it the body is parsed whole. */
const MAX_SKELETON = 1024 * 1024;
/** Strings (and escapes) looked at before the search gives up and the body is parsed whole. */
const MAX_STRINGS = 4096;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** Byte ranges of the long string values (their contents, without quotes), or null to parse the body whole. */
export function longStrings(buf: Buffer): Array<[number, number]> | null {
  const found: Array<[number, number]> = [];
  let taken = 0;
  let looked = 0;
  // The next backslash at or after where the search is (the body's length when there is none).
  let backslash = -1;
  let pos = 0;
  for (;;) {
    const open = buf.indexOf(QUOTE, pos);
    if (open < 0) break;
    let at = open + 1;
    let escaped = false;
    let close: number;
    for (;;) {
      close = buf.indexOf(QUOTE, at);
      if (close < 0) return null;
      if (backslash < at) {
        backslash = buf.indexOf(BACKSLASH, at);
        if (backslash < 0) backslash = buf.length;
      }
      if (backslash > close) break;
      escaped = true;
      at = backslash + 2;
      if (++looked > MAX_STRINGS) return null;
    }
    if (++looked > MAX_STRINGS) return null;
    pos = close + 1;
    if (escaped || close - open - 1 < LONG_STRING) continue;
    let next = pos;
    while (next < buf.length && isSpace(buf[next])) next++;
    // A key stays: only values are taken out.
    if (buf[next] === COLON) continue;
    found.push([open + 1, close]);
    taken += close - open - 1;
  }
  // Worth it only when the rest is small: the skeleton is parsed with a reviver, slower than a plain parse.
  return buf.length - taken <= MAX_SKELETON ? found : null;
}

const parseError = (message: string) => new SyntaxError(message);

/** The body's text as JSON.parse reads it: UTF-8, a byte order mark dropped; an object or an array. */
function parseText(text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown): unknown {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  const first = /^[\x20\x09\x0a\x0d]*(.)/.exec(text)?.[1];
  if (first !== '{' && first !== '[') throw parseError('a JSON body must be an object or an array');
  return JSON.parse(text, reviver);
}

/**
 * Parses a JSON body (an object or an array; empty is `{}`); throws a SyntaxError when it is not JSON. The
 * buffer becomes the decoded files' memory when any are decoded in it: it must be this body's alone.
 */
export function parseJsonBody(buf: Buffer): unknown {
  const ranges = buf.length >= SKELETON_MIN_BODY ? longStrings(buf) : null;
  if (!ranges || ranges.length === 0) return parseText(buf.toString('utf8'));
  // Each long string leaves a placeholder no body can hold by chance: a NUL, this parse's own nonce, its index.
  const mark = `\u0000${randomBytes(12).toString('hex')}:`;
  const pieces: Buffer[] = [];
  let from = 0;
  ranges.forEach(([start, end], i) => {
    pieces.push(buf.subarray(from, start), Buffer.from(`\\u0000${mark.slice(1)}${i}`));
    from = end;
  });
  pieces.push(buf.subarray(from));
  let decoded = false;
  const putBack = new Array<boolean>(ranges.length).fill(false);
  const value = parseText(Buffer.concat(pieces).toString('utf8'), function reviver(key, value) {
    if (typeof value !== 'string' || !value.startsWith(mark)) return value;
    const i = Number(value.slice(mark.length));
    const [start, end] = ranges[i];
    putBack[i] = true;
    if (key === 'contentBase64') {
      const bytes = decodeBase64InPlace(buf, start, end);
      if (bytes === 'control') throw parseError('a control character in a string');
      if (bytes !== null) {
        decoded ||= bytes !== 'invalid';
        return new DecodedBase64(end - start, bytes === 'invalid' ? null : bytes);
      }
    }
    // Read as JSON reads it (quotes included), which refuses a control character.
    return JSON.parse(buf.toString('utf8', start - 1, end + 1)) as string;
  });
  // A string not put back (a key given twice keeps its last value) must still have been a JSON string.
  ranges.forEach(([start, end], i) => {
    if (!putBack[i] && /[\x00-\x1f]/.test(buf.toString('latin1', start, end))) throw parseError('a control character in a string');
  });
  // From here on the buffer holds decoded files and nothing else reads it: it may be let go whole (transfer.ts).
  if (decoded) own(buf.buffer);
  return value;
}

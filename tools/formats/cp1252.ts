// Windows-1252 bytes of a text: Latin-1 plus the 27 characters Windows puts in 0x80–0x9F, and the five C1
// controls WHATWG's decoder reads from the bytes Windows leaves unassigned (so every byte decodes back to what
// was written). A character it has no byte for is reported, never replaced: the caller names it (tools.md: no
// silent change of data). One encoder for every text writer (excel-to-txt, convert-csv).
const HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ';
const BYTE_OF = new Map<number, number>();
for (let i = 0; i < 32; i++) BYTE_OF.set(HIGH.charCodeAt(i), 0x80 + i);
/** What Latin-1 does not write as its Windows-1252 byte: C1 controls, and everything past U+00FF. */
const NOT_LATIN1 = /[\u0080-\u009f\u0100-\uffff]/g;

/**
 * The bytes, or the first character that has none and its UTF-16 offset in the text. Node writes the text as
 * Latin-1 natively; only the characters a regular expression finds outside it are then looked up, one by one
 * (a character loop in JavaScript cost 10× as much on a 12 MB CSV).
 */
export function encodeWindows1252(text: string): { bytes: Uint8Array } | { bad: string; at: number } {
  // Its own memory, exactly sized: never a slice of Node's shared buffer pool.
  const out = new Uint8Array(text.length);
  Buffer.from(out.buffer, out.byteOffset, out.byteLength).write(text, 0, 'latin1');
  NOT_LATIN1.lastIndex = 0;
  for (let m = NOT_LATIN1.exec(text); m !== null; m = NOT_LATIN1.exec(text)) {
    const i = m.index;
    const b = BYTE_OF.get(text.charCodeAt(i));
    if (b === undefined) {
      NOT_LATIN1.lastIndex = 0;
      return { bad: String.fromCodePoint(text.codePointAt(i)!), at: i };
    }
    out[i] = b;
  }
  return { bytes: out };
}

// Windows-1252 bytes of a text: Latin-1 plus the 27 characters Windows puts in 0x80–0x9F, and the five C1
// controls WHATWG's decoder reads from the bytes Windows leaves unassigned (so every byte decodes back to what
// was written). A character it has no byte for is reported, never replaced: the caller names it (tools.md: no
// silent change of data). One encoder for every text writer (excel-to-txt, convert-csv).
const HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ';
const BYTE_OF = new Map<number, number>();
for (let i = 0; i < 32; i++) BYTE_OF.set(HIGH.charCodeAt(i), 0x80 + i);

/** The bytes, or the first character that has none and its UTF-16 offset in the text. */
export function encodeWindows1252(text: string): { bytes: Uint8Array } | { bad: string; at: number } {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80 || (c >= 0xa0 && c <= 0xff)) out[i] = c;
    else {
      const b = BYTE_OF.get(c);
      if (b === undefined) return { bad: String.fromCodePoint(text.codePointAt(i)!), at: i };
      out[i] = b;
    }
  }
  return { bytes: out };
}

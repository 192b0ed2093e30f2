// The CSV field grammar, once, over bytes: RFC 4180 as this service reads it. Everything that cuts a CSV's
// bytes scans its fields with scanField: csv/records.ts to find the records and the flags the record copy
// (csv/write.ts) goes by, a field's span and its text (fieldText); json/write.ts to type a quoted field and to
// copy a quoted text field with JSON's escapes between the bounds scanField found. Inside a record already cut,
// a field not starting with a quote runs to the next delimiter, which json/write.ts looks for while it copies.
// The one-pass reader and readCsv (read.ts parseOnce) cut decoded text instead, by the same grammar over
// characters with indexOf (native; many times faster there than a loop over char codes); the two are held
// equal by test/formats/csv-records.test.ts on thousands of generated CSVs.
//
// A field that starts with a quote runs to the quote that closes it (`""` inside is one quote), and whatever
// follows that quote up to the delimiter is kept as it is (`"ab"cd` is `abcd`); a field that does not is read
// as written, quotes included. A quote that never closes before the end of the text is a plain character
// (it is added to `literal`, and the field read again as unquoted). A delimiter, CR or LF ends a field outside
// quotes; CR, LF and CRLF each end a record.
export const QUOTE = 34;
export const CR = 13;
export const LF = 10;

/** What scanField found about the field it scanned. */
export class FieldScan {
  /** Where the field starts (its opening quote when quoted). */
  start = 0;
  /** Where it ends: at the delimiter, CR or LF that ends it, or at the end of the text. */
  end = 0;
  /** It starts with a quote that closes. */
  quoted = false;
  /** Where that quote closes. */
  close = 0;
  /** A quoted field holds a delimiter, CR, LF or `""`: it needs its quotes when written back. */
  special = false;
  /** An unquoted field holds a quote character. */
  quote = false;
}

/** A byte that ends a field outside quotes (the delimiter, CR, LF), in stopsOf's table. */
export const END = 1;
/** The quote, in stopsOf's table. */
const Q = 2;
const STOPS: (Uint8Array | undefined)[] = [];

/**
 * The bytes scanField stops at, for delimiter `d`, as a table: one load and one comparison per byte of text.
 * Testing the delimiter, CR, LF and the quote in turn made the column reader (split-by-column), which crosses
 * every field before the one it reads, measurably slower than the loop it replaced.
 */
export function stopsOf(d: number): Uint8Array {
  let t = STOPS[d];
  if (t === undefined) {
    t = new Uint8Array(256);
    t[QUOTE] = Q;
    t[CR] = END;
    t[LF] = END;
    t[d] = END;
    STOPS[d] = t;
  }
  return t;
}

/**
 * Scans the field that starts at `i`, up to `to` (the end of the text, or of a record already cut), into `f`;
 * returns where it ends. `d` is the delimiter's byte.
 */
export function scanField(f: FieldScan, b: Uint8Array, i: number, to: number, d: number, literal: Set<number>): number {
  const stops = stopsOf(d);
  f.start = i;
  f.quoted = false;
  f.special = false;
  f.quote = false;
  if (i < to && b[i] === QUOTE && (literal.size === 0 || !literal.has(i))) {
    let k = i + 1;
    let special = false;
    for (; k < to; k++) {
      const s = stops[b[k]];
      if (s === 0) continue;
      if (s === END) special = true;
      else if (b[k + 1] === QUOTE) {
        special = true;
        k++;
      } else break;
    }
    if (k < to) {
      f.quoted = true;
      f.close = k;
      f.special = special;
      k++;
      while (k < to && stops[b[k]] !== END) k++;
      return (f.end = k);
    }
    // Never closed: this quote is a plain character, and the field is read again as unquoted.
    literal.add(i);
  }
  let k = i;
  let quote = false;
  for (; k < to; k++) {
    const s = stops[b[k]];
    if (s === 0) continue;
    if (s === END) break;
    quote = true;
  }
  f.quote = quote;
  return (f.end = k);
}

/** A scanned field's text, as `decode` gives the bytes `from` to `to`: its quotes undone, `""` as one quote. */
export function fieldText(f: FieldScan, b: Uint8Array, decode: (from: number, to: number) => string): string {
  if (!f.quoted) return f.end > f.start ? decode(f.start, f.end) : '';
  let value = '';
  let seg = f.start + 1;
  for (let q = indexOfQuote(b, seg, f.close); q < f.close; q = indexOfQuote(b, seg, f.close)) {
    // Inside the quotes every quote is the first of a pair.
    value += decode(seg, q + 1);
    seg = q + 2;
  }
  value += decode(seg, f.close);
  return f.end > f.close + 1 ? value + decode(f.close + 1, f.end) : value;
}

function indexOfQuote(b: Uint8Array, from: number, to: number): number {
  for (let i = from; i < to; i++) if (b[i] === QUOTE) return i;
  return to;
}

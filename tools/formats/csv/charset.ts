// The 8-bit code page of a text that is not UTF-8 and declares none (issue 16): a CSV saved by Excel or a
// script on a Greek, Russian or Czech Windows is not Windows-1252. jschardet (a port of Mozilla's universal
// detector) weighs the byte statistics of each ISO-8859 and Windows-125x code page; its guess is taken only when
// confident, else the text stays Windows-1252, the Western default (tools.md §2.2). Detection never runs on
// UTF-8, UTF-16 or UTF-32 text: callers ask only for bytes that are none of these.
// test/formats/charset.test.ts compares jschardet with chardet on the corpus and keeps the reasons for the pick.
import { detectAll } from 'jschardet';

/** The code pages detected besides Windows-1252, by their WHATWG names (TextDecoder reads each). */
export const DETECTED = [
  'windows-1250',
  'windows-1251',
  'windows-1253',
  'windows-1254',
  'windows-1255',
  'windows-1256',
  'windows-1257',
  'windows-1258',
  'iso-8859-2',
  'iso-8859-3',
  'iso-8859-4',
  'iso-8859-5',
  'iso-8859-6',
  'iso-8859-7',
  'iso-8859-8',
  'iso-8859-9',
  'iso-8859-10',
  'iso-8859-13',
  'iso-8859-15',
  'iso-8859-16',
  'koi8-r',
] as const;

export type EightBitEncoding = 'windows-1252' | (typeof DETECTED)[number];

const KNOWN = new Set<string>(DETECTED);

/** jschardet's names of the code pages read as Windows-1252 (a superset of ISO-8859-1 and ASCII). */
const WESTERN = new Set(['windows-1252', 'iso-8859-1', 'ascii']);

/** Below this, a guess is not trusted: short Spanish or German Latin-1 text scores 0.02–0.05 as Central European. */
const MIN_CONFIDENCE = 0.15;

/** Bytes looked at: the statistics settle long before, and a large file costs no more than this. */
const SAMPLE_BYTES = 16 * 1024;

/** The code page of 8-bit text that is not UTF-8: a detected one when confident, else Windows-1252. */
export function eightBitEncoding(bytes: Uint8Array): EightBitEncoding {
  const sample = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, SAMPLE_BYTES));
  const all = detectAll(sample, { minimumThreshold: 0 });
  const best = all[0];
  if (!best?.encoding || best.confidence < MIN_CONFIDENCE) return 'windows-1252';
  const name = best.encoding.toLowerCase().replace(/^iso8859-/, 'iso-8859-');
  if (WESTERN.has(name) || !KNOWN.has(name)) return 'windows-1252';
  // A Windows code page and its ISO twin score alike on most text (Greek: 1253 and 8859-7): the one that decodes
  // every byte to a character (no U+FFFD, no C1 control) is the one that wrote it.
  const close = all
    .filter((c) => c.encoding && best.confidence - c.confidence < 0.01)
    .map((c) => c.encoding!.toLowerCase().replace(/^iso8859-/, 'iso-8859-'))
    .filter((n) => KNOWN.has(n));
  return (close.find((n) => clean(n, sample)) ?? name) as EightBitEncoding;
}

function clean(encoding: string, bytes: Uint8Array): boolean {
  return !/[\uFFFD\u0080-\u009F]/.test(new TextDecoder(encoding).decode(bytes));
}

/** The name a message shows: `ISO-8859-7`, `Windows-1251`, `KOI8-R`. */
export function encodingLabel(encoding: string): string {
  return encoding.toUpperCase().replace('WINDOWS', 'Windows');
}

// Fixed-width text (tools.md excel-to-txt): every column padded with spaces to its width, the last one too, so
// that every line has the same length in characters (code points of NFC text). The caller gives display text
// already cleaned and fitted to the widths; this lays the lines out and encodes them.
import { writtenOf } from '../batch.ts';
import type { Written } from '../model.ts';
import { encodeWindows1252 } from '../cp1252.ts';

export interface FixedWidthLayout {
  widths: number[];
  /** Per column: padded on the left (right-aligned). */
  right: boolean[];
  separator: string;
  /** A line of `-` under the titles. */
  rule: boolean;
  lineEnd: '\r\n' | '\n';
  encoding: 'utf-8' | 'windows-1252';
}

/** A cell fitted to its width: the caller has made sure no text is longer. */
function pad(text: string, width: number, right: boolean): string {
  const room = width - [...text].length;
  return room <= 0 ? text : right ? ' '.repeat(room) + text : text + ' '.repeat(room);
}

/** A character windows-1252 cannot hold, and the line (0-based, titles included) it is on. */
export class Unencodable extends Error {
  constructor(
    readonly char: string,
    readonly line: number,
  ) {
    super(`U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} has no windows-1252 byte`);
  }
}

/** The document: titles (when given), the rule under them, then the rows; each line ends with `lineEnd`. */
export function writeFixedWidth(name: string, titles: string[] | null, rows: string[][], o: FixedWidthLayout): Written {
  const line = (cells: string[]) => cells.map((c, i) => pad(c, o.widths[i], o.right[i])).join(o.separator);
  const lines: string[] = [];
  if (titles) {
    lines.push(line(titles));
    if (o.rule) lines.push('-'.repeat(o.widths.reduce((a, b) => a + b, 0) + o.separator.length * Math.max(0, o.widths.length - 1)));
  }
  for (const r of rows) lines.push(line(r));
  const text = lines.length === 0 ? '' : lines.join(o.lineEnd) + o.lineEnd;
  let bytes: Uint8Array;
  if (o.encoding === 'utf-8') bytes = new TextEncoder().encode(text);
  else {
    const encoded = encodeWindows1252(text);
    if ('bad' in encoded) throw new Unencodable(encoded.bad, lineAt(text, encoded.at, o.lineEnd));
    bytes = encoded.bytes;
  }
  return writtenOf(bytes, { name, header: titles, width: o.widths.length }, rows);
}

function lineAt(text: string, at: number, end: string): number {
  let n = 0;
  for (let i = text.indexOf(end); i >= 0 && i < at; i = text.indexOf(end, i + end.length)) n++;
  return n;
}

// vCard text (excel-to-vcard): RFC 2426 (3.0) and RFC 6350 (4.0) content lines, UTF-8 with CRLF ends. Values
// are escaped (`\\`, `\,`, `\;`, any line break as `\n`), so no cell can start a property or a card; lines are
// folded at 75 octets, never inside a character (a continuation line starts with one space, which counts).
import { writtenOf } from '../batch.ts';
import type { Cell, TableHead, Written } from '../model.ts';
import { joinBytes } from '../util/bytes.ts';

export const VCARD_VERSIONS = ['3.0', '4.0'] as const;
export type VcardVersion = (typeof VCARD_VERSIONS)[number];

const FOLD_OCTETS = 75;

/** A text value escaped for a content line; in a structured value (N, ADR, ORG) `;` separates its parts. */
export function escapeValue(s: string): string {
  return s.replace(/[\\,;]|\r\n|[\r\n]/g, (c) => (c === '\\' ? '\\\\' : c === ',' ? '\\,' : c === ';' ? '\\;' : '\\n'));
}

/** A content line folded at 75 octets of UTF-8, each continuation starting with a space; ends with CRLF. */
export function foldLine(line: string): string {
  if (line.length <= FOLD_OCTETS / 3 || Buffer.byteLength(line, 'utf8') <= FOLD_OCTETS) return line + '\r\n';
  let out = '';
  let octets = 0;
  let limit = FOLD_OCTETS;
  for (const ch of line) {
    const cp = ch.codePointAt(0)!;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (octets + size > limit) {
      out += '\r\n ';
      octets = 1;
      limit = FOLD_OCTETS;
    }
    out += ch;
    octets += size;
  }
  return out + '\r\n';
}

/** One property of a card: its name with parameters, and its value already escaped. */
export interface VcardProperty {
  name: string;
  value: string;
}

/** Cards written one by one into one text, or each into its own bytes. */
export class VcardWriter {
  private chunks: Uint8Array[] = [];
  private text = '';
  cards = 0;

  constructor(readonly version: VcardVersion) {}

  /** The bytes of one card. */
  card(props: readonly VcardProperty[]): string {
    let s = `BEGIN:VCARD\r\nVERSION:${this.version}\r\n`;
    for (const p of props) s += foldLine(`${p.name}:${p.value}`);
    return s + 'END:VCARD\r\n';
  }

  add(props: readonly VcardProperty[]): void {
    this.text += this.card(props);
    this.cards++;
    if (this.text.length > 65_536) {
      this.chunks.push(Buffer.from(this.text, 'utf8'));
      this.text = '';
    }
  }

  /** Everything added, with `preview` as the table of contacts the caller mapped. */
  end(head: Pick<TableHead, 'name' | 'header' | 'width'>, preview: readonly (readonly Cell[])[]): Written {
    this.chunks.push(Buffer.from(this.text, 'utf8'));
    const bytes = joinBytes(this.chunks);
    this.chunks = [];
    this.text = '';
    return writtenOf(bytes, head, preview);
  }
}

// What every markup result (HTML, XML, and later the XML inside ods and docx) needs: escaping, the removal of
// characters XML 1.0 cannot hold (tools.md §2.6), and XML 1.0 names (fifth edition, the full Unicode ranges).
import { CharFilter, NOT_XML, NOT_XML_ALL } from './removed.ts';

/** Text for HTML content or a quoted attribute: `<`, `>`, `&`, `"` and `'` escaped. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text for XML element content. A carriage return is written as `&#13;` because parsers turn a literal one
 * into a line feed, which would change the value.
 */
export function escapeXmlText(s: string): string {
  return s.replace(/[&<>\r]/g, (c) => XML_ESCAPES[c]);
}
const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#13;' };

/** What XML 1.0 cannot hold, removed and counted for one warning (removed.ts). */
export class XmlCharFilter extends CharFilter {
  constructor(table = '') {
    super('xml', NOT_XML, NOT_XML_ALL);
    this.table = table;
  }
}

// NameStartChar of XML 1.0 (fifth edition) without `:`, which names use for namespaces.
const START = 'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD';
const MORE = '\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040';
const ASTRAL = '\\u{10000}-\\u{EFFFF}';
const START_CHAR = new RegExp(`^[${START}${ASTRAL}]$`, 'u');
const NAME_CHAR = new RegExp(`^[${START}${MORE}${ASTRAL}]$`, 'u');
// JSON Schema patterns carry no flags, so a character above U+FFFF is matched as its surrogate pair.
const PAIR = '[\\uD800-\\uDB7F][\\uDC00-\\uDFFF]';

/** An XML 1.0 name without `:` that does not start with `xml` in any case, or the empty string. */
export const ELEMENT_NAME_OR_EMPTY = new RegExp(`^(?:(?![Xx][Mm][Ll])(?:[${START}]|${PAIR})(?:[${START}${MORE}]|${PAIR})*)?$`);

export const MAX_NAME_CHARS = 100;

/** The first `max` characters (code points) of a text: a surrogate pair is never split. */
export function clipChars(s: string, max: number): string {
  const chars = [...s];
  return chars.length > max ? chars.slice(0, max).join('') : s;
}

/**
 * An element name made from a column title (tools.md §3): trimmed, every character not allowed in a name
 * becomes `_`, a `_` goes in front when the name cannot start that way or starts with `xml`, and it is cut at
 * 100 characters. An empty title gives ''.
 */
export function elementNameOf(title: string): string {
  const chars = [...title.trim()].map((ch) => (NAME_CHAR.test(ch) ? ch : '_'));
  if (chars.length === 0) return '';
  const name = chars.join('');
  const prefixed = !START_CHAR.test(chars[0]) || /^xml/i.test(name) ? '_' + name : name;
  return clipChars(prefixed, MAX_NAME_CHARS);
}

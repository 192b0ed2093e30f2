// GitHub Flavored Markdown pipe tables (tools.md excel-to-markdown): a header row, a delimiter row and one line
// per row, leading and trailing pipes, cells separated by ` | ` with no padding. Cells are display text (the
// caller's), trimmed, escaped so that a GFM renderer shows them as they are and the Markdown reader
// (markdown/read.ts) gives the same text back: `|` → `\|`, a line break → `<br>`, a `<` that could open a tag
// or an autolink → `&lt;`, an `&` that could start an entity → `&amp;`, and the characters that would start
// inline markup (`\`, `*`, `` ` ``, `~`, `[`, `]`, and `_` at a word's edge) backslash-escaped.
import { writtenOf } from '../batch.ts';
import type { Row, Written } from '../model.ts';

export interface MarkdownSection {
  /** Shown as a `## name` heading before the table when the document has headings. */
  name: string;
  titles: string[];
  /** Display text of every cell, each row as wide as the titles. */
  rows: string[][];
  /** Per column: right-aligned (`---:`). */
  right: boolean[];
}

const ENTITY_LIKE = /&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{0,31};)/g;

/** A cell's text as a GFM table cell: trimmed and escaped. */
export function markdownCell(text: string): string {
  const t = text.trim();
  if (t === '') return '';
  return t
    .replace(/[\\*`~[\]]/g, '\\$&')
    .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_')
    .replace(ENTITY_LIKE, '&amp;')
    .replace(/<(?=[A-Za-z/!?])/g, '&lt;')
    .replace(/\|/g, '\\|')
    .replace(/\r\n|\r|\n/g, '<br>');
}

/** Heading text: escaped as a cell, a closing `#` sequence kept as text. */
function headingText(name: string): string {
  const text = markdownCell(name).replace(/<br>/g, ' ').replace(/\\\|/g, '|');
  return text.replace(/#+$/, (m) => '\\' + m);
}

const line = (cells: string[]) => (cells.length === 0 ? '|' : `| ${cells.join(' | ')} |`);

/** One table's lines. */
export function markdownTable(s: MarkdownSection): string[] {
  const out = [line(s.titles.map(markdownCell)), line(s.right.map((r) => (r ? '---:' : '---')))];
  for (const row of s.rows) out.push(line(row.map(markdownCell)));
  return out;
}

/** The document: one table, or a `## name` section per table (headings). UTF-8, LF, ending with a newline. */
export function writeMarkdown(sections: MarkdownSection[], o: { headings: boolean }): Written {
  const lines: string[] = [];
  sections.forEach((s, i) => {
    if (o.headings) lines.push(...(i > 0 ? [''] : []), `## ${headingText(s.name)}`, '');
    lines.push(...markdownTable(s));
  });
  const bytes = new TextEncoder().encode(lines.join('\n') + '\n');
  const first = sections[0];
  return writtenOf(bytes, { name: first?.name ?? '', header: first?.titles ?? null, width: first?.titles.length ?? 0 }, (first?.rows ?? []) as Row[]);
}

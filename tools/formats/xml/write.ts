// A table as XML (excel-to-xml): a root element holding one element per row, each holding one element per
// column, named after the titles (tools.md §3). Values are in machine form (§2.6); characters XML 1.0 cannot
// hold are removed and counted. UTF-8 with its declaration, no DOCTYPE; LF line ends when pretty.
import { writtenOf } from '../batch.ts';
import { csvText } from '../csv/write.ts';
import { clipChars, elementNameOf, escapeXmlText, MAX_NAME_CHARS, XmlCharFilter } from '../markup.ts';
import { columnLetter, type Table, type TableHead, type Written } from '../model.ts';
import { uniqueNames } from '../table/names.ts';

export interface XmlOptions {
  root: string;
  row: string;
  /** One element name per column (elementNames). */
  names: string[];
  pretty: boolean;
}

/** The XML of a table read whole, and what it had to remove (the characters, the first cell that lost some). */
export function writeXml(table: Table, o: XmlOptions): Written {
  const rows = table.rows();
  const { root, row, names } = o;
  const chars = new XmlCharFilter(table.name);
  const [nl, ind1, ind2] = o.pretty ? ['\n', '  ', '    '] : ['', '', ''];
  const parts: string[] = ['<?xml version="1.0" encoding="UTF-8"?>', nl];
  if (rows.length === 0) parts.push(`<${root}/>`, nl);
  else {
    parts.push(`<${root}>`, nl);
    rows.forEach((cells, r) => {
      parts.push(ind1, `<${row}>`, nl);
      names.forEach((name, c) => {
        const text = chars.clean(csvText(cells[c] ?? null), () => `${columnLetter(c)}${r + 2}`);
        parts.push(ind2, text === '' ? `<${name}/>` : `<${name}>${escapeXmlText(text)}</${name}>`, nl);
      });
      parts.push(ind1, `</${row}>`, nl);
    });
    parts.push(`</${root}>`, nl);
  }
  const bytes = new TextEncoder().encode(parts.join(''));
  return { ...writtenOf(bytes, { name: table.name, header: names, width: table.width }, rows), removed: chars.removed() };
}

/**
 * One element name per column, made from its title (tools.md §3), unique (`_2`, `_3`…), and the titles that had
 * to change, listed for a message. `generated(n)` names a column without a title.
 */
export function elementNames(table: Pick<TableHead, 'header' | 'width'>, generated: (n: number) => string): { list: string[]; changed: string } {
  const titles = Array.from({ length: table.width }, (_, i) => table.header?.[i] ?? '');
  const made = titles.map((t, i) => elementNameOf(t) || generated(i + 1));
  const suffix = (name: string, n: number) => `${clipChars(name, MAX_NAME_CHARS - String(n).length - 1)}_${n}`;
  const list = uniqueNames(made, suffix).names;
  const changed = titles.flatMap((t, i) => (t === list[i] ? [] : [`"${clipChars(t, 40)}" → ${list[i]}`]));
  const shown = changed.slice(0, 8).join(', ');
  return { list, changed: changed.length > 8 ? `${shown} (+${changed.length - 8})` : shown };
}

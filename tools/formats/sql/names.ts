// Table and column names of excel-to-sql. Both are always quoted in the script, so a column keeps its title
// (spaces, accents, quotes and all) with only what no engine takes changed:
// - columns: control characters (line breaks included) become a space, outer spaces go, characters the
//   dialect refuses become `_`, the name is cut to the dialect's limit, an empty title becomes `Columna N`,
//   and a name already used ignoring case (as MySQL and SQL Server compare them) gets `_2`, `_3`…;
// - the table: letters, digits and `_` only. Other characters at its ends are removed and each run of them
//   inside becomes one `_` (`Ventas 2024/25` → `Ventas_2024_25`); a name starting with a digit gets a `_` in
//   front; it is cut to the dialect's limit; an empty result is `datos`. A dot is no schema separator.
import { namedTitles, uniqueNames } from '../table/names.ts';
import type { TableHead } from '../model.ts';
import type { Dialect } from './dialects.ts';

export const DEFAULT_TABLE = 'datos';

/** The longest start of `name` (whole characters) that fits the dialect's limit together with `suffix`. */
function fit(name: string, d: Dialect, suffix = ''): string {
  if (d.nameLength(name + suffix) <= d.maxName) return name + suffix;
  const chars = [...name];
  while (chars.length > 0 && d.nameLength(chars.join('') + suffix) > d.maxName) chars.pop();
  return chars.join('').trimEnd() + suffix;
}

const NOT_NAME = /[^\p{L}\p{M}\p{Nd}_]+/gu;

export function tableName(raw: string, d: Dialect): string {
  let s = raw.normalize('NFC').replace(/^[^\p{L}\p{M}\p{Nd}_]+|[^\p{L}\p{M}\p{Nd}_]+$/gu, '').replace(NOT_NAME, '_');
  if (d.forbidden) s = s.replace(d.forbidden, '_');
  if (/^[\p{Nd}\p{M}]/u.test(s)) s = '_' + s;
  s = fit(s, d);
  return s === '' ? DEFAULT_TABLE : s;
}

export interface ColumnNames {
  names: string[];
  /** Titles that changed, with their new name, in column order. */
  changes: { from: string; to: string }[];
}

export function columnNames(table: Pick<TableHead, 'header' | 'width'>, d: Dialect, generated: (n: number) => string): ColumnNames {
  const titles = namedTitles(table, generated);
  const cleaned = titles.map((title, i) => {
    let s = title.replace(/\p{Cc}+/gu, ' ');
    if (d.forbidden) s = s.replace(d.forbidden, '_');
    s = fit(s.trim(), d).trimEnd();
    return s === '' ? generated(i + 1) : s;
  });
  const { names } = uniqueNames(cleaned, (name, n) => fit(name, d, `_${n}`), (s) => s.toLowerCase());
  const changes: ColumnNames['changes'] = [];
  names.forEach((to, i) => {
    const from = table.header?.[i] ?? '';
    if (from !== to) changes.push({ from, to });
  });
  return { names, changes };
}

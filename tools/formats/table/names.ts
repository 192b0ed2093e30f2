// Titles where a result needs a name for every column (JSON keys, SQL columns, XML elements): a missing or
// empty title is generated from its position (`Columna 3`), and a repeated one gets a suffix so that no
// column overwrites another (tools.md §2.3).
import type { TableHead } from '../model.ts';

/** One title per column of the table: its own, or `column(n)` (1-based) when it has none. */
export function namedTitles(table: Pick<TableHead, 'header' | 'width'>, column: (n: number) => string): string[] {
  const width = table.width;
  return Array.from({ length: width }, (_, i) => {
    const title = table.header?.[i]?.trim() ?? '';
    return title === '' ? column(i + 1) : (table.header![i] as string);
  });
}

/**
 * Makes names unique in order of appearance: the second `x` becomes `suffix('x', 2)`, and so on, skipping any
 * name already taken. `key` decides which names collide (e.g. ignoring case for SQL).
 * Returns the names and the original names that had to change.
 */
export function uniqueNames(
  names: string[],
  suffix: (name: string, n: number) => string,
  key: (name: string) => string = (s) => s,
): { names: string[]; renamed: string[] } {
  const taken = new Set(names.map(key));
  const seen = new Set<string>();
  const renamed: string[] = [];
  const out = names.map((name) => {
    if (!seen.has(key(name))) {
      seen.add(key(name));
      return name;
    }
    let n = 2;
    let candidate = suffix(name, n);
    while (seen.has(key(candidate)) || taken.has(key(candidate))) candidate = suffix(name, ++n);
    seen.add(key(candidate));
    renamed.push(name);
    return candidate;
  });
  return { names: out, renamed };
}

/**
 * Titles a tool creates or brings beside a table's own (tools.md §2.3): each kept, or numbered ` (2)`, ` (3)`…
 * when a title of `taken` or an earlier one of `made` has it, ignoring case. The table's own titles never
 * change; an empty title stays empty.
 */
export function titlesBeside(taken: readonly string[], made: readonly string[]): string[] {
  const key = (s: string) => s.toLocaleLowerCase('und');
  const used = new Set(taken.map(key));
  return made.map((title) => {
    let name = title;
    for (let n = 2; title !== '' && used.has(key(name)); n++) name = `${title} (${n})`;
    used.add(key(name));
    return name;
  });
}

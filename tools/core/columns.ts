// Column references and lists (tools.md §2.4), one implementation for every tool, and the same rules for
// sheet and table lists. A reference is resolved against a table's titles in this order: (1) a title equal to
// the value; (2) a value of digits only, as a 1-based position; (3) a title equal ignoring case and outer
// spaces. No match, or several titles at the deciding step, is `invalid_option` naming the option and
// listing the titles. With no titles (`has-header=false`) only positions are valid.
import * as v from 'valibot';
import { listText, titleKey } from '../formats/index.ts';
import { ToolError } from './errors.ts';

/** How many titles an error message lists. */
const TITLES_SHOWN = 50;
const MAX_REF_CHARS = 255;

/** One column: its title, or its position counting from 1 (digits, or a JSON integer). */
export const columnRef = v.union([v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_REF_CHARS)), v.pipe(v.number(), v.integer(), v.minValue(1))]);

/** An optional column reference: empty (the default) means the tool's own choice. */
export const optionalColumnRef = v.optional(v.union([v.pipe(v.string(), v.maxLength(MAX_REF_CHARS)), v.pipe(v.number(), v.integer(), v.minValue(1))]), '');

/**
 * A list of references: a comma-separated string (spaces around an item ignored) or a JSON array of strings
 * and integers (a title that holds a comma is given this way); in multipart, the field may be repeated.
 * Empty ('' or []) is the default; what it means is the tool's to say. Bounds on the count are checked when
 * the list is resolved, since a string's count is known only then.
 */
export const columnList = v.optional(
  v.union([v.pipe(v.string(), v.maxLength(20_000)), v.pipe(v.array(v.union([v.pipe(v.string(), v.maxLength(MAX_REF_CHARS)), v.pipe(v.number(), v.integer(), v.minValue(1))])), v.maxLength(1000))]),
  '',
);

export type ColumnRef = string | number;
export type ColumnListValue = string | readonly ColumnRef[];

/** The items of a list as given: a string split at commas, each item trimmed; an array as it is. */
export function listItems(value: ColumnListValue | undefined): ColumnRef[] {
  if (value === undefined) return [];
  if (typeof value !== 'string') return [...value];
  if (value.trim() === '') return [];
  return value.split(',').map((s) => s.trim());
}

interface Translator {
  t(key: string, params?: Record<string, string | number>): string;
}

/** What references are resolved against: a table's titles (null when it has none) and its width. */
export interface Columns {
  header: readonly string[] | null;
  width: number;
}

const isPosition = (s: string) => /^\d+$/.test(s);

function invalid(ctx: Translator, option: string, key: string, params: Record<string, string | number>): ToolError {
  return new ToolError('invalid_option', { option, messageKey: `error-details.${key}`, params: { option, ...params } });
}

/** The titles a message lists: each title, or its position where it is empty. */
function titlesText(names: readonly string[] | null, count: number, ctx: Translator): string {
  if (!names || names.length === 0) return ctx.t('error-details.positions-only', { max: count });
  return listText(
    names.map((t, i) => (t.trim() === '' ? `${i + 1}` : t)),
    TITLES_SHOWN,
  );
}

/**
 * Resolves a reference against `names` (titles, sheet names…) of `count` items: the 0-based index. `kind`
 * words the message (`column`, `sheet`, `table`).
 */
export function resolveName(names: readonly string[] | null, count: number, ref: ColumnRef, option: string, ctx: Translator, kind = 'column'): number {
  const text = typeof ref === 'number' ? String(ref) : ref;
  const fail = (key: string) => {
    const listed = titlesText(names, count, ctx);
    // `expected` keeps the error shape every invalid_option has (interface.md §5) for clients that read params.
    const expected = kind === 'column' ? ctx.t('messages.column_expected', { titles: listed, max: count }) : listed;
    return invalid(ctx, option, `${kind}-${key}`, { received: text.slice(0, 100), names: listed, max: count, expected });
  };
  if (typeof ref === 'number') {
    if (ref >= 1 && ref <= count) return ref - 1;
    throw fail('unknown');
  }
  if (names && names.length > 0) {
    const exact = indexesOf(names, (n) => n === ref);
    if (exact.length === 1) return exact[0];
    if (exact.length > 1) throw fail('ambiguous');
  }
  if (isPosition(ref.trim()) && ref.trim() === ref) {
    const n = Number(ref);
    if (n >= 1 && n <= count) return n - 1;
  }
  if (names && names.length > 0) {
    const key = titleKey(ref);
    const loose = indexesOf(names, (n) => titleKey(n) === key);
    if (loose.length === 1) return loose[0];
    if (loose.length > 1) throw fail('ambiguous');
  }
  throw fail('unknown');
}

/**
 * Sheets of a list (extract-sheets): names or positions as resolveName takes them, and ranges of positions
 * (`2-4`) unless a sheet is named so; the order given, none twice.
 */
export function resolveSheets(names: readonly string[], value: ColumnListValue | undefined, option: string, ctx: Translator, bounds: { min?: number; max?: number } = {}): number[] {
  const expanded: ColumnRef[] = [];
  for (const item of listItems(value)) {
    const range = typeof item === 'string' && !names.includes(item) ? /^(\d+)-(\d+)$/.exec(item) : null;
    if (!range) {
      expanded.push(item);
      continue;
    }
    const [from, to] = [Number(range[1]), Number(range[2])];
    if (from < 1 || to > names.length || from > to) throw invalid(ctx, option, 'sheet-range', { received: item, max: names.length, names: titlesText(names, names.length, ctx) });
    for (let n = from; n <= to; n++) expanded.push(n);
  }
  return resolveList(names, names.length, expanded, option, ctx, bounds, 'sheet');
}

function indexesOf(names: readonly string[], match: (n: string) => boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < names.length; i++) if (match(names[i])) out.push(i);
  return out;
}

/** One column of a table (§2.4): its 0-based index. */
export function resolveColumn(table: Columns, ref: ColumnRef, option: string, ctx: Translator): number {
  return resolveName(table.header, table.width, ref, option, ctx, 'column');
}

/**
 * The columns of a list, in the order given: each resolved, none twice, their count within `min`..`max`
 * (an empty list is 0 items: the tool decides what it means, with `min: 0`).
 */
export function resolveColumns(table: Columns, value: ColumnListValue | undefined, option: string, ctx: Translator, bounds: { min?: number; max?: number } = {}): number[] {
  return resolveList(table.header, table.width, listItems(value), option, ctx, bounds, 'column');
}

/** resolveColumns for any names (sheets, tables): `kind` words the messages. */
export function resolveList(
  names: readonly string[] | null,
  count: number,
  items: readonly ColumnRef[],
  option: string,
  ctx: Translator,
  { min = 0, max = Infinity }: { min?: number; max?: number },
  kind: string,
): number[] {
  if (items.length < min || items.length > max) {
    throw invalid(ctx, option, 'list-count', { min, max: Number.isFinite(max) ? max : items.length, found: items.length });
  }
  const seen = new Map<number, ColumnRef>();
  const out: number[] = [];
  for (const item of items) {
    if (item === '') throw invalid(ctx, option, 'list-empty-item', {});
    const i = resolveName(names, count, item, option, ctx, kind);
    if (seen.has(i)) throw invalid(ctx, option, `${kind}-repeated`, { received: String(item).slice(0, 100), first: String(seen.get(i)).slice(0, 100) });
    seen.set(i, item);
    out.push(i);
  }
  return out;
}

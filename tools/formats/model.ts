// The table model every tool shares: rows are arrays of typed cells, never objects keyed by titles.

/**
 * A cell keeps its type: text stays text (leading zeros and all), numbers are numbers, booleans are
 * booleans, dates are Date objects in UTC (a date without time is midnight UTC), empty is null.
 */
export type Cell = string | number | boolean | Date | null;
export type Row = Cell[];

export interface Table {
  /** Sheet name, or the file's base name for formats without sheets. */
  name: string;
  /** Column titles when the first row is a header; null when the table has none. */
  header: string[] | null;
  rows: Row[];
}

/** Number of columns: the widest of the header and every row. */
export function widthOf(table: Table): number {
  let w = table.header?.length ?? 0;
  for (const r of table.rows) if (r.length > w) w = r.length;
  return w;
}

/** Spreadsheet column letters for a 0-based index: 0 → A, 26 → AA. */
export function columnLetter(index: number): string {
  let s = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** Text of a cell as a title. */
export function cellText(c: Cell): string {
  if (c === null) return '';
  if (c instanceof Date) return isoDate(c);
  return String(c);
}

/** ISO 8601 text of a date: `yyyy-mm-dd`, with `Thh:mm:ss` only when it has a time of day. */
export function isoDate(d: Date): string {
  const iso = d.toISOString();
  if (d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0 && d.getUTCMilliseconds() === 0) return iso.slice(0, 10);
  return d.getUTCMilliseconds() === 0 ? iso.slice(0, 19) : iso.slice(0, 23);
}

/** Splits a table's first row off as its header. */
export function withHeader(name: string, rows: Row[], hasHeader: boolean): Table {
  if (!hasHeader) return { name, header: null, rows };
  const [first = [], ...rest] = rows;
  return { name, header: first.map(cellText), rows: rest };
}

/** Key under which titles are matched: case and outer spaces do not count. */
export function titleKey(title: string): string {
  return title.trim().toLocaleLowerCase('und');
}

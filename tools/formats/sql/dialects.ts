// What changes from one SQL dialect to another: identifier quotes and length limits, type names, and how
// text, dates and booleans are written. Each choice is one an unconfigured engine reads back exactly:
// - standard: `"x"`, 128 characters; VARCHAR(n), CLOB past 4,000; dates as ISO text literals ('2024-01-15',
//   '2024-01-15 13:45:00'), which SQL engines cast into DATE and TIMESTAMP columns and SQLite, which has no
//   DATE literal, keeps as that text; TRUE/FALSE.
// - postgres: `"x"`, 63 bytes; VARCHAR(n), TEXT past 4,000; DATE '…' and TIMESTAMP '…'; text holding a
//   backslash or a CR goes in E'…' (`\\`, `\r`), so it reads the same whatever `standard_conforming_strings` says.
// - mysql (MySQL, MariaDB): backticks, 64 characters, no character beyond U+FFFF in a name (MySQL refuses
//   them); `\` is an escape character in MySQL strings by default, so it is doubled (a server running with
//   NO_BACKSLASH_ESCAPES would keep both); BOOLEAN (TINYINT(1)) with TRUE/FALSE; the script starts with
//   SET NAMES utf8mb4 and the table is utf8mb4, so accents and emoji survive any client default.
// - sqlserver: `[x]`, 128 characters; NVARCHAR(n), NVARCHAR(MAX) past 4,000; N'…' for Unicode; BIT 1/0;
//   DATETIME2 with 'yyyy-mm-ddThh:mm:ss', the form SQL Server reads the same under every language setting.
// Line breaks: the sqlite3 and mysql clients drop a CR that ends a line, so a CR LF inside a text is never
// written as it is: mysql and postgres escape the CR, standard and sqlserver split the literal between CR and
// LF into two joined with `||` / `+`. sqlserver splits it too where it would break otherwise: before a line
// that is only `GO` (sqlcmd and SSMS end the batch there) and after a backslash that ends a line (T-SQL
// removes both, as a line continuation).
import { csvText } from '../csv/write.ts';
import type { Cell } from '../model.ts';
import { numberLiteral, writtenAsText, type ColumnType } from './column-types.ts';

export const DIALECTS = ['standard', 'mysql', 'sqlserver', 'postgres'] as const;
export type DialectId = (typeof DIALECTS)[number];

export interface Dialect {
  quote(name: string): string;
  /** Length of a name as the engine counts it against `maxName`. */
  nameLength(name: string): number;
  maxName: number;
  /** Characters a name may not hold even when quoted. */
  forbidden: RegExp | null;
  types: TypeNames;
  text(s: string): string;
  date(d: Date, type: ColumnType): string;
  boolean(b: boolean): string;
  /** Statements before the first CREATE TABLE or INSERT. */
  preamble: string[];
  /** Table options after the closing parenthesis of CREATE TABLE. */
  tableSuffix: string;
  /** MySQL: bytes every VARCHAR of a row may take together; past it the widest become TEXT. */
  varcharBudget?: number;
}

interface TypeNames {
  integer: string;
  decimal: string;
  double: string;
  boolean: string;
  date: string;
  /** `fraction`: some value has milliseconds. */
  timestamp(fraction: boolean): string;
  time(fraction: boolean): string;
  text(t: { length: number; bytes: number }): string;
}

export function typeName(t: ColumnType, d: Dialect): string {
  const n = d.types;
  switch (t.kind) {
    case 'integer':
      return t.big ? 'BIGINT' : n.integer;
    case 'decimal':
      return `${n.decimal}(${t.precision},${t.scale})`;
    case 'double':
      return n.double;
    case 'boolean':
      return n.boolean;
    case 'date':
      return n.date;
    case 'timestamp':
      return n.timestamp(t.fraction);
    case 'time':
      return n.time(t.fraction);
    case 'text':
      return n.text(t);
  }
}

// MySQL counts a VARCHAR(n) of utf8mb4 as 4n + 2 bytes of its 65,535-byte row, and any other column as at
// most 17 (DECIMAL(38), TEXT pointers); 70 VARCHAR(255) columns would not fit, 64 do.
const MYSQL_ROW = 65_535;
const MYSQL_OTHER_COLUMN = 17;
const varcharBytes = (length: number) => 4 * varcharLength(length) + 2;

/** Type names of a table's columns, within the dialect's row size. */
export function typeNames(types: ColumnType[], d: Dialect): string[] {
  const names = types.map((t) => typeName(t, d));
  if (d.varcharBudget === undefined) return names;
  const varchars = types.flatMap((t, i) => (t.kind === 'text' && names[i].startsWith('VARCHAR') ? [{ i, length: t.length }] : []));
  let total = varchars.reduce((sum, c) => sum + varcharBytes(c.length), MYSQL_OTHER_COLUMN * (types.length - varchars.length));
  for (const c of varchars.sort((a, b) => b.length - a.length || a.i - b.i)) {
    if (total <= d.varcharBudget) break;
    names[c.i] = 'TEXT';
    total += MYSQL_OTHER_COLUMN - varcharBytes(c.length);
  }
  return names;
}

const encoder = new TextEncoder();
const codePoints = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

// Text sizes: VARCHAR(n) up to 4000 (SQL Server's NVARCHAR bound, also sensible elsewhere); n is the longest
// value rounded up to one of these steps, so that a slightly longer value still fits when rows are added.
const STEPS = [10, 20, 50, 100, 255, 500, 1000, 2000, 4000];
export const varcharLength = (length: number) => STEPS.find((s) => s >= length) ?? Infinity;
const varchar = (name: string, length: number, max: number, longer: string) => {
  const n = varcharLength(length);
  return n <= max ? `${name}(${n})` : longer;
};

const iso = (d: Date) => d.toISOString();
const dayOf = (d: Date) => iso(d).slice(0, 10);
const timeOf = (d: Date) => iso(d).slice(11, d.getUTCMilliseconds() === 0 ? 19 : 23);

/** Date, timestamp or time text of a value in a column of `type`, with `sep` between day and time. */
function dateText(d: Date, type: ColumnType, sep: string): string {
  if (type.kind === 'time') return timeOf(d);
  if (type.kind === 'date') return dayOf(d);
  return `${dayOf(d)}${sep}${timeOf(d)}`;
}

const doubled = (s: string, q: string) => s.replaceAll(q, q + q);
// Backslash escapes, for postgres E'…' and MySQL strings: the clients drop a CR that ends a line.
const PG_ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "''", '\r': '\\r' };

const standard: Dialect = {
  quote: (name) => `"${doubled(name, '"')}"`,
  nameLength: codePoints,
  maxName: 128,
  forbidden: /\u0000/g,
  types: {
    integer: 'INTEGER',
    decimal: 'DECIMAL',
    double: 'DOUBLE PRECISION',
    boolean: 'BOOLEAN',
    date: 'DATE',
    timestamp: () => 'TIMESTAMP',
    time: () => 'TIME',
    text: (t) => varchar('VARCHAR', t.length, 4000, 'CLOB'),
  },
  text: (s) => `'${doubled(s, "'").replaceAll('\r\n', "\r' || '\n")}'`,
  date: (d, t) => `'${dateText(d, t, ' ')}'`,
  boolean: (b) => (b ? 'TRUE' : 'FALSE'),
  preamble: [],
  tableSuffix: '',
};

const postgres: Dialect = {
  ...standard,
  nameLength: (name) => encoder.encode(name).length,
  maxName: 63,
  types: { ...standard.types, decimal: 'NUMERIC', text: (t) => varchar('VARCHAR', t.length, 4000, 'TEXT') },
  text: (s) => (/[\\\r]/.test(s) ? `E'${s.replace(/[\\'\r]/g, (c) => PG_ESCAPES[c])}'` : `'${doubled(s, "'")}'`),
  date: (d, t) => `${t.kind === 'time' ? 'TIME' : t.kind === 'date' ? 'DATE' : 'TIMESTAMP'} '${dateText(d, t, ' ')}'`,
};

const MYSQL_ESCAPES: Record<string, string> = { ...PG_ESCAPES, '\u0000': '\\0', '\u001a': '\\Z' };

const mysql: Dialect = {
  quote: (name) => `\`${doubled(name, '`')}\``,
  nameLength: codePoints,
  maxName: 64,
  forbidden: /[\u0000\u{10000}-\u{10FFFF}]/gu,
  types: {
    integer: 'INT',
    decimal: 'DECIMAL',
    double: 'DOUBLE',
    boolean: 'BOOLEAN',
    date: 'DATE',
    timestamp: (fraction) => (fraction ? 'DATETIME(3)' : 'DATETIME'),
    time: (fraction) => (fraction ? 'TIME(3)' : 'TIME'),
    // Past 255 characters: TEXT (65,535 bytes) or MEDIUMTEXT, which do not count against the row size.
    text: (t) => varchar('VARCHAR', t.length, 255, t.bytes <= 65_535 ? 'TEXT' : 'MEDIUMTEXT'),
  },
  text: (s) => `'${s.replace(/[\\'\r\u0000\u001a]/g, (c) => MYSQL_ESCAPES[c])}'`,
  date: (d, t) => `'${dateText(d, t, ' ')}'`,
  boolean: (b) => (b ? 'TRUE' : 'FALSE'),
  preamble: ['SET NAMES utf8mb4;'],
  tableSuffix: ' DEFAULT CHARSET=utf8mb4',
  varcharBudget: MYSQL_ROW - 64,
};

// A line of a literal that sqlcmd would take for a batch separator (`GO`, `go 2`).
const GO_LINE = /(\n[ \t]*)(g)(o(?:[ \t]+\d+)?[ \t]*)(?=\r?\n|$)/gi;

const sqlserver: Dialect = {
  quote: (name) => `[${doubled(name, ']')}]`,
  nameLength: (name) => name.length,
  maxName: 128,
  forbidden: /\u0000/g,
  types: {
    integer: 'INT',
    decimal: 'DECIMAL',
    double: 'FLOAT',
    boolean: 'BIT',
    date: 'DATE',
    timestamp: (fraction) => `DATETIME2(${fraction ? 3 : 0})`,
    time: (fraction) => `TIME(${fraction ? 3 : 0})`,
    text: (t) => varchar('NVARCHAR', t.length, 4000, 'NVARCHAR(MAX)'),
  },
  text: (s) =>
    `N'${doubled(s, "'")
      .replaceAll('\r\n', "\r' + N'\n")
      .replace(/\\(?=[\r\n])/g, "\\' + N'")
      .replace(GO_LINE, "$1$2' + N'$3")}'`,
  date: (d, t) => `'${dateText(d, t, 'T')}'`,
  boolean: (b) => (b ? '1' : '0'),
  preamble: [],
  tableSuffix: '',
};

export const DIALECT: Record<DialectId, Dialect> = { standard, mysql, sqlserver, postgres };

/**
 * The SQL literal of a cell in a column of `type`. `clean` takes U+0000 out of text first (removed.ts): no
 * dialect but mysql can write one, and the sqlite3 and psql clients end the line at a raw one, so that the
 * rest of the literal, and the next cell, were read as SQL.
 */
export function literal(c: Cell, type: ColumnType, d: Dialect, clean: (s: string) => string = (s) => s): string {
  if (c === null) return 'NULL';
  if (writtenAsText(c, type)) return d.text(clean(csvText(c)));
  if (typeof c === 'number') return numberLiteral(c);
  if (typeof c === 'boolean') return d.boolean(c);
  if (c instanceof Date) return d.date(c, type);
  return d.text(clean(c));
}

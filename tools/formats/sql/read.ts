// Reads the CREATE TABLE and INSERT … VALUES statements of a SQL script into one sheet per table, in order of
// first appearance (sql-to-excel; tools.md). The script is tokenized (lexer.ts), never executed. Rules:
// - the dialect decides the quoting; `auto` takes mysql when a backtick identifier appears, sqlserver for a
//   `[bracket]` or an N'…', postgres for an E'…', else standard (the first of these in that order of weight);
// - CREATE TABLE [IF NOT EXISTS] gives the columns, their order and declared types (constraints ignored);
//   INSERT [INTO] name [(columns)] VALUES (…), (…) gives one row per tuple; INSERT columns CREATE TABLE lacks are
//   appended (warning); a trailing ON DUPLICATE KEY / ON CONFLICT / RETURNING is ignored (warning);
// - every other statement is ignored, one warning per kind with its count; COPY's data lines are passed over;
// - values: strings are text (ISO dates in DATE/TIME/DATETIME/TIMESTAMP columns, and DATE/TIME/TIMESTAMP '…'
//   literals, are dates); strings joined by `||` or `+` are one text (excel-to-sql splits CR LF that way);
//   numbers are numbers when the double reads back as the literal, else text (warning); TRUE/FALSE, and 0/1
//   in BOOLEAN/BOOL/BIT/TINYINT(1) columns, are booleans; NULL is empty; X'…', 0x…, calls and any other
//   expression are their SQL text (warning);
// - an unclosed string, identifier or comment, a tuple of the wrong width, or parentheses nested past 256 levels
//   are `invalid_file` with the line; a script without CREATE TABLE or INSERT … VALUES is `invalid_file`.
import type { BookReader, SheetRead } from '../book.ts';
import { decodeAs, refuseBinary, textKind } from '../csv/read.ts';
import { FormatError } from '../errors.ts';
import { sameDecimal } from '../json/read.ts';
import type { Cell, FormatContext, Row, SourceFile, Table, TextEncodingName } from '../model.ts';
import { DIALECTS, type DialectId } from './dialects.ts';
import { Lexer, Script, Unclosed, type StringPrefix, type TokenKind } from './lexer.ts';
import { DATE, FALSE, FLAG, isoDate, NULL, NUMBER, numberForm, PLAIN_NUMBER, SqlRows, SqlValues, TEXT, TIME, TRUE } from './values.ts';

export const SQL_DIALECTS = ['auto', ...DIALECTS] as const;
export type SqlDialectOption = (typeof SQL_DIALECTS)[number];
export const SQL_MAX_DEPTH = 256;

const DATE_TYPES = new Set(['DATE', 'TIME', 'DATETIME', 'DATETIME2', 'SMALLDATETIME', 'TIMESTAMP', 'TIMESTAMPTZ']);
const BOOLEAN_TYPES = new Set(['BOOLEAN', 'BOOL', 'BIT']);
// Words that start a table constraint in CREATE TABLE, not a column.
const TABLE_CONSTRAINTS = new Set(['CONSTRAINT', 'PRIMARY', 'FOREIGN', 'UNIQUE', 'CHECK', 'KEY', 'INDEX', 'FULLTEXT', 'SPATIAL', 'EXCLUDE', 'PERIOD', 'LIKE']);
const INSERT_MODIFIERS = new Set(['LOW_PRIORITY', 'DELAYED', 'HIGH_PRIORITY', 'IGNORE']);
const MAX_KINDS = 20;

interface SqlTable {
  /** The name without schema, as written (unquoted). */
  name: string;
  /** With its schema, when it has one: `public.ventas`. */
  qualified: string;
  columns: string[];
  /** Declared types, upper case: the first word, and `TINYINT(1)` whole. */
  types: string[];
  /** Columns CREATE TABLE declared (INSERT lists may append more). */
  declared: number;
  values: SqlValues;
  /** Cells with a value. */
  cells: number;
}

/** A token of a value, kept to decide what the value is. */
type Token = { kind: TokenKind; value: string; prefix: StringPrefix };
const MAX_VALUE_TOKENS = 64;
const TYPED = new Set(['DATE', 'TIME', 'TIMESTAMP']);
const TEXT_PREFIXES = new Set<StringPrefix>(['', 'N', 'E', '$']);

export interface SqlReadOptions {
  dialect: SqlDialectOption;
  maxCells: number;
  ctx: FormatContext;
  file: string;
  /** Every value read token by token, none as a plain literal: the tests compare the two ways. */
  tokens?: boolean;
}

export interface SqlScript {
  dialect: DialectId;
  tables: SqlTable[];
}

/** The dialect `auto` chooses: the heaviest mark found in a scan with standard quoting. */
export function detectDialect(source: string | Script): DialectId {
  const script = typeof source === 'string' ? new Script(source) : source;
  const text = script.text;
  const lex = new Lexer(script, 'standard');
  let found: DialectId = 'standard';
  try {
    for (;;) {
      const k = lex.next();
      if (k === 'eof') break;
      if (k === 'ident' && text.charCodeAt(lex.start) === 96) return 'mysql';
      if ((k === 'punct' && lex.value === '[') || (k === 'string' && lex.prefix === 'N')) found = 'sqlserver';
      else if (k === 'string' && lex.prefix === 'E' && found === 'standard') found = 'postgres';
    }
  } catch (err) {
    // A mysql script's backslash escapes can leave standard quoting unbalanced: what was found so far decides.
    if (!(err instanceof Unclosed)) throw err;
  }
  return found;
}

/** A table's columns: the widest of its titles and rows. */
function widthOf(t: SqlTable): number {
  let width = t.columns.length;
  for (let r = 0; r < t.values.rows; r++) width = Math.max(width, t.values.lengthOf(r));
  return width;
}

/** A table's rows as cells, each as wide as the table. */
export function rowsOf(t: SqlTable): Row[] {
  return new SqlRows(t.name, t.columns, widthOf(t), t.values).rows();
}

const isFlag = (type: string) => BOOLEAN_TYPES.has(type) || type === 'TINYINT(1)';

/** The code of a plain word: NULL, TRUE, FALSE, or -1 for any other (an expression). */
function wordCode(t: string, s: number, e: number): number {
  return wordIs(t, s, e, 'null') ? NULL : wordIs(t, s, e, 'true') ? TRUE : wordIs(t, s, e, 'false') ? FALSE : -1;
}

/** [s, e) of t is the word `lower` in any case. */
function wordIs(t: string, s: number, e: number, lower: string): boolean {
  if (e - s !== lower.length) return false;
  // `| 32` lowers an ASCII letter and makes nothing else one.
  for (let i = 0; i < lower.length; i++) if ((t.charCodeAt(s + i) | 32) !== lower.charCodeAt(i)) return false;
  return true;
}

const lineOf = (text: string, at: number) => {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
};

/** Parses a whole script: its text, or its UTF-8 bytes. */
export function readSqlScript(source: string | Uint8Array | Script, o: SqlReadOptions): SqlScript {
  const script = source instanceof Script ? source : new Script(source);
  // The Latin-1 view of the bytes (lexer.ts Script): offsets are byte offsets, and what is kept is decoded.
  const text = script.text;
  // `auto`: only mysql needs knowing first (its backslashes change where strings end), and only a file with a
  // backtick somewhere can be mysql; the others are read as one, and told apart by the marks met on the way.
  const mysql = o.dialect === 'auto' && text.includes('`') && detectDialect(script) === 'mysql';
  const lex = new Lexer(script, o.dialect === 'auto' && !mysql ? 'auto' : o.dialect === 'auto' ? 'mysql' : o.dialect);
  const tables = new Map<string, SqlTable>();
  const ignored = new Map<string, number>();
  let cells = 0;
  let inexact = { count: 0, first: '' };
  let expressions = { count: 0, first: '' };
  let trailing = { count: 0, line: 0 };
  let appended = { count: 0, first: '' };
  let found = false;

  const fail = (key: 'sql_syntax' | 'sql_values' | 'sql_too_deep', at: number, params: Record<string, string | number> = {}): never => {
    throw new FormatError(key, key, { params: { line: lineOf(text, at), ...params } });
  };
  const unclosed = (err: unknown) => {
    if (err instanceof Unclosed) return new FormatError('sql_unclosed', err.message, { params: { line: lineOf(text, err.at), what: o.ctx.t(`names.sql-${err.what}`) } });
    return err;
  };
  const next = () => {
    try {
      return lex.next();
    } catch (err) {
      throw unclosed(err);
    }
  };
  const plainValue = () => {
    try {
      return lex.plainValue();
    } catch (err) {
      throw unclosed(err);
    }
  };
  // Through functions: TypeScript would narrow the lexer's fields across calls that move it.
  const kind = (): TokenKind => lex.kind;
  const value = (): string => lex.value;
  const isWord = (w: string) => kind() === 'word' && lex.value.toUpperCase() === w;
  const syntax = (): never => fail('sql_syntax', lex.start, { found: kind() === 'eof' ? o.ctx.t('names.json-end') : script.decode(lex.start, Math.min(lex.end, lex.start + 160)).slice(0, 40) });

  /** Passes over the rest of a statement; `depth` is the parentheses already open. */
  const skipStatement = (depth = 0) => {
    while (kind() !== 'end' && kind() !== 'eof') {
      if (kind() === 'punct') {
        if (value() === '(' && ++depth > SQL_MAX_DEPTH) fail('sql_too_deep', lex.start, { max: SQL_MAX_DEPTH });
        if (value() === ')') depth--;
      }
      next();
    }
  };
  const ignore = (kind: string) => {
    if (!ignored.has(kind) && ignored.size >= MAX_KINDS) kind = '…';
    ignored.set(kind, (ignored.get(kind) ?? 0) + 1);
  };

  /** A name, with its schema parts: at the current token. */
  const qualifiedName = (): { name: string; qualified: string } | null => {
    const parts: string[] = [];
    for (;;) {
      if (kind() !== 'word' && kind() !== 'ident') return null;
      parts.push(lex.value);
      next();
      if (!(kind() === 'punct' && value() === '.')) break;
      next();
    }
    return { name: parts.at(-1)!, qualified: parts.join('.') };
  };

  // `dbo.t` and `t` are one table (the default schema), `s1.t` and `s2.t` two.
  const tableOf = (n: { name: string; qualified: string }): SqlTable => {
    const key = n.qualified.toLowerCase();
    let t = tables.get(key);
    if (t) return t;
    const bare = n.name.toLowerCase();
    const schema = n.qualified !== n.name;
    for (const other of tables.values()) {
      if (other.name.toLowerCase() === bare && (!schema || other.qualified === other.name)) {
        if (schema) other.qualified = n.qualified;
        tables.set(key, other);
        return other;
      }
    }
    tables.set(key, (t = { name: n.name, qualified: n.qualified, columns: [], types: [], declared: 0, values: new SqlValues(script), cells: 0 }));
    return t;
  };

  const createTable = (startWords: string) => {
    // CREATE [GLOBAL|LOCAL] [TEMP|TEMPORARY|UNLOGGED] TABLE [IF NOT EXISTS] name ( … )
    if (isWord('IF')) {
      next();
      if (isWord('NOT')) next();
      if (isWord('EXISTS')) next();
    }
    const n = qualifiedName();
    if (n === null || !(kind() === 'punct' && value() === '(')) return void (ignore(`${startWords} …`), skipStatement());
    found = true;
    const t = tableOf(n);
    const columns: string[] = [];
    const types: string[] = [];
    next();
    // One definition per pass, at depth 1.
    for (;;) {
      if (kind() === 'punct' && value() === ')') break;
      const first = lex.kind;
      const word = lex.value;
      let name: string | null = null;
      let type = '';
      if ((first === 'word' && !TABLE_CONSTRAINTS.has(word.toUpperCase())) || first === 'ident') {
        name = word;
        next();
        if (kind() === 'word') {
          type = lex.value.toUpperCase();
          if (type === 'TINYINT' && /^\s*\(\s*1\s*\)/.test(script.decode(lex.end, Math.min(lex.end + 16, text.length)))) type = 'TINYINT(1)';
        }
      }
      // The rest of the definition, up to its comma or the closing parenthesis.
      let depth = 0;
      while (!(depth === 0 && kind() === 'punct' && (value() === ',' || value() === ')'))) {
        if (kind() === 'end' || kind() === 'eof') syntax();
        if (kind() === 'punct' && value() === '(' && ++depth > SQL_MAX_DEPTH) fail('sql_too_deep', lex.start, { max: SQL_MAX_DEPTH });
        if (kind() === 'punct' && value() === ')') depth--;
        next();
      }
      if (name !== null) {
        columns.push(name);
        types.push(type);
      }
      if (value() === ')') break;
      next();
    }
    next();
    if (t.declared === 0 && t.columns.length === 0) {
      t.columns = columns;
      t.types = types;
      t.declared = columns.length;
    }
    skipStatement();
  };

  const columnIndex = (t: SqlTable, name: string, line: () => number): number => {
    let i = t.columns.indexOf(name);
    if (i < 0) {
      const lower = name.toLowerCase();
      i = t.columns.findIndex((c) => c.toLowerCase() === lower);
    }
    if (i >= 0) return i;
    if (appended.count++ === 0) appended.first = `${t.name}.${name} (${o.ctx.t('names.sql-line', { line: line() })})`;
    t.columns.push(name);
    t.types.push('');
    return t.columns.length - 1;
  };

  /** A value that is no plain literal: its SQL text, counted. */
  const other = (start: number, end: number): Cell => {
    const sql = script.decode(start, end).trim();
    if (expressions.count++ === 0) expressions.first = `${sql.slice(0, 40)} (${o.ctx.t('names.sql-line', { line: lineOf(text, start) })})`;
    return sql;
  };

  /** NULL, TRUE, FALSE; any other word is an expression. */
  const wordCell = (word: string, start: number, end: number): Cell => {
    const w = word.toUpperCase();
    if (w === 'NULL') return null;
    if (w === 'TRUE') return true;
    if (w === 'FALSE') return false;
    return other(start, end);
  };

  /** Whether a number literal (with its sign) a double cannot hold exactly, counted: it stays text. */
  const inexactNumber = (number: string, start: number): boolean => {
    // `5.` and `.5` are SQL numbers; sameDecimal reads JSON's forms only.
    if (sameDecimal(number.replace(/^(-?)\./, '$10.').replace(/\.(?=$|[eE])/, ''), Number(number))) return false;
    if (inexact.count++ === 0) inexact.first = `${number.slice(0, 40)} (${o.ctx.t('names.sql-line', { line: lineOf(text, start) })})`;
    return true;
  };

  /** A number literal (with its sign) in a column of declared `type`. */
  const numberCell = (number: string, start: number, type: string): Cell => {
    const n = Number(number);
    if (numberForm(number, 0, number.length) === 0 && inexactNumber(number, start)) return number;
    if (isFlag(type) && (n === 0 || n === 1)) return n === 1;
    return n === 0 ? 0 : n;
  };

  /** The cell of a value's tokens in a column of declared `type`. */
  // The tokens of the value being read, reused from one value to the next (no garbage per token).
  const pool: Token[] = [];
  const cellOf = (tokens: Token[], length: number, start: number, end: number, type: string): Cell => {
    const a = tokens[0];
    const b = tokens[1];
    // Past MAX_VALUE_TOKENS the value is an expression whatever it holds.
    if (length === 0 || length > MAX_VALUE_TOKENS) return other(start, end);
    if (length === 1 && a.kind === 'word') return wordCell(a.value, start, end);
    const number = length === 1 && a.kind === 'number' ? a.value : length === 2 && a.kind === 'punct' && (a.value === '-' || a.value === '+') && b.kind === 'number' ? (a.value === '-' ? '-' : '') + b.value : null;
    if (number !== null) return numberCell(number, start, type);
    if (length === 2 && a.kind === 'word' && b.kind === 'string' && b.prefix === '' && TYPED.has(a.value.toUpperCase())) return isoDate(b.value, a.value.toUpperCase()) ?? other(start, end);
    // A string, or strings joined by `||` or `+`: one text.
    if (length % 2 === 1) {
      let joined = '';
      for (let i = 0; i < length; i++) {
        const x = tokens[i];
        if (i % 2 === 0 ? !(x.kind === 'string' && TEXT_PREFIXES.has(x.prefix)) : !(x.kind === 'punct' && (x.value === '||' || x.value === '+'))) return other(start, end);
        if (i % 2 === 0) joined = length === 1 ? x.value : joined + x.value;
      }
      if (length === 1 && DATE_TYPES.has(type)) return isoDate(joined, type) ?? joined;
      return joined;
    }
    return other(start, end);
  };

  const insert = () => {
    while (kind() === 'word' && INSERT_MODIFIERS.has(lex.value.toUpperCase())) next();
    if (isWord('INTO')) next();
    const n = qualifiedName();
    if (n === null) return void (ignore('INSERT'), skipStatement());
    let list: string[] | null = null;
    const listStart = lex.start;
    if (kind() === 'punct' && value() === '(') {
      next();
      if (isWord('SELECT') || isWord('WITH')) return void (ignore('INSERT … SELECT'), skipStatement(1));
      list = [];
      for (;;) {
        if (kind() !== 'word' && kind() !== 'ident') syntax();
        list.push(lex.value);
        next();
        if (kind() === 'punct' && value() === ',') next();
        else if (kind() === 'punct' && value() === ')') break;
        else syntax();
      }
      next();
    }
    if (!(isWord('VALUES') || isWord('VALUE'))) {
      ignore(isWord('SELECT') || isWord('WITH') || (kind() === 'punct' && value() === '(') ? 'INSERT … SELECT' : 'INSERT');
      return void skipStatement();
    }
    found = true;
    const t = tableOf(n);
    // Only a warning needs the line: counting lines per statement would make a long script quadratic.
    const line = () => lineOf(text, listStart);
    const map = list === null ? null : list.map((c) => columnIndex(t, c, line));
    const width = list !== null ? list.length : t.declared > 0 ? t.declared : -1;
    // What a plain string or number is in each column, by its declared type (decided once per statement).
    const stringCodes = t.types.map((type) => (type === 'TIME' ? TIME : DATE_TYPES.has(type) ? DATE : TEXT));
    const flags = t.types.map(isFlag);
    const values = t.values;
    next();
    for (;;) {
      if (!(kind() === 'punct' && value() === '(')) syntax();
      const tupleStart = lex.start;
      // The row's values are kept as they are read (values.ts): codes and spans, no cells.
      const row = values.open(t.columns.length);
      let found = 0;
      // One value per pass: its tokens (the first few), up to a comma or the tuple's end at depth 0.
      for (;;) {
        // A plain literal is one token read in place; anything else is read token by token.
        const plain = o.tokens ? null : plainValue();
        if (plain !== null) {
          const col = map ? map[found] : found;
          found++;
          if (col !== undefined) {
            const s = lex.literalStart;
            const e = lex.literalEnd;
            let code: number;
            if (plain === 'string') code = stringCodes[col] ?? TEXT;
            else if (plain === 'number') {
              const form = numberForm(text, s, e);
              code = form === 0 && inexactNumber(text.slice(s, e), s) ? TEXT : flags[col] ? FLAG : form === 2 ? PLAIN_NUMBER : NUMBER;
            } else code = wordCode(text, s, e);
            if (code === -1) values.setCell(row, col, other(s, e));
            else if (code !== NULL) values.set(row, col, code, s, e);
            if (code !== NULL) {
              if (++cells > o.maxCells) throw new FormatError('cells', 'cell limit', { params: { reason: 'cells', max: o.maxCells } });
              t.cells++;
            }
          }
          if (value() === ')') break;
          continue;
        }
        next();
        const start = lex.start;
        let end = start;
        let count = 0;
        let depth = 0;
        for (;;) {
          const k = kind();
          const v = value();
          if (k === 'punct') {
            if (depth === 0 && (v === ',' || v === ')')) break;
            if (v === '(' && ++depth > SQL_MAX_DEPTH) fail('sql_too_deep', lex.start, { max: SQL_MAX_DEPTH });
            if (v === ')') depth--;
          } else if (k === 'end' || k === 'eof') syntax();
          if (count <= MAX_VALUE_TOKENS) {
            const tk = (pool[count] ??= { kind: 'eof', value: '', prefix: '' });
            tk.kind = k;
            tk.value = v;
            tk.prefix = lex.prefix;
            count++;
          }
          end = lex.end;
          next();
        }
        if (start === end) syntax();
        const col = map ? map[found] : found;
        found++;
        if (col !== undefined) {
          const c = cellOf(pool, count, start, end, t.types[col] ?? '');
          if (c !== null) {
            if (++cells > o.maxCells) throw new FormatError('cells', 'cell limit', { params: { reason: 'cells', max: o.maxCells } });
            t.cells++;
            values.setCell(row, col, c);
          }
        }
        if (value() === ')') break;
      }
      if (width >= 0 && found !== width) fail('sql_values', tupleStart, { expected: width, found, table: t.name });
      values.widen(row, found);
      next();
      if (kind() === 'punct' && value() === ',') {
        next();
        continue;
      }
      if (kind() === 'end' || kind() === 'eof') return;
      if (isWord('ON') || isWord('RETURNING')) {
        if (trailing.count++ === 0) trailing.line = lineOf(text, lex.start);
        return skipStatement();
      }
      syntax();
    }
  };

  for (;;) {
    const k = next();
    if (k === 'eof') break;
    if (k === 'end') continue;
    const first = k === 'word' ? lex.value.toUpperCase() : script.decode(lex.start, lex.end).slice(0, 20);
    if (first === 'INSERT') {
      next();
      insert();
    } else if (first === 'CREATE') {
      const words = ['CREATE'];
      next();
      while (kind() === 'word' && /^(GLOBAL|LOCAL|TEMP|TEMPORARY|UNLOGGED|OR|REPLACE)$/i.test(lex.value)) {
        words.push(lex.value.toUpperCase());
        next();
      }
      if (isWord('TABLE')) {
        next();
        createTable(`${words.join(' ')} TABLE`);
      } else {
        ignore(`CREATE ${kind() === 'word' ? lex.value.toUpperCase() : ''}`.trim());
        skipStatement();
      }
    } else if (first === 'COPY') {
      let stdin = false;
      while (kind() !== 'end' && kind() !== 'eof') {
        if (isWord('STDIN')) stdin = true;
        next();
      }
      ignore('COPY');
      if (stdin) lex.skipCopyData();
    } else {
      next();
      const two = first === 'DROP' || first === 'ALTER' || first === 'SET' ? (kind() === 'word' ? ` ${lex.value.toUpperCase()}` : '') : '';
      ignore(first === 'SET' ? 'SET' : `${first}${two}`.slice(0, 40));
      skipStatement();
    }
  }
  if (!found) throw new FormatError('sql_nothing', 'no CREATE TABLE and no INSERT … VALUES');

  const { ctx } = o;
  const dialect: DialectId = o.dialect !== 'auto' ? o.dialect : mysql ? 'mysql' : lex.marks.sqlserver ? 'sqlserver' : lex.marks.postgres ? 'postgres' : 'standard';
  ctx.message('info', o.dialect === 'auto' ? 'sql_dialect_detected' : 'sql_dialect', { dialect: dialect });
  for (const [kind, count] of ignored) ctx.message('warning', 'sql_ignored', { kind, count });
  if (trailing.count > 0) ctx.message('warning', 'sql_trailing_ignored', { count: trailing.count, line: trailing.line });
  if (appended.count > 0) ctx.message('warning', 'sql_columns_appended', { count: appended.count, first: appended.first });
  if (inexact.count > 0) ctx.message('warning', 'sql_inexact_numbers', { count: inexact.count, first: inexact.first });
  if (expressions.count > 0) ctx.message('warning', 'sql_expressions', { count: expressions.count, first: expressions.first });
  return { dialect, tables: [...new Set(tables.values())] };
}

/** A SQL script as a workbook: one sheet per table, named after it without its schema. */
export class SqlReader implements BookReader {
  readonly format = 'sql' as const;
  readonly sheets: { name: string; visibility: 'visible'; source: string }[];
  readonly encoding: TextEncodingName;
  private readonly script: SqlScript;

  constructor(file: SourceFile, ctx: FormatContext, dialect: SqlDialectOption) {
    const b = file.bytes;
    const { encoding } = textKind(b);
    refuseBinary(b, encoding);
    this.encoding = encoding;
    // UTF-8 is read as it is (its BOM left out); any other encoding is decoded and read as UTF-8.
    const utf8 = encoding !== 'utf-8' ? decodeAs(b, encoding) : b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? b.subarray(3) : b;
    this.script = readSqlScript(utf8, { dialect, maxCells: ctx.limits.maxCells, ctx, file: file.name });
    this.sheets = this.script.tables.map((t) => ({ name: t.name, visibility: 'visible', source: t.qualified }));
  }

  table(i: number, read: SheetRead): Table {
    const t = this.script.tables[i];
    read.cells.used += t.cells;
    if (read.cells.used > read.cells.max) throw new FormatError('cells', 'cell limit', { params: { reason: 'cells', max: read.cells.max } });
    const header = Array.from({ length: widthOf(t) }, (_, c) => t.columns[c] ?? read.ctx.name('column', { n: c + 1 }));
    return new SqlRows(t.name, header, header.length, t.values);
  }
}

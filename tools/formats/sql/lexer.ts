// The SQL tokenizer of sql-to-excel: one pass over the script's text, never executing anything, that knows the
// quoting of the four dialects excel-to-sql writes (tools/formats/sql/dialects.ts):
// - strings `'…'` with `''` in every dialect; backslash escapes in mysql, and in postgres `E'…'`; `N'…'`,
//   `X'…'` and `B'…'` prefixes; `$$…$$` and `$tag$…$tag$` in postgres and standard; `"…"` is a string in mysql;
// - quoted identifiers `"…"` (standard, postgres, sqlserver), `` `…` `` (mysql, read anywhere), `[…]` (sqlserver);
// - comments `--`, `/* */` (nested in postgres), and `#` in mysql;
// - statements end at `;` outside all of these, and at a line that holds only `GO` (sqlcmd's batch separator).
// Tokens are fields of the lexer rather than objects: a 10,000-statement script makes no garbage per token, and a
// literal is found with indexOf, so a 10 MB string costs one scan and one slice.
// The lexer scans the script's UTF-8 bytes as Latin-1 text (Script): every mark of the grammar is ASCII and no
// byte of a multi-byte character is, so tokens end where they would in the decoded text, offsets are byte
// offsets (a CSV copies a literal's bytes), the file is never decoded whole, and only what is kept is decoded.
import { isAscii } from 'node:buffer';
import type { DialectId } from './dialects.ts';

/** A script's UTF-8 bytes and their Latin-1 view, one character a byte, which the lexer scans. */
export class Script {
  readonly bytes: Buffer;
  readonly text: string;
  /** No byte past ASCII: the view is the text. */
  private readonly ascii: boolean;

  constructor(utf8: Uint8Array | string) {
    this.bytes = typeof utf8 === 'string' ? Buffer.from(utf8, 'utf8') : Buffer.from(utf8.buffer, utf8.byteOffset, utf8.byteLength);
    this.text = this.bytes.toString('latin1');
    this.ascii = isAscii(this.bytes);
  }

  /** The text of bytes [s, e). */
  decode(s: number, e: number): string {
    const t = this.text;
    if (this.ascii) return t.slice(s, e);
    // Most literals are short: a look at their bytes costs less than a call to the decoder.
    if (e - s <= 64) {
      let k = s;
      while (k < e && t.charCodeAt(k) < 0x80) k++;
      if (k === e) return t.slice(s, e);
    }
    return this.bytes.toString('utf8', s, e);
  }
}

export type TokenKind = 'word' | 'ident' | 'string' | 'number' | 'hex' | 'punct' | 'end' | 'eof';

/** A string literal's prefix: `N'…'`, `E'…'`, `X'…'`, `B'…'`, `$$…$$`, or none. */
export type StringPrefix = '' | 'N' | 'E' | 'X' | 'B' | '$';

/** Something the script leaves open at its end: where it started (a 0-based offset) and what it was. */
export class Unclosed extends Error {
  constructor(
    readonly at: number,
    readonly what: 'string' | 'identifier' | 'comment',
  ) {
    super(`unclosed ${what}`);
  }
}

const isDigit = (c: number) => c >= 48 && c <= 57;
// U+00A0 and U+FEFF, spaces too, are two and three bytes (skipSpace).
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11;
// Letters, `_`, and anything past ASCII (names in any script); `$`, `@`, `#` inside a word as engines allow.
const isWordStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 64 || c > 127;
const isWordPart = (c: number) => isWordStart(c) || isDigit(c) || c === 36 || c === 35;

const MYSQL_ESCAPES: Record<string, string> = { '0': '\u0000', b: '\b', n: '\n', r: '\r', t: '\t', Z: '\u001a', '%': '\\%', _: '\\_' };
const PG_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

export class Lexer {
  readonly text: string;
  pos = 0;
  kind: TokenKind = 'eof';
  /** 0-based offsets of the token in the text. */
  start = 0;
  end = 0;
  /** A word as written, an identifier or string unquoted, a number's literal, a punctuation mark. */
  value = '';
  prefix: StringPrefix = '';
  /** Where plainValue()'s literal lies. */
  literalStart = 0;
  literalEnd = 0;
  /** The next backslash and the next `/*` at or after where they were last looked for (Infinity: none left):
   * searched again only once passed, so that a script of many strings or comments is scanned once, not once
   * per literal. */
  private backslashAt = -1;
  private commentOpenAt = -1;
  /** Only white space (or nothing) since the last line break: where a `GO` line may stand. */
  private lineStart = true;
  private readonly backslash: boolean;
  private readonly doubleQuoteString: boolean;
  private readonly brackets: boolean;
  private readonly dollars: boolean;
  private readonly hashComments: boolean;
  private readonly nestedComments: boolean;

  /** What `auto` reports: the marks of sqlserver and postgres met as tokens. */
  readonly marks = { sqlserver: false, postgres: false };

  /**
   * `auto` reads every quoting but mysql's, which alone changes where strings end: `[…]` identifiers, E'…'
   * escapes and `$$` strings mean nothing else in the other dialects, so one reading serves them all.
   */
  constructor(
    readonly script: Script,
    dialect: DialectId | 'auto',
  ) {
    this.text = script.text;
    this.backslash = dialect === 'mysql';
    this.doubleQuoteString = dialect === 'mysql';
    this.hashComments = dialect === 'mysql';
    this.brackets = dialect === 'sqlserver' || dialect === 'auto';
    this.dollars = dialect === 'postgres' || dialect === 'standard' || dialect === 'auto';
    this.nestedComments = dialect === 'postgres';
  }

  /** Moves to the next token. Throws Unclosed for a string, identifier or comment the script never closes. */
  next(): TokenKind {
    const t = this.text;
    this.skipSpace();
    const i = this.pos;
    this.start = i;
    if (i >= t.length) return this.set('eof', i, '');
    const c = t.charCodeAt(i);
    if (this.lineStart && (c === 71 || c === 103) && this.goLine(i)) return this.kind;
    this.lineStart = false;
    this.prefix = '';
    if (c === 59) return this.set('end', i + 1, ';');
    if (c === 39) return this.quoted(i, "'", this.backslash, 'string');
    if (c === 34) return this.doubleQuoteString ? this.quoted(i, '"', true, 'string') : this.quoted(i, '"', false, 'ident');
    if (c === 96) return this.quoted(i, '`', false, 'ident');
    if (c === 91 && this.brackets) {
      this.marks.sqlserver = true;
      return this.quoted(i, ']', false, 'ident', 1);
    }
    if (isDigit(c) || (c === 46 && isDigit(t.charCodeAt(i + 1)))) return this.number(i);
    if (c === 36 && this.dollars) {
      const close = this.dollarTag(i);
      if (close !== null) {
        const body = t.indexOf(close, i + close.length);
        if (body < 0) throw new Unclosed(i, 'string');
        this.prefix = '$';
        this.value = this.script.decode(i + close.length, body);
        this.kind = 'string';
        this.end = this.pos = body + close.length;
        return this.kind;
      }
    }
    if (isWordStart(c)) {
      let j = i + 1;
      while (j < t.length && isWordPart(t.charCodeAt(j))) j++;
      // A one-letter prefix glued to a string: N'…', E'…', X'…', B'…'.
      if (j === i + 1 && t.charCodeAt(j) === 39) {
        const p = t[i].toUpperCase();
        if (p === 'N' || p === 'X' || p === 'B') {
          if (p === 'N') this.marks.sqlserver = true;
          this.quoted(j, "'", this.backslash, 'string');
          this.prefix = p;
          this.start = i;
          return this.kind;
        }
        if (p === 'E') {
          this.marks.postgres = true;
          this.quoted(j, "'", true, 'string', 1, true);
          this.prefix = 'E';
          this.start = i;
          return this.kind;
        }
      }
      return this.set('word', j, this.script.decode(i, j));
    }
    // Two-character operators start with one of `|:<>!` (`,` and `)`, most punctuation, make no string).
    if (c === 124 || c === 58 || c === 60 || c === 62 || c === 33) {
      const two = t.slice(i, i + 2);
      if (two === '||' || two === '::' || two === '<>' || two === '<=' || two === '>=' || two === '!=') return this.set('punct', i + 2, two);
    }
    return this.set('punct', i + 1, t[i]);
  }

  /**
   * The next value of a tuple when it is one plain literal followed by `,` or `)`: a `'…'` string without a
   * doubled quote or an escape, a number (`-` glued to it allowed), or a word (the caller accepts NULL, TRUE
   * and FALSE). Returns its kind, with its offsets in `literalStart`/`literalEnd` (a string's without its
   * quotes, a negative number's with its `-`), the delimiter read as the current token; anything else returns
   * null with nothing moved, for next() to read token by token. Most values of a dump are such literals: one
   * step each, no token list and no string made (the reader slices what it keeps).
   */
  plainValue(): 'string' | 'number' | 'word' | null {
    const t = this.text;
    const pos = this.pos;
    const lineStart = this.lineStart;
    // A dump's layout, `(1, 'a', NULL)`, needs no call to skipSpace: one space at most before a value, none after.
    let i = pos;
    if (t.charCodeAt(i) === 32) i++;
    let c = t.charCodeAt(i);
    if (!(c === 39 || isDigit(c) || c === 45 || c === 78 || c === 110 || c === 84 || c === 116 || c === 70 || c === 102)) {
      this.skipSpace();
      i = this.pos;
      c = t.charCodeAt(i);
    }
    let kind: 'string' | 'number' | 'word' | null = null;
    let from = i;
    let to = i;
    let end = i;
    if (c === 39) {
      const q = t.indexOf("'", i + 1);
      if (q > 0 && t.charCodeAt(q + 1) !== 39 && !(this.backslash && (this.backslashAt = this.nextOf('\\', i + 1, this.backslashAt)) < q)) {
        kind = 'string';
        from = i + 1;
        to = q;
        end = q + 1;
      }
    } else if (isDigit(c) || (c === 45 && isDigit(t.charCodeAt(i + 1)))) {
      const at = c === 45 ? i + 1 : i;
      if (!(t.charCodeAt(at) === 48 && (t.charCodeAt(at + 1) === 120 || t.charCodeAt(at + 1) === 88))) {
        kind = 'number';
        to = end = this.numberEnd(at);
      }
    } else if (c === 78 || c === 110 || c === 84 || c === 116 || c === 70 || c === 102) {
      let j = i + 1;
      while (j < t.length && isWordPart(t.charCodeAt(j))) j++;
      kind = 'word';
      to = end = j;
    }
    if (kind !== null) {
      let j = end;
      let d = t.charCodeAt(j);
      if (d !== 44 && d !== 41) {
        this.pos = end;
        this.skipSpace();
        j = this.pos;
        d = t.charCodeAt(j);
      }
      if (d === 44 || d === 41) {
        this.literalStart = from;
        this.literalEnd = to;
        this.prefix = '';
        this.lineStart = false;
        this.start = j;
        this.kind = 'punct';
        this.end = this.pos = j + 1;
        this.value = d === 44 ? ',' : ')';
        return kind;
      }
    }
    this.pos = pos;
    this.lineStart = lineStart;
    return null;
  }

  private set(kind: TokenKind, end: number, value: string): TokenKind {
    this.kind = kind;
    this.end = this.pos = end;
    this.value = value;
    return kind;
  }

  private skipSpace(): void {
    const t = this.text;
    let i = this.pos;
    for (;;) {
      const c = t.charCodeAt(i);
      if (c === 10) {
        this.lineStart = true;
        i++;
      } else if (isSpace(c)) i++;
      else if (c === 0xc2 && t.charCodeAt(i + 1) === 0xa0) i += 2;
      else if (c === 0xef && t.charCodeAt(i + 1) === 0xbb && t.charCodeAt(i + 2) === 0xbf) i += 3;
      else if (c === 45 && t.charCodeAt(i + 1) === 45) i = this.lineEnd(i);
      else if (c === 35 && this.hashComments) i = this.lineEnd(i);
      else if (c === 47 && t.charCodeAt(i + 1) === 42) i = this.blockComment(i);
      else break;
    }
    this.pos = i;
  }

  private lineEnd(i: number): number {
    const n = this.text.indexOf('\n', i);
    return n < 0 ? this.text.length : n;
  }

  private blockComment(from: number): number {
    const t = this.text;
    let depth = 1;
    let i = from + 2;
    while (depth > 0) {
      const close = t.indexOf('*/', i);
      if (close < 0) throw new Unclosed(from, 'comment');
      if (this.nestedComments) {
        const open = (this.commentOpenAt = this.nextOf('/*', i, this.commentOpenAt));
        if (open < close) {
          depth++;
          i = open + 2;
          continue;
        }
      }
      depth--;
      i = close + 2;
    }
    return i;
  }

  /** A line holding only `GO` (optionally a count): a statement end; false when the line holds more. */
  private goLine(i: number): boolean {
    const t = this.text;
    if (!(t.charCodeAt(i + 1) === 79 || t.charCodeAt(i + 1) === 111)) return false;
    let j = i + 2;
    while (t.charCodeAt(j) === 32 || t.charCodeAt(j) === 9) j++;
    while (isDigit(t.charCodeAt(j))) j++;
    while (t.charCodeAt(j) === 32 || t.charCodeAt(j) === 9 || t.charCodeAt(j) === 13) j++;
    if (j < t.length && t.charCodeAt(j) !== 10) return false;
    this.set('end', j, 'GO');
    return true;
  }

  /** `$$` or `$tag$` at `i`, or null when the dollar opens no string (a `$1` parameter). */
  private dollarTag(i: number): string | null {
    const t = this.text;
    let j = i + 1;
    while (j < t.length && t.charCodeAt(j) !== 36) {
      const c = t.charCodeAt(j);
      if (!(isWordStart(c) || (j > i + 1 && isDigit(c)))) return null;
      j++;
    }
    return j < t.length ? t.slice(i, j + 1) : null;
  }

  private number(i: number): TokenKind {
    const t = this.text;
    if (t.charCodeAt(i) === 48 && (t.charCodeAt(i + 1) === 120 || t.charCodeAt(i + 1) === 88)) {
      let j = i + 2;
      while (j < t.length && /[0-9a-fA-F]/.test(t[j])) j++;
      return this.set('hex', j, t.slice(i, j));
    }
    const j = this.numberEnd(i);
    return this.set('number', j, t.slice(i, j));
  }

  /** Where a decimal number starting at `i` ends: digits, a fraction, an exponent when digits follow it. */
  private numberEnd(i: number): number {
    const t = this.text;
    let j = i;
    while (isDigit(t.charCodeAt(j))) j++;
    if (t.charCodeAt(j) === 46) {
      j++;
      while (isDigit(t.charCodeAt(j))) j++;
    }
    const e = t.charCodeAt(j);
    if (e === 101 || e === 69) {
      let k = j + 1;
      if (t.charCodeAt(k) === 43 || t.charCodeAt(k) === 45) k++;
      if (isDigit(t.charCodeAt(k))) {
        while (isDigit(t.charCodeAt(k))) k++;
        j = k;
      }
    }
    return j;
  }

  /**
   * A quoted string or identifier opening at `i`, closed by `close` (doubled inside to stand for itself).
   * `escapes`: backslash escapes, mysql's or (`pg`) postgres E'…' ones.
   */
  private quoted(i: number, close: string, escapes: boolean, kind: 'string' | 'ident', open = 1, pg = false): TokenKind {
    const t = this.text;
    let out = '';
    let seg = i + open;
    let j = seg;
    for (;;) {
      const q = t.indexOf(close, j);
      const b = escapes ? (this.backslashAt = this.nextOf('\\', j, this.backslashAt)) : Infinity;
      if (b !== Infinity && (q < 0 || b < q)) {
        out += this.script.decode(seg, b);
        // A character past ASCII after a backslash stands for itself in both dialects: it is kept with what follows.
        const [text, width] = t.charCodeAt(b + 1) >= 0x80 ? ['', 1] : pg ? pgEscape(t, b) : mysqlEscape(t, b);
        if (b + 1 >= t.length) throw new Unclosed(i, kind === 'string' ? 'string' : 'identifier');
        out += text;
        j = seg = b + width;
        continue;
      }
      if (q < 0) throw new Unclosed(i, kind === 'string' ? 'string' : 'identifier');
      if (t.startsWith(close, q + close.length)) {
        out += this.script.decode(seg, q + close.length);
        j = seg = q + 2 * close.length;
        continue;
      }
      out += this.script.decode(seg, q);
      return this.set(kind, q + close.length, out);
    }
  }

  /** Where `s` next occurs from `from`, given where it was found last (`known`): Infinity when nowhere. */
  private nextOf(s: string, from: number, known: number): number {
    if (known >= from) return known;
    const k = this.text.indexOf(s, from);
    return k < 0 ? Infinity : k;
  }

  /** Where the next line that is only `\.` ends: after `COPY … FROM stdin;`, its data (never SQL) is passed over. */
  skipCopyData(): void {
    const t = this.text;
    let i = this.pos;
    for (;;) {
      const n = t.indexOf('\n', i);
      const line = t.slice(i, n < 0 ? t.length : n).replace(/\r$/, '');
      if (line === '\\.' || n < 0) {
        this.pos = n < 0 ? t.length : n + 1;
        this.lineStart = true;
        return;
      }
      i = n + 1;
    }
  }
}

function mysqlEscape(t: string, b: number): [string, number] {
  const e = t[b + 1] ?? '';
  return [MYSQL_ESCAPES[e] ?? e, 2];
}

function pgEscape(t: string, b: number): [string, number] {
  const e = t[b + 1] ?? '';
  if (PG_ESCAPES[e] !== undefined) return [PG_ESCAPES[e], 2];
  if (/[0-7]/.test(e)) {
    const m = /^[0-7]{1,3}/.exec(t.slice(b + 1, b + 4))![0];
    return [String.fromCharCode(parseInt(m, 8) & 0xff), 1 + m.length];
  }
  const hex = e === 'x' ? /^[0-9a-fA-F]{1,2}/.exec(t.slice(b + 2, b + 4)) : e === 'u' ? /^[0-9a-fA-F]{4}/.exec(t.slice(b + 2, b + 6)) : e === 'U' ? /^[0-9a-fA-F]{8}/.exec(t.slice(b + 2, b + 10)) : null;
  if (hex) {
    const cp = parseInt(hex[0], 16);
    return [cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd', 2 + hex[0].length];
  }
  return [e, 2];
}

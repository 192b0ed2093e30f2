// Reads a JSON list of objects into a table: one row per object, one column per property, in first-seen order.
//
// Our own parser rather than JSON.parse, for three reasons: syntax errors are reported by line and column (Node
// 20's JSON.parse often gives no position), nesting is bounded (256 levels, tools.md §2.11) without recursion,
// and each number's literal is at hand, so a number a double cannot hold exactly (`12345678901234567890`,
// `1e400`) is kept as its text instead of being rounded. Rules:
// - nested objects become `parent.child` columns; an empty object and an array are written as compact JSON
//   text; strings stay text exactly (no type guessing), numbers numbers, booleans booleans, null and "" empty;
// - properties are kept in Maps, so `__proto__` and `constructor` are ordinary column names;
// - an element of the list that is not an object, a top-level value that is not a list, invalid JSON, an empty
//   file or one holding NUL bytes is `invalid_file`; a property repeated inside one object keeps its last
//   value (as JSON.parse does), with a warning; two paths with the same dotted name get ` (2)`, with an info;
// - the table (rows × columns, empty cells included) counts against MAX_CELLS, since every cell is written.
import { ArrayTable } from '../batch.ts';
import type { BookReader, SheetRead } from '../book.ts';
import { FormatError, type FormatReason } from '../errors.ts';
import type { Cell, FormatContext, Report, Row, SourceFile, Table, TableData } from '../model.ts';
import { baseNameOf, decodeText, isEightBit } from '../csv/read.ts';
import { encodingLabel } from '../csv/charset.ts';
import { listText } from '../report.ts';
import { uniqueNames } from '../table/names.ts';

export const JSON_MAX_DEPTH = 256;

/** A number whose literal a double cannot hold exactly: written as its text. */
class Inexact {
  constructor(readonly text: string) {}
}
type JsonValue = null | boolean | number | string | Inexact | JsonValue[] | Map<string, JsonValue>;

type Frame = { items: JsonValue[] | Map<string, JsonValue>; key: string };

type Localizer = Pick<FormatContext, 't'> & { message: Report };

export interface JsonReadOptions {
  /** Name of the resulting table (sheet name). */
  name: string;
  maxCells: number;
  ctx: Localizer;
}

/** Parse state of one document; positions are UTF-16 offsets into `text`. */
class Parser {
  i = 0;
  duplicates = 0;
  firstDuplicate = '';
  constructor(
    readonly text: string,
    readonly fail: (key: string, at: number, params?: Record<string, string | number>) => never,
  ) {}

  ws(): void {
    const t = this.text;
    let c = t.charCodeAt(this.i);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = t.charCodeAt(++this.i);
  }

  syntax(at = this.i): never {
    return this.fail('json_syntax', at);
  }

  expect(ch: string): void {
    this.ws();
    if (this.text[this.i] !== ch) this.syntax();
    this.i++;
  }

  /** One value starting at `i` (after whitespace); `depth` is the nesting level of the list that holds it. */
  value(depth: number): JsonValue {
    const stack: Frame[] = [];
    for (;;) {
      this.ws();
      let v: JsonValue;
      const c = this.text[this.i];
      if (c === '{' || c === '[') {
        const items = c === '{' ? new Map<string, JsonValue>() : [];
        if (this.open(items, depth + stack.length + 1, stack)) continue;
        v = items;
      } else v = this.scalar();
      // Attach the value, then close every container that ends here.
      for (;;) {
        const top = stack.at(-1);
        if (!top) return v;
        if (top.items instanceof Map) {
          if (top.items.has(top.key) && this.duplicates++ === 0) this.firstDuplicate = top.key;
          top.items.set(top.key, v);
        } else top.items.push(v);
        this.ws();
        const d = this.text[this.i];
        if (d === ',') {
          this.i++;
          if (top.items instanceof Map) top.key = this.key();
          break;
        }
        if (d !== (top.items instanceof Map ? '}' : ']')) this.syntax();
        this.i++;
        v = top.items;
        stack.pop();
      }
    }
  }

  /** Enters a list or object at `i`; false when it closes at once (empty). */
  open(items: Frame['items'], level: number, stack: Frame[]): boolean {
    if (level > JSON_MAX_DEPTH) this.fail('json_too_deep', this.i, { max: JSON_MAX_DEPTH });
    this.i++;
    this.ws();
    if (this.text[this.i] === (items instanceof Map ? '}' : ']')) {
      this.i++;
      return false;
    }
    stack.push({ items, key: items instanceof Map ? this.key() : '' });
    return true;
  }

  key(): string {
    this.ws();
    if (this.text[this.i] !== '"') this.syntax();
    const k = this.string();
    this.expect(':');
    return k;
  }

  scalar(): JsonValue {
    const t = this.text;
    const c = t[this.i];
    if (c === '"') return this.string();
    for (const [word, v] of LITERALS) {
      if (t.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(t);
    if (!m) this.syntax();
    this.i += m[0].length;
    const n = Number(m[0]);
    // Up to 15 significant digits without an exponent always read back exactly (DBL_DIG).
    if (SHORT_NUMBER.test(m[0]) || sameDecimal(m[0], n)) return n === 0 ? 0 : n;
    return new Inexact(m[0]);
  }

  string(): string {
    const t = this.text;
    // Most strings hold no escape and no control character: one slice, checked once.
    const q = t.indexOf('"', this.i + 1);
    if (q > 0) {
      const plain = t.slice(this.i + 1, q);
      if (!SPECIAL.test(plain)) {
        this.i = q + 1;
        return plain;
      }
    }
    let j = this.i + 1;
    let seg = j;
    let out = '';
    for (;;) {
      if (j >= t.length) this.syntax(j);
      const c = t.charCodeAt(j);
      if (c === 34) {
        this.i = j + 1;
        return out + t.slice(seg, j);
      }
      if (c < 0x20) this.syntax(j);
      if (c !== 92) {
        j++;
        continue;
      }
      out += t.slice(seg, j);
      const e = t[j + 1];
      if (e === 'u') {
        const hex = t.slice(j + 2, j + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.syntax(j);
        out += String.fromCharCode(parseInt(hex, 16));
        j += 6;
      } else {
        const ch = ESCAPES[e];
        if (ch === undefined) this.syntax(j);
        out += ch;
        j += 2;
      }
      seg = j;
    }
  }
}

const LITERALS: [string, JsonValue][] = [
  ['true', true],
  ['false', false],
  ['null', null],
];
const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const SHORT_NUMBER = /^-?(?=(?:\d\.?){1,15}$)\d+(?:\.\d+)?$/;
const SPECIAL = /[\\\u0000-\u001f]/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Significant digits and exponent of a decimal literal: `0.50` and `5e-1` both give `5e0`. */
function decimalKey(s: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(s)!;
  let digits = m[2] + (m[3] ?? '');
  let point = m[2].length + Number(m[4] ?? 0);
  const lead = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(lead).replace(/0+$/, '');
  point -= lead;
  return digits === '' ? '0' : `${m[1]}${digits}e${point}`;
}

/** The double `n` reads back as the literal's exact decimal value (shortest round-trip form); SQL numbers too. */
export function sameDecimal(literal: string, n: number): boolean {
  return Number.isFinite(n) && decimalKey(literal) === decimalKey(String(n));
}

/** Compact JSON text of a parsed value (depth is bounded by the parser). */
function jsonText(v: JsonValue): string {
  if (v instanceof Inexact) return v.text;
  if (Array.isArray(v)) return `[${v.map(jsonText).join(',')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`).join(',')}}`;
  return v === null ? 'null' : JSON.stringify(v);
}

function lineColumn(text: string, at: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: at - start + 1 };
}

/** Reads `file` (a JSON list of objects) into a table with a title row. */
export function readJsonTable(file: SourceFile, o: JsonReadOptions): TableData {
  const { ctx } = o;
  const name = file.name.slice(0, 200);
  const invalid = (key: string, params: Record<string, string | number> = {}) =>
    new FormatError(key as FormatReason, key, { params });
  const bytes = file.bytes;
  const { text, encoding } = decodeText(bytes);
  if (!encoding.startsWith('utf-16') && !encoding.startsWith('utf-32') && bytes.includes(0)) throw invalid('binary');
  if (isEightBit(encoding)) ctx.message('info', 'csv_encoding', { name, encoding: encodingLabel(encoding) });
  const fail = (key: string, at: number, params: Record<string, string | number> = {}): never => {
    const found = at >= text.length ? ctx.t('names.json-end') : JSON.stringify(String.fromCodePoint(text.codePointAt(at)!));
    throw invalid(key, { ...lineColumn(text, at), found, ...params });
  };
  const p = new Parser(text, fail);
  const kind = (v: JsonValue) => ctx.t(`names.json-${v === null ? 'null' : Array.isArray(v) ? 'array' : v instanceof Map ? 'object' : v instanceof Inexact ? 'number' : typeof v}`);

  p.ws();
  if (p.i >= text.length) throw invalid('empty');
  if (text[p.i] !== '[') {
    const top = p.value(0);
    p.ws();
    if (p.i < text.length) p.syntax();
    throw invalid('json_not_list', { kind: kind(top) });
  }
  p.i++;

  // Columns form a tree of property names, so that a path is found with one Map lookup per level.
  interface Node {
    col: number;
    children: Map<string, Node>;
  }
  const root: Node = { col: -1, children: new Map() };
  const paths: string[][] = [];
  const rows: Cell[][] = [];
  let cells = 0;
  let asText = 0;
  let firstAsText = '';
  let inexact = 0;
  let firstInexact = '';
  let firstDuplicate = '';
  const where = (item: number, path: string[]) => ctx.t('names.json-where', { item, column: path.join('.') });
  const put = (row: Cell[], node: Node, prefix: string[], key: string, cell: Cell) => {
    if (node.col < 0) {
      node.col = paths.length;
      paths.push([...prefix, key]);
    }
    if (cell === null) return;
    row[node.col] = cell;
    if (++cells > o.maxCells) throw new FormatError('too-complex', 'JSON table past the cell limit');
  };
  // Recursion depth is bounded by the parser's JSON_MAX_DEPTH.
  const flatten = (obj: Map<string, JsonValue>, parent: Node, prefix: string[], row: Cell[], item: number) => {
    for (const [k, v] of obj) {
      let node = parent.children.get(k);
      if (!node) parent.children.set(k, (node = { col: -1, children: new Map() }));
      if (v instanceof Map && v.size > 0) flatten(v, node, [...prefix, k], row, item);
      else if (v instanceof Map || Array.isArray(v)) {
        if (asText++ === 0) firstAsText = where(item, [...prefix, k]);
        put(row, node, prefix, k, jsonText(v));
      } else if (v instanceof Inexact) {
        if (inexact++ === 0) firstInexact = `${where(item, [...prefix, k])}: ${v.text.slice(0, 40)}`;
        put(row, node, prefix, k, v.text);
      } else put(row, node, prefix, k, v === '' ? null : v);
    }
  };

  p.ws();
  if (text[p.i] === ']') p.i++;
  else {
    for (;;) {
      p.ws();
      const at = p.i;
      const duplicates = p.duplicates;
      const v = p.value(1);
      const item = rows.length + 1;
      if (duplicates === 0 && p.duplicates > 0) firstDuplicate = where(item, [p.firstDuplicate]);
      if (!(v instanceof Map)) throw invalid('json_item_not_object', { item, kind: kind(v), line: lineColumn(text, at).line });
      const row: Cell[] = [];
      flatten(v, root, [], row, item);
      rows.push(row);
      p.ws();
      if (text[p.i] === ',') p.i++;
      else if (text[p.i] === ']') {
        p.i++;
        break;
      } else p.syntax();
    }
  }
  p.ws();
  if (p.i < text.length) p.syntax();

  const width = paths.length;
  if (width === 0) throw invalid('empty');
  if (rows.length * width > o.maxCells) throw new FormatError('too-complex', 'JSON table past the cell limit');
  const dense: Row[] = rows.map((r) => {
    const out: Row = new Array(width);
    for (let i = 0; i < width; i++) out[i] = r[i] ?? null;
    return out;
  });
  if (p.duplicates > 0) ctx.message('warning', 'json_duplicate_keys', { name, count: p.duplicates, first: firstDuplicate });
  if (asText > 0) ctx.message('info', 'json_as_text', { count: asText, first: firstAsText });
  if (inexact > 0) ctx.message('warning', 'json_inexact_numbers', { count: inexact, first: firstInexact });
  const { names, renamed } = uniqueNames(paths.map((path) => path.join('.')), (n, k) => `${n} (${k})`);
  if (renamed.length > 0) ctx.message('info', 'json_columns_renamed', { columns: listText([...new Set(renamed)]) });
  return { name: o.name, header: names, rows: dense };
}

/** A JSON list of objects as a workbook of one sheet named after the file (book.ts). */
export class JsonReader implements BookReader {
  readonly format = 'json' as const;
  readonly sheets: { name: string; visibility: 'visible' }[];

  constructor(private readonly file: SourceFile) {
    this.sheets = [{ name: baseNameOf(file.name), visibility: 'visible' }];
  }

  table(_i: number, read: SheetRead): Table {
    const table = readJsonTable(this.file, { name: this.sheets[0].name, maxCells: read.cells.max, ctx: { t: (k, p) => read.ctx.t(k, p), message: read.report } });
    return new ArrayTable(table, table.rows);
  }
}

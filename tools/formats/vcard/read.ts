// The contacts of a .vcf (vCard 2.1, 3.0 and 4.0) as one table: a row per card, a column per property that some
// card uses (vcard-to-excel; tools.md). Each content line is parsed by ical.js (Mozilla's iCalendar and vCard
// parser: parameters with quoting and RFC 6868 escapes, groups, structured and list values split at their
// unescaped separators), with a design set of our own in which every value is text unescaped as tools.md says
// (`\n`, `\,`, `\;`, `\\`; ical.js's own vCard text keeps `\;`). What ical.js refuses as a whole file, and real
// files hold, is handled around it, line by line and in linear time:
// - cards are found by their BEGIN:VCARD / END:VCARD lines; a card never closed runs to the next BEGIN or to the
//   end (warning); lines outside cards are ignored (info);
// - lines are unfolded (CRLF, LF or CR followed by a space or tab); vCard 2.1 quoted-printable soft breaks
//   (`=` at the end of the line) join lines, and QUOTED-PRINTABLE values are decoded in their CHARSET;
// - 2.1 parameters without a name (`TEL;CELL;HOME:`) are read as TYPE values;
// - a line that still cannot be read is counted in a warning, never dropped silently.
// PHOTO, LOGO, SOUND and KEY are not written (an info gives the count); no URI is ever fetched.
import ICAL from 'ical.js';
import { ArrayTable } from '../batch.ts';
import type { BookReader, SheetRead } from '../book.ts';
import { decodeText, decodeWindows1252, refuseBinary } from '../csv/read.ts';
import { FormatError } from '../errors.ts';
import type { Cell, FormatContext, Row, SourceFile, Table, TextEncodingName } from '../model.ts';

/** A property's values: text, or for structured ones (N, ADR, ORG) their parts. */
type Value = string | (string | string[])[];

const unescape = (v: string) => (v.includes('\\') ? v.replace(/\\([\\;,nN])/g, (_, c: string) => (c === 'n' || c === 'N' ? '\n' : c)) : v);
const TEXT = { fromICAL: unescape, toICAL: (v: string) => v };
const RAW = { fromICAL: (v: string) => v, toICAL: (v: string) => v };
const STRUCTURED = { defaultType: 'text', structuredValue: ';' };
const LIST = { defaultType: 'text', multiValue: ',' };
const DESIGN = {
  name: 'vcard-text',
  value: { text: TEXT, unknown: TEXT, uri: TEXT, 'phone-number': TEXT, date: TEXT, 'date-time': TEXT, 'date-and-or-time': TEXT, timestamp: TEXT, 'language-tag': TEXT, 'utc-offset': TEXT, binary: RAW },
  param: (ICAL.design as unknown as { vcard3: { param: unknown } }).vcard3.param,
  property: { n: STRUCTURED, adr: STRUCTURED, org: STRUCTURED, gender: STRUCTURED, categories: LIST, nickname: LIST },
  propertyGroups: true,
};

const MEDIA = new Set(['photo', 'logo', 'sound', 'key']);
const SKIPPED = new Set(['version', 'begin', 'end']);

/** The fixed columns, in tools.md's order; `-work` and `-home` variants of the address follow each set. */
const FIXED = [
  'fn', 'given', 'family', 'additional', 'prefix', 'suffix', 'nickname', 'org', 'unit', 'title', 'role',
  'tel', 'tel-cell', 'tel-work', 'tel-home', 'fax', 'email', 'email-work', 'email-home',
  'street', 'city', 'region', 'code', 'country', 'street-work', 'city-work', 'region-work', 'code-work', 'country-work',
  'street-home', 'city-home', 'region-home', 'code-home', 'country-home', 'bday', 'anniversary', 'url', 'note', 'categories',
];
const ADR_PARTS = ['street', 'city', 'region', 'code', 'country'];

interface Card {
  /** Values by column key, in the order met. */
  values: Map<string, Cell[]>;
}

export interface VcardRead {
  /** Column keys, fixed ones by FIXED, others (`x:NAME`) by first appearance, and how many columns each takes. */
  columns: { key: string; count: number }[];
  cards: Card[];
  cells: number;
  /** Titles of the other properties, by key: their names as first written. */
  others: Map<string, string>;
}

/** Parameters' TYPE values, lower case (3.0 `TYPE=WORK,VOICE`, 4.0 `TYPE="work,voice"`, 2.1 `WORK;VOICE`). */
function typesOf(params: Record<string, unknown>): Set<string> {
  const t = params.type;
  const list = (Array.isArray(t) ? t : t === undefined ? [] : [t]).flatMap((x) => String(x).split(','));
  return new Set(list.map((x) => x.trim().toLowerCase()));
}

/** vCard 2.1 quoted-printable, decoded in the value's CHARSET. */
function quotedPrintable(s: string, charset: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 61 && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c < 0x80) bytes.push(c);
    else for (const b of Buffer.from(s[i], 'utf8')) bytes.push(b);
  }
  const u8 = Uint8Array.from(bytes);
  const cs = charset.toLowerCase();
  if (cs === '' || cs === 'utf-8' || cs === 'utf8') return new TextDecoder('utf-8').decode(u8);
  if (cs === 'iso-8859-1' || cs === 'latin1' || cs === 'windows-1252' || cs === 'cp1252') return decodeWindows1252(u8);
  try {
    return new TextDecoder(cs).decode(u8);
  } catch {
    return new TextDecoder('utf-8').decode(u8);
  }
}

/** `TEL;CELL;HOME:` as `TEL;TYPE=CELL;TYPE=HOME:` (vCard 2.1 parameters without a name). */
function namedParams(line: string): string {
  const colon = line.indexOf(':');
  if (colon < 0) return line;
  const parts = line.slice(0, colon).split(';');
  return [parts[0], ...parts.slice(1).map((p) => (p.includes('=') ? p : `TYPE=${p}`))].join(';') + line.slice(colon);
}

const COMPLETE_DATE = /^(\d{4})-?(\d{2})-?(\d{2})$/;

/** BDAY and ANNIVERSARY: a date when complete (`1985-04-12`, `19850412`), else the text. */
function dateOf(s: string): Cell {
  const m = COMPLETE_DATE.exec(s.trim());
  if (!m) return s;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(2000, mo - 1, d));
  date.setUTCFullYear(y);
  return y >= 1 && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d ? date : s;
}

const flat = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(', ') : (v ?? ''));

/** Reads every card of a vCard text. */
export function readVcards(text: string, ctx: Pick<FormatContext, 'message'>): VcardRead {
  const cards: Card[] = [];
  let card: Card | null = null;
  let unclosed = 0;
  let outside = 0;
  let media = 0;
  const unreadable = { count: 0, line: 0 };
  let cells = 0;
  const others: string[] = [];
  const otherSeen = new Set<string>();
  const counts = new Map<string, number>();
  const otherTitles = new Map<string, string>();

  const close = () => {
    if (!card) return;
    for (const [k, list] of card.values) counts.set(k, Math.max(counts.get(k) ?? 0, list.length));
    cards.push(card);
    card = null;
  };
  const put = (key: string, v: Cell) => {
    if (v === null || v === '') return;
    const list = card!.values.get(key);
    if (list) list.push(v);
    else card!.values.set(key, [v]);
    cells++;
  };

  const property = (line: string, at: number) => {
    let prop: [string, Record<string, unknown>, string, ...Value[]];
    try {
      prop = ICAL.parse.property(line, DESIGN as never);
    } catch {
      try {
        prop = ICAL.parse.property(namedParams(line), DESIGN as never);
      } catch {
        if (unreadable.count++ === 0) unreadable.line = at;
        return;
      }
    }
    const [name, params, , ...rest] = prop;
    if (SKIPPED.has(name)) return;
    if (MEDIA.has(name)) return void media++;
    const types = typesOf(params);
    const qp = String(params.encoding ?? '').toLowerCase() === 'quoted-printable';
    const charset = String(params.charset ?? '');
    const dec = (s: string) => (qp ? quotedPrintable(s, charset) : s);
    const decoded = (v: Value | string[]): string | string[] => (Array.isArray(v) ? (v as string[]).map((x) => (Array.isArray(x) ? x.map(dec).join(', ') : dec(x))) : dec(v));
    // A structured or list property gives its parts as one value (an array); any other, its text.
    const value = rest.length === 1 ? decoded(rest[0]) : rest.map((x) => flat(decoded(x)));
    const part = (i: number) => (Array.isArray(value) ? flat(value[i]) : i === 0 ? value : '');
    const where = types.has('work') ? '-work' : types.has('home') ? '-home' : '';
    switch (name) {
      case 'fn':
        return put('fn', flat(value));
      case 'n':
        for (const [i, key] of ['family', 'given', 'additional', 'prefix', 'suffix'].entries()) put(key, part(i));
        return;
      case 'nickname':
        return put('nickname', flat(value));
      case 'org':
        put('org', part(0));
        return put('unit', Array.isArray(value) ? value.slice(1).map(flat).filter((s) => s !== '').join('; ') : '');
      case 'title':
      case 'role':
      case 'url':
      case 'note':
        return put(name, flat(value));
      case 'categories':
        return put('categories', flat(value));
      case 'tel':
        return put(types.has('cell') ? 'tel-cell' : types.has('fax') ? 'fax' : `tel${where}`, flat(value));
      case 'email':
        return put(`email${where}`, flat(value));
      case 'adr': {
        const street = [part(0), part(1), part(2)].filter((s) => s !== '').join(', ');
        put(`street${where}`, street);
        for (const [i, key] of ADR_PARTS.slice(1).entries()) put(`${key}${where}`, part(i + 3));
        return;
      }
      case 'bday':
      case 'anniversary':
        return put(name, dateOf(flat(value)));
      default: {
        const written = line.slice(0, line.search(/[;:]/)).replace(/^[^.]*\./, '');
        const key = `x:${written.toUpperCase()}`;
        if (!otherSeen.has(key)) {
          otherSeen.add(key);
          others.push(key);
          otherTitles.set(key, written);
        }
        return put(key, flat(value));
      }
    }
  };

  // Logical lines: unfolded, and quoted-printable soft breaks joined.
  let pending: string[] = [];
  let pendingAt = 0;
  let softBreak = false;
  const flush = () => {
    if (pending.length === 0) return;
    const line = pending.length === 1 ? pending[0] : pending.join('');
    pending = [];
    const upper = line.trim().toUpperCase();
    if (upper === 'BEGIN:VCARD') {
      if (card) {
        unclosed++;
        close();
      }
      card = { values: new Map() };
      return;
    }
    if (upper === 'END:VCARD' && card) return close();
    if (!card) {
      if (line.trim() !== '') outside++;
      return;
    }
    if (line.trim() === '') return;
    property(line, pendingAt);
  };
  let lineNo = 0;
  let i = 0;
  // The next LF and CR, each searched again only once passed: a file without CR costs one search, not one a line.
  const after = (ch: string, from: number) => {
    const k = text.indexOf(ch, from);
    return k < 0 ? Infinity : k;
  };
  let lf = -1;
  let cr = -1;
  while (i <= text.length) {
    if (lf < i) lf = after('\n', i);
    if (cr < i) cr = after('\r', i);
    let end = Math.min(lf, text.length);
    let next = end + 1;
    if (cr < end) {
      end = cr;
      next = text.charCodeAt(cr + 1) === 10 ? cr + 2 : cr + 1;
    }
    const raw = text.slice(i, end);
    lineNo++;
    const first = raw.charCodeAt(0);
    if (softBreak) pending[pending.length - 1] = pending[pending.length - 1].slice(0, -1) + raw;
    else if ((first === 32 || first === 9) && pending.length > 0) pending.push(raw.slice(1));
    else {
      flush();
      pending = [raw];
      pendingAt = lineNo;
    }
    const head = pending[0];
    softBreak = raw.endsWith('=') && /;ENCODING=QUOTED-PRINTABLE[;:]/i.test(head.slice(0, head.indexOf(':') + 1));
    i = next;
    if (end === text.length) break;
  }
  flush();
  if (card) {
    unclosed++;
    close();
  }
  if (cards.length === 0) throw new FormatError('vcard_none', 'no BEGIN:VCARD');

  if (unclosed > 0) ctx.message('warning', 'vcard_unclosed', { count: unclosed });
  if (outside > 0) ctx.message('info', 'vcard_outside', { count: outside });
  if (unreadable.count > 0) ctx.message('warning', 'vcard_unreadable', { count: unreadable.count, line: unreadable.line });
  if (media > 0) ctx.message('info', 'vcard_media', { count: media });
  const columns = [...FIXED, ...others].filter((k) => counts.has(k)).map((key) => ({ key, count: counts.get(key)! }));
  return { columns, cards, cells, others: otherTitles };
}

/** The table of a read: titles localized, a second value of a column in `<title> 2`… right after it. */
export function vcardTable(read: VcardRead, t: FormatContext['t'], name: string): { name: string; header: string[]; rows: Row[] } {
  const header: string[] = [];
  const place = new Map<string, number>();
  for (const { key, count } of read.columns) {
    const title = key.startsWith('x:') ? (read.others.get(key) ?? key.slice(2)) : titleOf(key, t);
    place.set(key, header.length);
    for (let n = 1; n <= count; n++) header.push(n === 1 ? title : `${title} ${n}`);
  }
  const rows = read.cards.map((c) => {
    const row: Row = new Array<Cell>(header.length).fill(null);
    for (const [key, list] of c.values) list.forEach((v, n) => (row[place.get(key)! + n] = v));
    return row;
  });
  return { name, header, rows };
}

function titleOf(key: string, t: FormatContext['t']): string {
  const m = /^(street|city|region|code|country|tel|email)-(work|home)$/.exec(key);
  if (m) return t(`names.vcard-${m[1]}`) + t(`names.vcard-${m[2]}`);
  return t(`names.vcard-${key}`);
}

/** A .vcf as a workbook of one sheet, `Contactos` / `Contacts`. */
export class VcardReader implements BookReader {
  readonly format = 'vcard' as const;
  readonly sheets: { name: string; visibility: 'visible' }[];
  readonly encoding: TextEncodingName;
  private readonly read: VcardRead;

  constructor(file: SourceFile, ctx: FormatContext) {
    const { text, encoding } = decodeText(file.bytes);
    refuseBinary(file.bytes, encoding);
    this.encoding = encoding;
    this.read = readVcards(text, ctx);
    this.sheets = [{ name: ctx.name('contacts'), visibility: 'visible' }];
  }

  table(_i: number, read: SheetRead): Table {
    read.cells.used += this.read.cells;
    if (read.cells.used > read.cells.max) throw new FormatError('cells', 'cell limit', { params: { reason: 'cells', max: read.cells.max } });
    const table = vcardTable(this.read, (k, p) => read.ctx.t(k, p), this.sheets[0].name);
    return new ArrayTable({ name: table.name, header: table.header }, table.rows, table.header.length);
  }
}

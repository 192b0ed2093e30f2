// BIFF8 workbooks built record by record ([MS-XLS]), for the .xls reader's tests: what no spreadsheet program
// lets a test choose (where CONTINUE records cut the shared strings, which built-in format an XF names, RK and
// MULRK encodings, a STRING after a SHRFMLA, lying counts and lengths). The compound file around the Workbook
// stream is written by SheetJS's CFB writer, a third party to the reader under test.
import * as XLSX from 'xlsx';

export const RT = {
  BOF: 0x0809,
  EOF: 0x000a,
  CODEPAGE: 0x0042,
  DATEMODE: 0x0022,
  FILEPASS: 0x002f,
  FORMAT: 0x041e,
  XF: 0x00e0,
  SST: 0x00fc,
  CONTINUE: 0x003c,
  BOUNDSHEET: 0x0085,
  DIMENSION: 0x0200,
  NUMBER: 0x0203,
  RK: 0x027e,
  MULRK: 0x00bd,
  LABELSST: 0x00fd,
  LABEL: 0x0204,
  RSTRING: 0x00d6,
  BOOLERR: 0x0205,
  FORMULA: 0x0006,
  STRING: 0x0207,
  SHRFMLA: 0x04bc,
  BLANK: 0x0201,
  MULBLANK: 0x00be,
} as const;

const le16 = (n: number) => [n & 0xff, (n >> 8) & 0xff];
const le32 = (n: number) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
const f64 = (n: number) => [...new Uint8Array(new Float64Array([n]).buffer)];

export function record(type: number, payload: ArrayLike<number>): Uint8Array {
  return new Uint8Array([...le16(type), ...le16(payload.length), ...Array.from(payload)]);
}

const isWide = (s: string) => [...s].some((c) => c.charCodeAt(0) > 0xff);
const chars = (s: string, wide: boolean) => (wide ? [...Buffer.from(s, 'utf16le')] : [...Buffer.from(s, 'latin1')]);

/** XLUnicodeString: 16-bit count, flags, characters. */
export function unicodeString(s: string, wide = isWide(s)): number[] {
  return [...le16(s.length), wide ? 1 : 0, ...chars(s, wide)];
}

/** An RK value for `n`: a 30-bit integer or the top of a double, either perhaps ×100; throws when none fits. */
export function rkOf(n: number): number {
  const int = (x: number) => Number.isInteger(x) && x >= -(2 ** 29) && x < 2 ** 29;
  if (int(n)) return ((n << 2) | 2) >>> 0;
  if (int(Math.round(n * 100)) && Math.round(n * 100) / 100 === n) return ((Math.round(n * 100) << 2) | 3) >>> 0;
  const top = (x: number) => {
    const b = new DataView(new Float64Array([x]).buffer);
    return b.getUint32(0, true) === 0 && (b.getUint32(4, true) & 3) === 0 ? b.getUint32(4, true) : undefined;
  };
  const t = top(n);
  if (t !== undefined) return t;
  throw new Error(`${n} has no RK form`);
}

export const cell = {
  number: (r: number, c: number, v: number, xf = 15) => record(RT.NUMBER, [...le16(r), ...le16(c), ...le16(xf), ...f64(v)]),
  rk: (r: number, c: number, v: number, xf = 15) => record(RT.RK, [...le16(r), ...le16(c), ...le16(xf), ...le32(rkOf(v))]),
  mulrk: (r: number, c: number, vs: number[], xf = 15) =>
    record(RT.MULRK, [...le16(r), ...le16(c), ...vs.flatMap((v) => [...le16(xf), ...le32(rkOf(v))]), ...le16(c + vs.length - 1)]),
  sst: (r: number, c: number, i: number, xf = 15) => record(RT.LABELSST, [...le16(r), ...le16(c), ...le16(xf), ...le32(i)]),
  label: (r: number, c: number, s: string, xf = 15) => record(RT.LABEL, [...le16(r), ...le16(c), ...le16(xf), ...unicodeString(s)]),
  rstring: (r: number, c: number, s: string, xf = 15) =>
    record(RT.RSTRING, [...le16(r), ...le16(c), ...le16(xf), ...unicodeString(s), ...le16(1), 0, 0, 0, 0]),
  bool: (r: number, c: number, v: boolean) => record(RT.BOOLERR, [...le16(r), ...le16(c), ...le16(15), v ? 1 : 0, 0]),
  error: (r: number, c: number, code: number) => record(RT.BOOLERR, [...le16(r), ...le16(c), ...le16(15), code, 1]),
  blank: (r: number, c: number) => record(RT.BLANK, [...le16(r), ...le16(c), ...le16(15)]),
  /** A FORMULA (`=1`, its tokens) with a cached value: a number, or the 8 bytes of a special value. */
  formula: (r: number, c: number, value: number | { type: 0 | 1 | 2 | 3; v?: number }, xf = 15) => {
    const v = typeof value === 'number' ? f64(value) : [value.type, 0, value.v ?? 0, 0, 0, 0, 0xff, 0xff];
    return record(RT.FORMULA, [...le16(r), ...le16(c), ...le16(xf), ...v, 0, 0, 0, 0, 0, 0, ...le16(3), 0x1e, 1, 0]);
  },
  string: (s: string) => record(RT.STRING, unicodeString(s)),
};

export interface SstString {
  text: string;
  /** UTF-16 even when every character fits in one byte. */
  wide?: boolean;
  /** Rich-text runs (4 bytes each) after the characters. */
  runs?: number;
  /** Bytes of phonetic (ExtRst) data after the runs. */
  ext?: number;
}

/**
 * The SST record and its CONTINUE records, each payload at most `limit` bytes, cut as Excel cuts them: a
 * string's header never, its characters between two characters with the flags byte again at the start of the
 * next record, runs and phonetic data anywhere.
 */
export function sstRecords(strings: (string | SstString)[], o: { limit?: number; total?: number; unique?: number } = {}): Uint8Array[] {
  const limit = o.limit ?? 8224;
  const payloads: number[][] = [[...le32(o.total ?? strings.length), ...le32(o.unique ?? strings.length)]];
  let cur = payloads[0];
  const room = () => limit - cur.length;
  const fresh = () => payloads.push((cur = []));
  for (const item of strings) {
    const s: SstString = typeof item === 'string' ? { text: item } : item;
    const wide = s.wide ?? isWide(s.text);
    const head = [...le16(s.text.length), (wide ? 1 : 0) | (s.runs ? 8 : 0) | (s.ext ? 4 : 0)];
    if (s.runs) head.push(...le16(s.runs));
    if (s.ext) head.push(...le32(s.ext));
    if (room() < head.length + (wide ? 2 : 1)) fresh();
    cur.push(...head);
    const units = s.text.split('');
    let i = 0;
    while (i < units.length) {
      const size = wide ? 2 : 1;
      if (room() < size) {
        fresh();
        cur.push(wide ? 1 : 0);
      }
      const n = Math.min(units.length - i, Math.floor(room() / size));
      cur.push(...chars(units.slice(i, i + n).join(''), wide));
      i += n;
    }
    for (const b of new Array(4 * (s.runs ?? 0) + (s.ext ?? 0)).fill(0x20)) {
      if (room() < 1) fresh();
      cur.push(b);
    }
  }
  return payloads.map((p, i) => record(i === 0 ? RT.SST : RT.CONTINUE, p));
}

export interface Biff8Sheet {
  name: string;
  hidden?: boolean;
  /** The records between the sheet's BOF and EOF. */
  records: Uint8Array[];
}

export interface Biff8Spec {
  sheets: Biff8Sheet[];
  date1904?: boolean;
  /** FORMAT records: id and format code. */
  formats?: [number, string][];
  /** The number format id of each XF after the 16 style XFs and the default cell XF (15). */
  xfFormats?: number[];
  /** The SST record and its CONTINUEs (sstRecords), or none. */
  sst?: Uint8Array[];
  /** Records put into the globals after the SST (FILEPASS, …). */
  extraGlobals?: Uint8Array[];
  codepage?: number;
}

const bof = (dt: number) => record(RT.BOF, [...le16(0x0600), ...le16(dt), ...le16(0x0dbb), ...le16(0x07cc), ...le32(0), ...le32(0x0206)]);
const xf = (fmt: number, style: boolean) => record(RT.XF, [...le16(0), ...le16(fmt), ...le16(style ? 0xfff5 : 0x0001), 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xc0, 0x20]);
const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** The Workbook stream: globals, then each sheet's substream. */
export function workbookStream(spec: Biff8Spec): Uint8Array {
  const head = [
    bof(0x0005),
    record(RT.CODEPAGE, le16(spec.codepage ?? 1200)),
    record(RT.DATEMODE, le16(spec.date1904 ? 1 : 0)),
    ...(spec.formats ?? []).map(([id, code]) => record(RT.FORMAT, [...le16(id), ...unicodeString(code)])),
    ...Array.from({ length: 15 }, () => xf(0, true)),
    xf(0, false),
    ...(spec.xfFormats ?? []).map((id) => xf(id, false)),
    ...(spec.sst ?? []),
    ...(spec.extraGlobals ?? []),
  ];
  const boundSheet = (pos: number, s: Biff8Sheet) => record(RT.BOUNDSHEET, [...le32(pos), s.hidden ? 1 : 0, 0, s.name.length, ...unicodeString(s.name).slice(2)]);
  const bodies = spec.sheets.map((s) => concat([bof(0x0010), ...s.records, record(RT.EOF, [])]));
  let pos = concat(head).length + spec.sheets.reduce((n, s) => n + boundSheet(0, s).length, 0) + 4;
  const bounds = spec.sheets.map((s, i) => {
    const b = boundSheet(pos, s);
    pos += bodies[i].length;
    return b;
  });
  return concat([...head, ...bounds, record(RT.EOF, []), ...bodies]);
}

/** A compound file holding `stream` as its Workbook (or under another name). */
export function compoundFile(stream: Uint8Array, name = 'Workbook'): Uint8Array {
  const cfb = XLSX.CFB.utils.cfb_new();
  XLSX.CFB.utils.cfb_add(cfb, `/${name}`, stream);
  return new Uint8Array(XLSX.CFB.write(cfb, { type: 'array' }) as ArrayLike<number>);
}

export const biff8 = (spec: Biff8Spec) => compoundFile(workbookStream(spec));

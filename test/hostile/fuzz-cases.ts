// Seeded fuzz cases: valid xlsx/xls/csv/json inputs mutated byte by byte (bit flips, truncation, insertion,
// chunk duplication, overwrites) or entry by entry inside the ZIP (XML edits, dropped, renamed or copied
// entries), each sent to a registered tool that takes its format. A case is fully determined by
// (seed, index): a failure is replayed from those two numbers.
import { readFileSync } from 'node:fs';
import { unzipSync, zipSync, type Zippable } from 'fflate';
import type { AnyTool } from '../../tools/core/define.ts';
import { extensionOf, type InputFile } from '../../tools/core/files.ts';
import { listTools } from '../../tools/core/registry.ts';
import { jsonSchemaOf } from '../../tools/core/schema.ts';
import { xlsxOf } from './packages.ts';

/** mulberry32: small, fast, good enough to pick mutations. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: <T>(xs: readonly T[]): T => xs[int(xs.length)] };
}
type Rng = ReturnType<typeof prng>;

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/${name}`, import.meta.url)));
const text = (s: string) => new TextEncoder().encode(s);

/** The valid inputs every case starts from. */
export const CORPUS: InputFile[] = [
  { name: 'ventas.xlsx', bytes: fixture('ventas.xlsx') },
  { name: 'dos-hojas.xlsx', bytes: fixture('dos-hojas.xlsx') },
  { name: 'ventas.xls', bytes: fixture('ventas.xls') },
  { name: 'ventas.csv', bytes: fixture('ventas.csv') },
  { name: 'semicolon.csv', bytes: fixture('semicolon.csv') },
  { name: 'latin1.csv', bytes: fixture('latin1.csv') },
  {
    name: 'hecho.xlsx',
    bytes: xlsxOf([
      { name: 'Datos', rows: [['id', 'nombre', 'importe', 'activo'], ['00123', 'Peña', 10.5, true], ['00124', 'Zoë', -3, false], [null, 'vacío', 0, null]], dimension: 'A1:D4' },
      { name: 'Otra', rows: [['x'], [1]] },
    ]),
  },
  {
    name: 'datos.json',
    bytes: text('[{"id":"00123","nombre":"Peña","importe":10.5,"fecha":"2024-03-10","activo":true,"nota":null,"sub":{"a":1,"b":[1,2]}},{"id":"00124","nombre":"Ángel","importe":-3,"activo":false}]'),
  },
];

const SPECIAL = [0x00, 0xff, 0x22, 0x2c, 0x3b, 0x0a, 0x0d, 0x3c, 0x3e, 0x26, 0xef, 0xbb, 0xbf, 0xfe, 0x7f, 0x80];
const XML_SNIPPETS = [
  '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>',
  '&b;',
  '&#0;',
  '&#xFFFF;',
  '<c r="XFD1048576"><v>1</v></c>',
  '<row r="99999999">',
  ' r="A0"',
  ' s="999999"',
  ' t="s"',
  ' t="e"',
  '<v>1e309</v>',
  '<v>NaN</v>',
  '<f>SUM(A1:XFD1048576)</f>',
  '</sheetData>',
  '<sheetData>',
  '<mergeCell ref="A1:XFD1048576"/>',
  '<dimension ref="A1:XFD1048576"/>',
  '<sheet name="__proto__" sheetId="9" r:id="rId9"/>',
  ']]>',
  '<![CDATA[',
  '"',
  '\u0000',
];
const TEXT_SNIPPETS = ['"', '""', ',', ';', '\t', '|', '\n', '\r', '\r\n', '\u0000', '\ufeff', '\ud800', '=SUM(A1)', '00123', '1e309', '31/02/2024', '{', '[', '}', ']', '"__proto__":', '\\u0000', '__proto__', 'constructor', 'prototype'];

type Mutation = { what: string; apply(bytes: Uint8Array, r: Rng): Uint8Array };

const at = (r: Rng, n: number) => (n === 0 ? 0 : r.int(n + 1));

const BYTE_MUTATIONS: Mutation[] = [
  {
    what: 'bit flips',
    apply(b, r) {
      const out = b.slice();
      for (let k = 1 + r.int(8); k > 0 && out.length; k--) out[r.int(out.length)] ^= 1 << r.int(8);
      return out;
    },
  },
  { what: 'truncation', apply: (b, r) => b.slice(0, r.int(b.length)) },
  {
    what: 'byte insertion',
    apply(b, r) {
      const p = at(r, b.length);
      const ins = Uint8Array.from({ length: 1 + r.int(64) }, () => (r.next() < 0.5 ? r.pick(SPECIAL) : r.int(256)));
      return concat(b.subarray(0, p), ins, b.subarray(p));
    },
  },
  {
    what: 'chunk duplication',
    apply(b, r) {
      const from = r.int(Math.max(1, b.length));
      const chunk = b.subarray(from, from + 1 + r.int(512));
      const p = at(r, b.length);
      return concat(b.subarray(0, p), chunk, chunk, b.subarray(p));
    },
  },
  {
    what: 'overwrite',
    apply(b, r) {
      const out = b.slice();
      const p = r.int(Math.max(1, out.length));
      for (let i = 0; i < 1 + r.int(16) && p + i < out.length; i++) out[p + i] = r.pick(SPECIAL);
      return out;
    },
  },
];

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function mutateText(s: string, r: Rng, snippets: readonly string[]): string {
  const p = at(r, s.length);
  switch (r.int(4)) {
    case 0:
      return s.slice(0, p) + r.pick(snippets) + s.slice(p);
    case 1:
      return s.slice(0, p) + s.slice(p + 1 + r.int(64));
    case 2: {
      const chunk = s.slice(p, p + 1 + r.int(256));
      return s.slice(0, p) + chunk.repeat(2 + r.int(20)) + s.slice(p);
    }
    default:
      // A number attribute or value made enormous, negative or not a number.
      return s.replace(/(\d+)/, () => r.pick(['0', '-1', '4294967296', '99999999999999999999', 'x', '']));
  }
}

const ZIP_MUTATIONS: Mutation[] = [
  {
    what: 'xml edit in an entry',
    apply(b, r) {
      return editZip(b, r, (entries, names) => {
        const xml = names.filter((n) => /\.(xml|rels)$/.test(n));
        const name = r.pick(xml.length ? xml : names);
        entries[name] = text(mutateText(new TextDecoder().decode(entries[name]), r, XML_SNIPPETS));
      });
    },
  },
  {
    what: 'entry dropped',
    apply: (b, r) => editZip(b, r, (entries, names) => void delete entries[r.pick(names)]),
  },
  {
    what: 'entry renamed',
    apply: (b, r) =>
      editZip(b, r, (entries, names) => {
        const name = r.pick(names);
        entries[r.pick(['../' + name, '/' + name, name.toUpperCase(), name + '\u0000', 'xl/worksheets/sheet9.xml', '__proto__'])] = entries[name];
        delete entries[name];
      }),
  },
  {
    what: 'entry content copied over another',
    apply: (b, r) => editZip(b, r, (entries, names) => void (entries[r.pick(names)] = entries[r.pick(names)])),
  },
];

/** Unzips, edits, zips again; an input that is no longer a readable ZIP gets a byte mutation instead. */
function editZip(b: Uint8Array, r: Rng, edit: (entries: Record<string, Uint8Array>, names: string[]) => void): Uint8Array {
  let entries: Record<string, Uint8Array>;
  try {
    // fflate allocates what an entry claims: a mutated size field must not make the generator itself a bomb.
    entries = unzipSync(b, { filter: (f) => f.originalSize <= 4 * 2 ** 20 && f.size <= 4 * 2 ** 20 });
  } catch {
    return r.pick(BYTE_MUTATIONS).apply(b, r);
  }
  const names = Object.keys(entries);
  if (names.length === 0) return b;
  edit(entries, names);
  const z: Zippable = {};
  for (const [name, data] of Object.entries(entries)) z[name] = [data, { level: r.pick([0, 1, 6] as const) }];
  return zipSync(z);
}

/** A whole field (between delimiters or line ends) replaced by a snippet: values such as `__proto__`. */
function replaceField(s: string, r: Rng): string {
  const p = at(r, s.length);
  const isEdge = (c: string | undefined) => c === undefined || c === ',' || c === ';' || c === '\t' || c === '|' || c === '\n' || c === '\r';
  let a = p;
  while (a > 0 && !isEdge(s[a - 1])) a--;
  let b = p;
  while (b < s.length && !isEdge(s[b])) b++;
  return s.slice(0, a) + r.pick(TEXT_SNIPPETS) + s.slice(b);
}

const TEXT_MUTATIONS: Mutation[] = [
  {
    what: 'field replaced',
    apply: (b, r) => text(replaceField(new TextDecoder().decode(b), r)),
  },
  {
    what: 'text edit',
    apply: (b, r) => text(mutateText(Buffer.from(b).toString('latin1'), r, TEXT_SNIPPETS)),
  },
  {
    what: 'text edit (utf-8)',
    apply: (b, r) => text(mutateText(new TextDecoder().decode(b), r, TEXT_SNIPPETS)),
  },
];

export interface FuzzCase {
  index: number;
  tool: string;
  source: string;
  mutations: string[];
  files: InputFile[];
  options: Record<string, unknown>;
}

/** Tools that take a format, with an option set that is valid for the fixture it would get. */
function toolsFor(format: string): AnyTool[] {
  return listTools().filter((t) => (t.input.formats as readonly string[]).includes(format));
}

function optionsFor(tool: AnyTool, r: Rng): Record<string, unknown> {
  const schema = jsonSchemaOf(tool, 'es');
  const out: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(schema.properties ?? {}) as Array<[string, { type?: string; enum?: unknown[]; anyOf?: unknown[] }]>) {
    if (name === tool.input.kind) continue;
    const required = schema.required?.includes(name);
    if (!required && r.next() < 0.6) continue;
    if (p.enum) out[name] = r.pick(p.enum);
    else if (p.type === 'boolean') out[name] = r.next() < 0.5;
    else if (required && p.type === 'string') out[name] = r.pick(['1', '2', 'id', 'nombre']);
    else if (required && p.type === 'integer') out[name] = 1 + r.int(5);
  }
  if ('rows-per-file' in (schema.properties ?? {}) && r.next() < 0.5) out['rows-per-file'] = 1 + r.int(3);
  return out;
}

/** Case `index` of the run seeded with `seed`. */
export function fuzzCase(seed: number, index: number): FuzzCase {
  const r = prng((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  const source = r.pick(CORPUS);
  const format = extensionOf(source.name);
  const candidates = toolsFor(format);
  const tool = candidates.length ? r.pick(candidates) : listTools()[0];
  let bytes = source.bytes;
  const mutations: string[] = [];
  const pool = format === 'xlsx' ? [...BYTE_MUTATIONS, ...ZIP_MUTATIONS, ...ZIP_MUTATIONS] : format === 'xls' ? BYTE_MUTATIONS : [...BYTE_MUTATIONS, ...TEXT_MUTATIONS, ...TEXT_MUTATIONS];
  for (let k = 1 + r.int(3); k > 0; k--) {
    const m = r.pick(pool);
    bytes = m.apply(bytes, r);
    mutations.push(m.what);
  }
  const file = { name: source.name, bytes };
  const files = tool.input.kind === 'files' ? [file, CORPUS.find((c) => extensionOf(c.name) === 'csv')!] : [file];
  return { index, tool: tool.id, source: source.name, mutations, files, options: optionsFor(tool, r) };
}

/** How to replay a case, for failure reports. */
export function recipe(seed: number, c: FuzzCase): string {
  return `FUZZ_SEED=${seed} case ${c.index}: ${c.tool} on ${c.source} after ${c.mutations.join(' + ')}, options ${JSON.stringify(c.options)} (${c.files[0].bytes.length} bytes)`;
}

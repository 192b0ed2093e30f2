// The font of PDF results and the configured pdfmake instance.
//
// PDF's standard Helvetica has no glyphs for `ł`, `ő`, Greek or Cyrillic and garbles them without an error, so
// results embed the Roboto that pdfmake ships (Latin, Greek, Cyrillic). Its files are read once per worker, by
// absolute path resolved from the package, and handed to pdfmake through its in-memory file system: pdfmake
// then never needs a path or a URL, and both its access policies refuse everything. Data only ever reaches
// pdfmake as text, so nothing in a cell can make it fetch a URL or read a file.
//
// The table is laid out and drawn without pdfmake's measuring (layout.ts), so this module also reads each
// font's advance widths from its `cmap` (format 4) and `hmtx` tables: one slot per BMP code point, read per
// character in the hot loops.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The part of pdfmake 0.3's server API used here (its package has no types). */
export interface PdfMake {
  virtualfs: { writeFileSync(name: string, content: Buffer): void };
  setFonts(fonts: Record<string, Record<string, string>>): void;
  setUrlAccessPolicy(allow: (url: string) => boolean): void;
  setLocalAccessPolicy(allow: (path: string) => boolean): void;
  createPdf(doc: object): { getBuffer(): Promise<Buffer>; getStream(): Promise<PdfKitDocument> };
}

/** The part of the pdfkit document (pdfmake's engine) that table pages are drawn with (pdfkit has no types here). */
export interface PdfKitDocument extends NodeJS.ReadableStream {
  page: { fonts: Record<string, unknown> };
  /** A page of `size` points (width, height), after which the page before is written out. */
  addPage(o: { size: number[] }): unknown;
  addContent(ops: string): unknown;
  /** The font pdfmake embeds for a family and style (the same object its own text uses). */
  provideFont(family: string, bold: boolean, italics: boolean): PdfKitFont;
  end(): void;
}

/**
 * A font embedded by pdfkit: its fontkit font, the subset embedded, and per glyph of the subset its width and
 * the characters it stands for (the PDF's width table and text extraction map), as pdfkit's `encode` fills them.
 */
export interface PdfKitFont {
  id: string;
  ref(): unknown;
  font: { glyphForCodePoint(codePoint: number): { id: number; advanceWidth: number; codePoints: number[] } };
  subset: { includeGlyph(glyph: number): number };
  scale: number;
  widths: number[];
  unicode: number[][];
}

/** Advance widths of one font, in ems, for the code points it has a glyph for. */
export interface FontMetrics {
  /** Width of a text at 1 pt (no kerning); a character without a glyph counts as 1 em (wide). */
  width(text: string): number;
  /** Width of one UTF-16 code unit at 1 pt (a surrogate counts as half a missing glyph). */
  unitWidth(code: number): number;
  covers(codePoint: number): boolean;
  /** Ascent of the font in ems: where the baseline sits below the top of a line. */
  ascent: number;
  /** Height of a line in ems: ascent, descent and line gap. */
  lineHeight: number;
}

export const FONT_FAMILY = 'Roboto';
const FILES = { normal: 'Roboto-Regular.ttf', bold: 'Roboto-Medium.ttf' } as const;

const require = createRequire(import.meta.url);

let instance: { pdfmake: PdfMake; normal: FontMetrics; bold: FontMetrics } | null = null;

/** pdfmake with the embedded fonts and deny-all access policies, and the fonts' metrics; set up once. */
export function pdfSetup(): { pdfmake: PdfMake; normal: FontMetrics; bold: FontMetrics } {
  if (instance) return instance;
  const pdfmake = require('pdfmake') as PdfMake;
  const dir = join(dirname(require.resolve('pdfmake/package.json')), 'fonts', FONT_FAMILY);
  const bytes = { normal: readFileSync(join(dir, FILES.normal)), bold: readFileSync(join(dir, FILES.bold)) };
  pdfmake.virtualfs.writeFileSync(FILES.normal, bytes.normal);
  pdfmake.virtualfs.writeFileSync(FILES.bold, bytes.bold);
  pdfmake.setFonts({ [FONT_FAMILY]: { normal: FILES.normal, bold: FILES.bold } });
  pdfmake.setUrlAccessPolicy(() => false);
  pdfmake.setLocalAccessPolicy(() => false);
  instance = { pdfmake, normal: fontMetrics(bytes.normal), bold: fontMetrics(bytes.bold) };
  return instance;
}

/** Reads `head`, `hhea`, `hmtx` and the Unicode BMP `cmap` subtable (platform 3, encoding 1, format 4). */
export function fontMetrics(ttf: Buffer): FontMetrics {
  const tables = new Map<string, number>();
  for (let i = 0, n = ttf.readUInt16BE(4); i < n; i++) {
    const rec = 12 + 16 * i;
    tables.set(ttf.toString('latin1', rec, rec + 4), ttf.readUInt32BE(rec + 8));
  }
  const table = (tag: string) => {
    const at = tables.get(tag);
    if (at === undefined) throw new Error(`font has no ${tag} table`);
    return at;
  };
  const unitsPerEm = ttf.readUInt16BE(table('head') + 18);
  const hhea = table('hhea');
  const hMetrics = ttf.readUInt16BE(hhea + 34);
  const hmtx = table('hmtx');
  const advance = (glyph: number) => ttf.readUInt16BE(hmtx + 4 * Math.min(glyph, hMetrics - 1)) / unitsPerEm;

  const cmap = table('cmap');
  let sub = -1;
  for (let i = 0, n = ttf.readUInt16BE(cmap + 2); i < n; i++) {
    const rec = cmap + 4 + 8 * i;
    if (ttf.readUInt16BE(rec) === 3 && ttf.readUInt16BE(rec + 2) === 1) sub = cmap + ttf.readUInt32BE(rec + 4);
  }
  if (sub < 0 || ttf.readUInt16BE(sub) !== 4) throw new Error('font has no Unicode BMP cmap (format 4)');
  const segX2 = ttf.readUInt16BE(sub + 6);
  const ends = sub + 14;
  const starts = ends + segX2 + 2;
  const deltas = starts + segX2;
  const ranges = deltas + segX2;
  // One slot per BMP code point (format 4 maps no other); NaN where the font has no glyph.
  const widths = new Float64Array(0x10000).fill(Number.NaN);
  for (let s = 0; s < segX2; s += 2) {
    const end = ttf.readUInt16BE(ends + s);
    const start = ttf.readUInt16BE(starts + s);
    const delta = ttf.readUInt16BE(deltas + s);
    const rangeOffset = ttf.readUInt16BE(ranges + s);
    for (let cp = start; cp <= end && cp !== 0xffff; cp++) {
      let glyph = rangeOffset === 0 ? cp : ttf.readUInt16BE(ranges + s + rangeOffset + 2 * (cp - start));
      if (rangeOffset !== 0 && glyph === 0) continue;
      glyph = (glyph + delta) & 0xffff;
      if (glyph !== 0) widths[cp] = advance(glyph);
    }
  }
  const fallback = 1;
  const unitWidth = (code: number) => {
    const w = widths[code];
    if (w === w) return w;
    return code >= 0xd800 && code <= 0xdfff ? fallback / 2 : fallback;
  };
  return {
    covers: (cp) => cp < 0x10000 && !Number.isNaN(widths[cp]),
    unitWidth,
    // Summed per UTF-16 unit: a character beyond the BMP (no glyph here) is two halves of one fallback.
    width(text) {
      let w = 0;
      for (let i = 0; i < text.length; i++) w += unitWidth(text.charCodeAt(i));
      return w;
    },
    ascent: ttf.readInt16BE(hhea + 4) / unitsPerEm,
    lineHeight: (ttf.readInt16BE(hhea + 4) - ttf.readInt16BE(hhea + 6) + ttf.readInt16BE(hhea + 8)) / unitsPerEm,
  };
}

// What a workbook holds besides cells that the workbook writers do not carry (tools.md §2.7), as far as the
// package shows it by its part names: read from the ZIP directory (no part is inflated) or, for a compound
// file, from the directory entry names of its macros. Kinds are names of `names.part-<kind>` in the locales.
import { isOle, isZip } from './sniff.ts';
import { openZip } from './zip/read.ts';

export type ExtraKind = 'drawings' | 'charts' | 'images' | 'comments' | 'pivot-tables' | 'tables' | 'macros';

const ZIP_PARTS: [RegExp, ExtraKind][] = [
  [/^xl\/drawings\/(?!_rels\/)[^/]+\.xml$/i, 'drawings'],
  [/^xl\/charts\/|^Object \d+\//i, 'charts'],
  [/^xl\/media\/|^Pictures\//i, 'images'],
  [/^xl\/comments\d*\.xml$|^xl\/threadedComments\//i, 'comments'],
  [/^xl\/pivotTables\/|^xl\/pivotCache\//i, 'pivot-tables'],
  [/^xl\/tables\//i, 'tables'],
  [/^xl\/vbaProject\.bin$|^Basic\/|^Scripts\//i, 'macros'],
];

/** `_VBA_PROJECT_CUR`, as a compound file's directory spells a storage name (UTF-16LE). */
const VBA_STORAGE = Buffer.from('_VBA_PROJECT_CUR', 'utf16le');

/** The kinds of parts found, in a fixed order; none for a package it cannot list. */
export function extrasOf(bytes: Uint8Array): ExtraKind[] {
  const found = new Set<ExtraKind>();
  try {
    if (isZip(bytes)) {
      for (const e of openZip(bytes).entries) for (const [re, kind] of ZIP_PARTS) if (re.test(e.name)) found.add(kind);
    } else if (isOle(bytes) && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(VBA_STORAGE)) found.add('macros');
  } catch {
    // A package the reader refused has been refused already; here it only has no parts to name.
  }
  return ZIP_PARTS.map(([, k]) => k).filter((k, i, all) => all.indexOf(k) === i && found.has(k));
}

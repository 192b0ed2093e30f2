// Independent readers for PDF results: poppler's pdfinfo and pdftotext (poppler-utils), not the pdfmake/pdfkit
// that wrote them. Each call writes the bytes to a temporary file, since poppler reads files only.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function withFile<T>(bytes: Uint8Array, read: (path: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-test-'));
  try {
    const path = join(dir, 'result.pdf');
    writeFileSync(path, bytes);
    return read(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface PdfInfo {
  pages: number;
  /** Size of the first page in points, as pdfinfo reports it (width first). */
  width: number;
  height: number;
  /** Every `Key: value` line of pdfinfo (Title, Creator, Producer, Author when present…). */
  fields: Record<string, string>;
}

export function pdfInfo(bytes: Uint8Array): PdfInfo {
  const out = withFile(bytes, (path) => execFileSync('pdfinfo', ['-enc', 'UTF-8', path], { encoding: 'utf8' }));
  const fields: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const m = /^([^:]+):\s*(.*)$/.exec(line);
    if (m) fields[m[1]] = m[2];
  }
  const size = /^([\d.]+) x ([\d.]+) pts/.exec(fields['Page size'] ?? '');
  if (!size) throw new Error(`pdfinfo gave no page size:\n${out}`);
  return { pages: Number(fields.Pages), width: Number(size[1]), height: Number(size[2]), fields };
}

/** The text of every page (pdftotext, UTF-8), one string per page; `layout` keeps the columns' positions. */
export function pdfPages(bytes: Uint8Array, o: { layout?: boolean } = {}): string[] {
  const args = ['-enc', 'UTF-8', ...(o.layout === false ? [] : ['-layout'])];
  const out = withFile(bytes, (path) => execFileSync('pdftotext', [...args, path, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
  // Pages end with a form feed; the text after the last one is empty.
  return out.split('\f').slice(0, -1);
}

export interface PdfWord {
  page: number;
  text: string;
  xMin: number;
  xMax: number;
}

/** Every word with its horizontal extent (pdftotext -bbox), and each page's width. */
export function pdfWords(bytes: Uint8Array): { pageWidths: number[]; words: PdfWord[] } {
  const html = withFile(bytes, (path) => execFileSync('pdftotext', ['-enc', 'UTF-8', '-bbox', path, '-'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
  const pageWidths: number[] = [];
  const words: PdfWord[] = [];
  for (const m of html.matchAll(/<page width="([\d.]+)"|<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g)) {
    if (m[1]) pageWidths.push(Number(m[1]));
    else words.push({ page: pageWidths.length, text: unescapeHtml(m[4]), xMin: Number(m[2]), xMax: Number(m[3]) });
  }
  return { pageWidths, words };
}

const unescapeHtml = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

/** Occurrences of `needle` in `text`. */
export function countOf(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

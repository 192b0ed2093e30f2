// Line breaking of a cell's text for a column of known width, with the same advance widths the text is then
// drawn with (no kerning on either side), so a line measured to fit does fit. Lines break at white space; a
// word wider than the column is broken after a hyphen or a slash, else between any two characters; `\n`
// always starts a new line. Nothing is dropped but the white space at a break, which a reader would not see.
// A character is taken as at least MIN_ADVANCE wide for breaking, so that a line holds a bounded number of
// characters however many draw nothing (a cell of a million zero-width spaces made one line of a million).
// Every step is linear in the text: a 100,000-character word took seconds when each piece looked for a hyphen
// back to the word's start.
import type { FontMetrics } from './fonts.ts';

/** Room for rounding: the widths are exact, but their sums are floats. */
const SLACK = 1e-6;
/** The least advance of a character, in ems, for line breaking only. */
const MIN_ADVANCE = 0.1;

const breakingFonts = new WeakMap<FontMetrics, FontMetrics>();

/** A font whose characters are at least MIN_ADVANCE wide (what breaking measures with), made once per font. */
function breaking(font: FontMetrics): FontMetrics {
  const known = breakingFonts.get(font);
  if (known) return known;
  const unitWidth = (c: number) => Math.max(font.unitWidth(c), MIN_ADVANCE);
  const made: FontMetrics = {
    ...font,
    unitWidth,
    width(text: string) {
      let w = 0;
      for (let i = 0; i < text.length; i++) w += unitWidth(text.charCodeAt(i));
      return w;
    },
  };
  breakingFonts.set(font, made);
  return made;
}

/** The lines `text` takes in a column `width` points wide, set in `font` at `fontSize`. */
export function wrapLines(text: string, width: number, drawn: FontMetrics, fontSize: number): string[] {
  const room = width / fontSize + SLACK;
  const font = breaking(drawn);
  if (!text.includes('\n') && font.width(text) <= room) return [text];
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) wrapParagraph(paragraph, room, font, lines);
  return lines;
}

/** How many lines `text` takes (wrapLines(…).length, without building the lines of a text that fits on one). */
export function lineCount(text: string, width: number, font: FontMetrics, fontSize: number): number {
  if (!text.includes('\n') && breaking(font).width(text) <= width / fontSize + SLACK) return 1;
  return wrapLines(text, width, font, fontSize).length;
}

/** Greedy filling: each line takes words (with the spaces between them) while they fit. */
function wrapParagraph(text: string, room: number, font: FontMetrics, lines: string[]): void {
  let line = '';
  let lineWidth = 0;
  /** White space after the line's last word: kept inside a line, dropped at a break. */
  let gap = '';
  let gapWidth = 0;
  let i = 0;
  let first = true;
  while (first || i < text.length) {
    let end = i;
    let wordWidth = 0;
    while (end < text.length && !isBreakSpace(text.charCodeAt(end))) wordWidth += font.unitWidth(text.charCodeAt(end++));
    const word = text.slice(i, end);
    if (first) {
      // The paragraph's first word, after its own leading white space (content: it stays).
      first = false;
      line = word;
      lineWidth = wordWidth;
    } else if (lineWidth + gapWidth + wordWidth <= room) {
      line += gap + word;
      lineWidth += gapWidth + wordWidth;
    } else {
      lines.push(line);
      line = word;
      lineWidth = wordWidth;
    }
    if (lineWidth > room) {
      // A word wider than the column: full-width pieces, the last one goes on with the line.
      const pieces = breakWord(line, room, font);
      for (let k = 0; k < pieces.length - 1; k++) lines.push(pieces[k]);
      line = pieces[pieces.length - 1];
      lineWidth = font.width(line);
    }
    i = end;
    while (i < text.length && isBreakSpace(text.charCodeAt(i))) i++;
    gap = text.slice(end, i);
    gapWidth = font.width(gap);
    if (i >= text.length) break;
  }
  lines.push(line);
}

/**
 * Pieces of `word` as wide as fit in `room`, at least one character (or surrogate pair) each; a piece ends after
 * its last hyphen or slash when that leaves it at least half full, else wherever the room ends.
 */
function breakWord(word: string, room: number, font: FontMetrics): string[] {
  const pieces: string[] = [];
  let start = 0;
  let width = 0;
  for (let k = 0; k < word.length; ) {
    const size = isHighSurrogate(word.charCodeAt(k)) && k + 1 < word.length ? 2 : 1;
    const w = font.unitWidth(word.charCodeAt(k)) + (size === 2 ? font.unitWidth(word.charCodeAt(k + 1)) : 0);
    if (k > start && width + w > room) {
      // The last hyphen or slash of this piece, looked for in the piece only.
      let soft = k;
      while (soft > start && word.charCodeAt(soft - 1) !== 0x2d && word.charCodeAt(soft - 1) !== 0x2f) soft--;
      const end = soft > start && font.width(word.slice(start, soft)) >= room / 2 ? soft : k;
      pieces.push(word.slice(start, end));
      start = end;
      width = font.width(word.slice(start, k));
    }
    width += w;
    k += size;
  }
  pieces.push(word.slice(start));
  return pieces;
}

/** Spaces a line may break at: not the no-break ones (U+00A0, U+2007, U+202F). */
const isBreakSpace = (c: number) => c === 0x20 || c === 0x09 || (c >= 0x2000 && c <= 0x200b && c !== 0x2007) || c === 0x1680 || c === 0x205f || c === 0x3000;
const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

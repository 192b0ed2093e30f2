// The table's geometry, shared by pagination (pages.ts) and drawing (draw.ts): rules between cells, padding
// around each cell's text, the spacing of lines.

/** Width of every rule of the grid, in points. */
export const RULE = 0.5;
export const CELL_PAD_X = 3;
export const CELL_PAD_Y = 1.5;
/** Width a column adds besides its content: padding on both sides and one rule. */
export const COLUMN_EXTRA = 2 * CELL_PAD_X + RULE;
/** Line spacing, as a multiple of the font's own line height (ascent + descent + gap). */
export const LINE_SPACING = 1.05;

/** Height of a row (or of the part of it on one page) of `lines` lines, with its padding and the rule under it. */
export const rowHeight = (lines: number, lineHeight: number) => 2 * CELL_PAD_Y + lines * lineHeight + RULE;

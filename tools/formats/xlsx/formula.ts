// Shared formulas (`<f t="shared" si="0">`): only the first cell of the group holds the text; each other cell
// of the group takes it with its relative references moved by the cell's offset from that first one, as
// Excel, openpyxl (its Translator) and SheetJS read it. The references are found as SheetJS finds them (its
// `crefregex`: a cell reference not part of a longer name), outside string literals and quoted sheet names,
// which SheetJS moved too ("A1" in quotes is text, not a reference).
import { columnLetter } from '../model.ts';

const CELL_REF = /(^|[^._A-Z0-9])(\$?)([A-Z]{1,2}|[A-W][A-Z]{2}|X[A-E][A-Z]|XF[A-D])(\$?)(10[0-3]\d{4}|104[0-7]\d{3}|1048[0-4]\d{2}|10485[0-6]\d|104857[0-6]|[1-9]\d{0,5})(?![_.(A-Za-z0-9])/g;
/** Quoted text: a string literal or a quoted sheet name, a doubled quote standing for itself. */
const QUOTED = /"(?:[^"]|"")*"|'(?:[^']|'')*'/g;

const columnOf = (letters: string) => {
  let c = 0;
  for (let i = 0; i < letters.length; i++) c = c * 26 + letters.charCodeAt(i) - 64;
  return c - 1;
};

/** The formula of the cell `dr` rows and `dc` columns away from the group's first cell. */
export function shiftFormula(f: string, dr: number, dc: number): string {
  if (dr === 0 && dc === 0) return f;
  const shift = (part: string) =>
    part.replace(CELL_REF, (_m, lead: string, colAbs: string, col: string, rowAbs: string, row: string) => {
      const c = colAbs ? col : columnLetter(columnOf(col) + dc);
      const r = rowAbs ? row : String(Number(row) + dr);
      return `${lead}${colAbs}${c}${rowAbs}${r}`;
    });
  let out = '';
  let at = 0;
  for (const m of f.matchAll(QUOTED)) {
    out += shift(f.slice(at, m.index)) + m[0];
    at = m.index! + m[0].length;
  }
  return out + shift(f.slice(at));
}

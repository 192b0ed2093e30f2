// How a cell reads in a document (tools.md §2.6 display form, without number formats, which tables do not
// keep): numbers with up to 15 significant digits, no grouping and the language's decimal mark; dates as
// `dd/mm/yyyy` (es) or `yyyy-mm-dd` (en), with `hh:mm` (and `:ss` when there are seconds) when they have a
// time of day; booleans as a spreadsheet in that language shows them; text unchanged; empty cells empty.
import type { Cell } from '../model.ts';
import { plainNumber } from '../csv/write.ts';
import { isTimeOnly } from '../dates.ts';

/** The language numbers and dates are shown in. */
export type Lang = 'es' | 'en';

export interface DisplayWords {
  true: string;
  false: string;
}

const pad = (n: number, size = 2) => String(n).padStart(size, '0');

function timeText(d: Date): string {
  const hm = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  return d.getUTCSeconds() || d.getUTCMilliseconds() ? `${hm}:${pad(d.getUTCSeconds())}` : hm;
}

function dateText(d: Date, lang: Lang): string {
  if (Number.isNaN(d.getTime())) return '';
  if (isTimeOnly(d)) return timeText(d);
  const y = pad(d.getUTCFullYear(), 4);
  const day = lang === 'es' ? `${pad(d.getUTCDate())}/${pad(d.getUTCMonth() + 1)}/${y}` : `${y}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  return d.getUTCHours() || d.getUTCMinutes() || d.getUTCSeconds() || d.getUTCMilliseconds() ? `${day} ${timeText(d)}` : day;
}

function numberText(n: number, lang: Lang): string {
  if (!Number.isFinite(n)) return String(n);
  // 15 significant digits, as a spreadsheet's General format: 0.1 + 0.2 shows as 0.3. A number whose shortest
  // form has at most 15 digits is that form already (any such decimal survives the trip through a double).
  let text = String(n);
  const digits = text.length - (n < 0 ? 1 : 0) - (text.includes('.') ? 1 : 0);
  if (digits > 15 || text.includes('e')) text = plainNumber(Number(n.toPrecision(15)) || 0);
  return lang === 'es' ? text.replace('.', ',') : text;
}

export function displayText(c: Cell, lang: Lang, words: DisplayWords): string {
  if (c === null) return '';
  if (typeof c === 'string') return c;
  if (typeof c === 'number') return numberText(c, lang);
  if (typeof c === 'boolean') return c ? words.true : words.false;
  return dateText(c, lang);
}

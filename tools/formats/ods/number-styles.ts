// Number formats between Excel's codes (`#,##0.00`, `0%`, `dd/mm/yyyy hh:mm`) and ODF data styles
// (<number:number-style>, <number:date-style>… of ODF 1.3 §16.27), both ways, for what the two say alike:
// digits, grouping, decimals, percent, scientific, literal text, and the date and time parts. Only a format's
// first section is read (the one for positive numbers). Anything else (elapsed `[h]`, fractions, conditions,
// colours' meaning) has no translation: the caller writes the value without its format and counts it.

/** The data style for an Excel format code: its element name and children, or null when it has no translation. */
export interface DataStyle {
  element: 'number:number-style' | 'number:percentage-style' | 'number:date-style' | 'number:time-style';
  /** Whether the cells take a date (or date-time) or a time of day, rather than a number. */
  kind: 'number' | 'percentage' | 'date' | 'time';
  children: string;
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const text = (s: string) => (s === '' ? '' : `<number:text>${xmlEscape(s)}</number:text>`);

/** The first section of a code, split outside quotes and escapes. */
function firstSection(code: string): string {
  let quoted = false;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && !quoted) i++;
    else if (c === ';' && !quoted) return code.slice(0, i);
  }
  return code;
}

type Token = { t: 'lit'; s: string } | { t: 'date'; s: string } | { t: 'num'; s: string } | { t: 'ampm' } | { t: 'frac'; n: number };

function tokens(code: string): Token[] | null {
  const out: Token[] = [];
  for (let i = 0; i < code.length; ) {
    const c = code[i];
    const rest = code.slice(i);
    if (c === '"') {
      const end = code.indexOf('"', i + 1);
      if (end < 0) return null;
      out.push({ t: 'lit', s: code.slice(i + 1, end) });
      i = end + 1;
    } else if (c === '\\') {
      out.push({ t: 'lit', s: code[i + 1] ?? '' });
      i += 2;
    } else if (c === '_') {
      out.push({ t: 'lit', s: ' ' });
      i += 2;
    } else if (c === '*') i += 2;
    else if (c === '[') {
      const end = code.indexOf(']', i);
      if (end < 0) return null;
      const inner = code.slice(i + 1, end);
      // [$€-C0A]: a currency symbol and its locale; colours are dropped; elapsed times and conditions have no ODF form.
      if (inner.startsWith('$')) out.push({ t: 'lit', s: inner.slice(1).split('-')[0] });
      else if (/^[hms]+$/i.test(inner) || /^[<>=]/.test(inner)) return null;
      i = end + 1;
    } else if (/^(AM\/PM|A\/P)/i.test(rest)) {
      out.push({ t: 'ampm' });
      i += /^AM\/PM/i.test(rest) ? 5 : 3;
    } else if (/[ymdhs]/i.test(c)) {
      let j = i;
      while (j < code.length && code[j].toLowerCase() === c.toLowerCase()) j++;
      out.push({ t: 'date', s: code.slice(i, j).toLowerCase() });
      i = j;
    } else if (c === '.' && /^\.0+/.test(rest) && out.some((x) => x.t === 'date')) {
      const n = /^\.(0+)/.exec(rest)![1].length;
      out.push({ t: 'frac', n });
      i += n + 1;
    } else if ('0#?,.%'.includes(c) || /^E[+-]/i.test(rest)) {
      const len = /^E[+-]/i.test(rest) ? 2 : 1;
      out.push({ t: 'num', s: code.slice(i, i + len) });
      i += len;
    } else if (c === '@' || c === '/') {
      if (c === '@') return null;
      out.push({ t: 'lit', s: c });
      i++;
    } else {
      out.push({ t: 'lit', s: c });
      i++;
    }
  }
  return out;
}

/** The ODF data style of an Excel format code, or null. `General` and `@` are no style at all: null too. */
export function dataStyleOf(code: string): DataStyle | null {
  const tk = tokens(firstSection(code));
  if (!tk || tk.length === 0) return null;
  if (tk.some((x) => x.t === 'date' || x.t === 'ampm')) return dateStyle(tk);
  return numberStyle(tk);
}

function dateStyle(tk: Token[]): DataStyle | null {
  if (tk.some((x) => x.t === 'num' && x.s !== '.')) return null;
  let xml = '';
  let hasDate = false;
  const ampm = tk.some((x) => x.t === 'ampm');
  tk.forEach((x, i) => {
    if (x.t === 'lit' || (x.t === 'num' && x.s === '.')) xml += text(x.t === 'lit' ? x.s : '.');
    else if (x.t === 'ampm') xml += '<number:am-pm/>';
    else if (x.t === 'frac') return;
    else if (x.t === 'date') {
      const s = x.s;
      const long = s.length >= 2 ? ' number:style="long"' : '';
      switch (s[0]) {
        case 'y':
          hasDate = true;
          xml += `<number:year${s.length > 2 ? ' number:style="long"' : ''}/>`;
          break;
        case 'd':
          hasDate = true;
          xml += s.length >= 3 ? `<number:day-of-week${s.length > 3 ? ' number:style="long"' : ''}/>` : `<number:day${long}/>`;
          break;
        case 'h':
          xml += `<number:hours${long}/>`;
          break;
        case 's': {
          const f = tk[i + 1];
          xml += `<number:seconds${long}${f?.t === 'frac' ? ` number:decimal-places="${f.n}"` : ''}/>`;
          break;
        }
        case 'm': {
          // Minutes after hours or before seconds; a month otherwise.
          const before = tk.slice(0, i).reverse().find((y) => y.t === 'date');
          const after = tk.slice(i + 1).find((y) => y.t === 'date');
          if (before?.t === 'date' && before.s[0] === 'h' || after?.t === 'date' && after.s[0] === 's') xml += `<number:minutes${long}/>`;
          else {
            hasDate = true;
            xml += s.length >= 3 ? `<number:month number:textual="true"${s.length > 3 ? ' number:style="long"' : ''}/>` : `<number:month${long}/>`;
          }
          break;
        }
      }
    }
  });
  if (ampm && !xml.includes('number:hours')) return null;
  return hasDate ? { element: 'number:date-style', kind: 'date', children: xml } : { element: 'number:time-style', kind: 'time', children: xml };
}

function numberStyle(tk: Token[]): DataStyle | null {
  const digits = tk.filter((x) => x.t === 'num');
  if (digits.length === 0) return null;
  const first = tk.indexOf(digits[0]);
  const last = tk.indexOf(digits[digits.length - 1]);
  const prefix = tk.slice(0, first);
  const suffix = tk.slice(last + 1);
  const core = digits.map((x) => x.s).join('');
  const lits = (xs: Token[]) => xs.map((x) => (x.t === 'lit' ? x.s : '')).join('');
  const m = /^([#0?,]*)(?:\.([0#?]*))?(%?)(?:[Ee][+-](0+))?(%?)$/.exec(core);
  if (!m || tk.slice(first, last + 1).some((x) => x.t !== 'num')) return null;
  const [, int, dec = '', pct1, exp, pct2] = m;
  const percent = pct1 !== '' || pct2 !== '';
  const minInt = (int.match(/0/g) ?? []).length;
  const decimals = dec.length;
  const minDecimals = (dec.match(/0/g) ?? []).length;
  const grouping = /[#0?],[#0?]/.test(int);
  const attrs = `number:decimal-places="${decimals}" number:min-decimal-places="${minDecimals}" number:min-integer-digits="${minInt}"${grouping ? ' number:grouping="true"' : ''}`;
  const body = exp !== undefined ? `<number:scientific-number ${attrs} number:min-exponent-digits="${exp.length}"/>` : `<number:number ${attrs}/>`;
  return {
    element: percent ? 'number:percentage-style' : 'number:number-style',
    kind: percent ? 'percentage' : 'number',
    children: `${text(lits(prefix))}${body}${percent ? text('%') : ''}${text(lits(suffix).replace(/%/g, ''))}`,
  };
}

/** A data style's parts as read from a file: the element's local name and its children, in order. */
export interface StylePart {
  name: string;
  attrs: Record<string, string>;
  text?: string;
}

const quote = (s: string) => (s === '' ? '' : /^[- /:.,()$€£¥+]+$/.test(s) ? s : `"${s.replace(/"/g, '')}"`);

/** The Excel code of an ODF data style read from a file (`number-style`, `date-style`…), or null when it has none. */
export function excelCodeOf(style: string, parts: readonly StylePart[]): string | null {
  if (style === 'boolean-style' || style === 'text-style') return null;
  let out = '';
  for (const p of parts) {
    const long = p.attrs.style === 'long';
    switch (p.name) {
      case 'text':
        out += p.text === '%' && style === 'percentage-style' ? '%' : quote(p.text ?? '');
        break;
      case 'currency-symbol':
        out += quote(p.text ?? '');
        break;
      case 'number':
      case 'scientific-number': {
        const minInt = Number(p.attrs['min-integer-digits'] ?? 1);
        const dec = Number(p.attrs['decimal-places'] ?? 0);
        const minDec = Number(p.attrs['min-decimal-places'] ?? dec);
        let int = '0'.repeat(Math.max(minInt, p.name === 'number' && p.attrs.grouping === 'true' ? 1 : 0));
        if (p.attrs.grouping === 'true') int = `#,${'#'.repeat(Math.max(0, 3 - int.length))}${int}`;
        if (int === '') int = '#';
        out += int + (dec > 0 ? `.${'0'.repeat(minDec)}${'#'.repeat(Math.max(0, dec - minDec))}` : '');
        if (p.name === 'scientific-number') out += `E+${'0'.repeat(Number(p.attrs['min-exponent-digits'] ?? 2))}`;
        break;
      }
      case 'year':
        out += long ? 'yyyy' : 'yy';
        break;
      case 'month':
        out += p.attrs.textual === 'true' ? (long ? 'mmmm' : 'mmm') : long ? 'mm' : 'm';
        break;
      case 'day':
        out += long ? 'dd' : 'd';
        break;
      case 'day-of-week':
        out += long ? 'dddd' : 'ddd';
        break;
      case 'hours':
        out += long ? 'hh' : 'h';
        break;
      case 'minutes':
        out += long ? 'mm' : 'm';
        break;
      case 'seconds': {
        const places = Number(p.attrs['decimal-places'] ?? 0);
        out += (long ? 'ss' : 's') + (places > 0 ? `.${'0'.repeat(places)}` : '');
        break;
      }
      case 'am-pm':
        out += 'AM/PM';
        break;
      default:
        // Fractions, embedded text, eras, quarters, week numbers: no code the other readers agree on.
        return null;
    }
  }
  return out === '' ? null : out;
}

// YAML 1.2 text of rows (tools.md excel-to-yaml): a block sequence of mappings (or of sequences), 2-space
// indentation, LF, no document marker, tags, anchors or aliases. Values are in machine form (§2.6): numbers
// plain and shortest, booleans, `null`, dates as unquoted ISO 8601. A string is left plain only when no YAML
// 1.1 or 1.2 reader can take it for anything else; otherwise single-quoted, or double-quoted with escapes when
// it holds line breaks or other characters a plain or single-quoted scalar cannot carry.
//
// Hand-written rather than the `yaml` package's stringify: that one quotes for YAML 1.2 only, so `yes`, `on`,
// `12:30` or `1_000` come out plain and a YAML 1.1 reader (PyYAML, many configuration loaders) reads a boolean
// or a number; test/formats/yaml-write.test.ts shows it, and that every value here reads back as itself in both.
import { FirstRows, rowsOf } from '../batch.ts';
import { CellError, FullCell, isoDate, type AnyCell, type RowBatch, type TableHead, type Written } from '../model.ts';
import { plainNumber } from '../csv/write.ts';
import { isTimeOnly, isoTime } from '../dates.ts';
import { joinBytes } from '../util/bytes.ts';
import type { TableWriter } from '../xlsx/write.ts';

export interface YamlLayout {
  /** Mapping keys, one per column (objects), or null for a list of lists. */
  keys: string[] | null;
  /** Objects leave out keys whose cell is empty. */
  skipEmpty: boolean;
  width: number;
}

// Scalars YAML 1.1 or 1.2 resolve to something other than a string (booleans, nulls, numbers in any base or
// with `_`, sexagesimal numbers, infinities, timestamps), matched loosely: a plain string that looks like one
// is quoted even where a reader would not have taken it.
const SPECIAL_WORD = /^(?:y|n|yes|no|on|off|true|false|null|~|=|<<)$/i;
const NUMBER_LIKE = /^[-+]?(?:[0-9][0-9a-zA-Z_.:+-]*|\.[0-9][0-9a-zA-Z_.:+-]*|\.(?:inf|nan))$/i;
const TIMESTAMP_LIKE = /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt\s]|$)/;
// First characters that are indicators, and sequences that end or comment a plain scalar.
const INDICATOR_START = /^[-?:,[\]{}#&*!|>'"%@`]/;
const BREAKS_PLAIN = /: |:$| #|^\s|\s$/;
// What only a double-quoted scalar can hold: line breaks, tabs and other controls, C1 controls, U+2028/2029,
// the BOM, non-characters, and lone surrogates (replaced, being no character at all).
const NEEDS_ESCAPE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/;
/** YAML allows implicit keys of at most 1024 characters. */
const MAX_IMPLICIT_KEY = 1024;

const ESCAPES: Record<string, string> = { '\0': '\\0', '\u0007': '\\a', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\u000b': '\\v', '\f': '\\f', '\r': '\\r', '\u001b': '\\e', '"': '\\"', '\\': '\\\\', '\u0085': '\\N', '\u2028': '\\L', '\u2029': '\\P' };

function doubleQuoted(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const code = s.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      out += ch + s[++i];
      continue;
    }
    const named = ESCAPES[ch];
    if (named !== undefined) out += named;
    else if (code >= 0xd800 && code <= 0xdfff) out += '\ufffd';
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) out += '\\x' + code.toString(16).padStart(2, '0');
    else if (code === 0xfeff || code === 0xfffe || code === 0xffff) out += '\\u' + code.toString(16);
    else out += ch;
  }
  return out + '"';
}

/** A string as a YAML scalar: plain when nothing could misread it, else quoted. */
export function yamlString(s: string): string {
  if (NEEDS_ESCAPE.test(s)) return doubleQuoted(s);
  if (s === '' || SPECIAL_WORD.test(s) || NUMBER_LIKE.test(s) || TIMESTAMP_LIKE.test(s) || INDICATOR_START.test(s) || BREAKS_PLAIN.test(s) || s.startsWith('...')) {
    return `'${s.replace(/'/g, "''")}'`;
  }
  return s;
}

/** A cell in machine form as a YAML scalar. */
export function yamlValue(c: AnyCell): string {
  if (c === null) return 'null';
  if (c instanceof FullCell) return yamlValue(c.value);
  if (c instanceof CellError) return yamlString(c.text);
  if (typeof c === 'string') return yamlString(c);
  if (typeof c === 'boolean') return c ? 'true' : 'false';
  if (typeof c === 'number') return Number.isNaN(c) ? '.nan' : c === Infinity ? '.inf' : c === -Infinity ? '-.inf' : plainNumber(c);
  if (Number.isNaN(c.getTime())) return 'null';
  // A time of day alone is no date: quoted text, which a 1.1 reader would otherwise take as a base-60 number.
  return isTimeOnly(c) ? yamlString(isoTime(c)) : isoDate(c);
}

/** A mapping key: as a string, and explicit (`? key`) past the length of an implicit key. */
function keyText(k: string): { text: string; explicit: boolean } {
  const text = yamlString(k);
  return { text, explicit: [...text].length > MAX_IMPLICIT_KEY };
}

/** Writes rows as YAML as they come; the text is encoded a batch at a time. */
export function yamlWriter(head: TableHead, layout: YamlLayout): TableWriter {
  const chunks: Uint8Array[] = [];
  const encoder = new TextEncoder();
  const first = new FirstRows();
  const keys = layout.keys?.map(keyText) ?? null;
  let count = 0;
  return {
    write(batch: RowBatch<AnyCell> | readonly (readonly AnyCell[])[]) {
      const rows = rowsOf(batch);
      first.take(rows);
      count += rows.length;
      let out = '';
      for (const row of rows) {
        let lead = '- ';
        let written = 0;
        for (let c = 0; c < layout.width; c++) {
          const cell = row[c] ?? null;
          if (keys === null) {
            out += `${lead}- ${yamlValue(cell)}\n`;
          } else {
            if (layout.skipEmpty && cell === null) continue;
            const k = keys[c];
            out += k.explicit ? `${lead}? ${k.text}\n  : ${yamlValue(cell)}\n` : `${lead}${k.text}: ${yamlValue(cell)}\n`;
          }
          lead = '  ';
          written++;
        }
        if (written === 0) out += keys === null ? '- []\n' : '- {}\n';
      }
      chunks.push(encoder.encode(out));
    },
    end(): Written {
      // An empty list is `[]`: an empty document would read as null.
      const bytes = count === 0 ? encoder.encode('[]\n') : joinBytes(chunks);
      return { bytes, preview: first.preview(head.name, head.header, head.width, count) };
    },
  };
}

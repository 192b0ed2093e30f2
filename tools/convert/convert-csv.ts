// A byte-faithful rewrite of a CSV (tools.md §5 convert-csv): another delimiter, encoding, quoting, line end
// or decimal mark, and nothing else. Fields are copied as written (no trimming, no types, ragged rows kept
// as they are, line breaks inside fields untouched); only `decimal-separator` changes field texts, and only
// those of the form `[+-]digits.digits` (or `,`). Windows-1252 output refuses a character it has no byte for.
import * as v from 'valibot';
import { defineTool } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { editedName } from '../core/schema.ts';
import { EncodedText, readRawCsv, rewriteCsv, unencodable1252, type RawEncoding } from '../formats/index.ts';

const INPUT_DELIMITERS = { comma: ',', semicolon: ';', tab: '\t', pipe: '|' } as const;
const DELIMITERS = { ...INPUT_DELIMITERS, space: ' ' } as const;
const NAMES: Record<string, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab', '|': 'pipe' };
type Named = keyof typeof DELIMITERS;

// One character that cannot be confused with quoting or a line end.
const literal = v.pipe(v.string(), { ...v.regex(/^[^"\r\n\ud800-\udfff]$/), expects: 'comma, semicolon, tab, pipe, space or one character other than a double quote, CR or LF' });

const POINT = /^[+-]?\d+\.\d+$/;
const COMMA = /^[+-]?\d+,\d+$/;

export default defineTool({
  id: 'convert-csv',
  category: 'convert',
  input: { kind: 'file', formats: ['csv', 'tsv', 'txt'] },
  options: v.strictObject({
    'input-delimiter': v.optional(v.picklist(['auto', 'comma', 'semicolon', 'tab', 'pipe']), 'auto'),
    'input-encoding': v.optional(v.picklist(['auto', 'utf-8', 'windows-1252', 'iso-8859-1', 'utf-16le', 'utf-16be']), 'auto'),
    delimiter: v.optional(v.union([v.picklist(Object.keys(DELIMITERS) as Named[]), literal]), 'semicolon'),
    encoding: v.optional(v.picklist(['utf-8', 'windows-1252', 'utf-16le']), 'utf-8'),
    bom: v.optional(v.boolean(), true),
    'decimal-separator': v.optional(v.picklist(['keep', 'comma', 'point']), 'keep'),
    quote: v.optional(v.picklist(['minimal', 'all']), 'minimal'),
    'line-ending': v.optional(v.picklist(['crlf', 'lf']), 'crlf'),
  }),
  run({ file }, opts, ctx) {
    const delimiter = Object.hasOwn(DELIMITERS, opts.delimiter) ? DELIMITERS[opts.delimiter as Named] : opts.delimiter;
    const decimal = opts['decimal-separator'];
    if (decimal === 'comma' && delimiter === ',') throw new ToolError('invalid_option', { option: 'decimal-separator', messageKey: 'error-details.decimal-comma', params: { option: 'decimal-separator' } });
    const given = opts['input-delimiter'];
    const csv = readRawCsv(file, {
      ...(given === 'auto' ? {} : { delimiter: INPUT_DELIMITERS[given] }),
      ...(opts['input-encoding'] === 'auto' ? {} : { encoding: opts['input-encoding'] as RawEncoding }),
    });
    const refuse = (bad: { char: string; line: number }) =>
      new ToolError('invalid_option', { option: 'encoding', messageKey: 'error-details.not-1252', params: { option: 'encoding', char: bad.char, code: `U+${bad.char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`, line: bad.line } });
    // Decimal marks: only whole fields that are a plain decimal number.
    const field = decimal === 'keep' ? undefined : decimal === 'comma' ? (f: string) => (POINT.test(f) ? f.replace('.', ',') : undefined) : (f: string) => (COMMA.test(f) ? f.replace(',', '.') : undefined);
    const rewrite = { delimiter, quote: opts.quote, lineEnding: opts['line-ending'] === 'crlf' ? '\r\n' : '\n', ...(field ? { field } : {}) } as const;
    const encoded = new EncodedText(opts.encoding, opts.bom);
    const out = rewriteCsv(csv.text, csv.delimiter, rewrite, (t) => encoded.push(t));
    if ('unclosedLine' in out) throw new ToolError('invalid_file', { option: 'file', messageKey: 'error-details.unclosed-quote', params: { name: file.name.slice(0, 200), line: out.unclosedLine } });
    const badDelimiter = opts.encoding === 'windows-1252' ? unencodable1252(delimiter) : null;
    if (badDelimiter) throw refuse(badDelimiter);
    const { widths, changed } = out;
    const usual = [...widths.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0;
    const ragged = [...widths.entries()].reduce((n, [w, c]) => (w === usual ? n : n + c), 0);

    if (encoded.bad !== null) {
      // Its line: the rewrite made again whole, only for this error.
      const pieces: string[] = [];
      rewriteCsv(csv.text, csv.delimiter, rewrite, (t) => pieces.push(t) > 0);
      throw refuse(unencodable1252(pieces.join(''))!);
    }
    const bytes = encoded.bytes();
    const found = { delimiter: ctx.t(`names.delimiter-${NAMES[csv.delimiter] ?? 'comma'}`), encoding: csv.encoding, rows: out.records, changed };
    ctx.message('info', 'csv_converted', found);
    if (ragged > 0) ctx.message('info', 'csv_ragged_kept', { count: ragged, fields: usual });
    const ext = delimiter === '\t' ? 'tsv' : 'csv';
    return { files: [ctx.file(editedName(file, ctx.name('converted'), ext, ctx), bytes, { charset: opts.encoding })] };
  },
});

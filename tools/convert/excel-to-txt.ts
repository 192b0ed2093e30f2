// Writes the first sheet (or the CSV) as fixed-width text (tools/formats/txt/write.ts): the chosen columns in
// display form (§2.6), each padded to its width (given, or the longest text of the column), aligned right when
// every value is a number or a date. Line breaks and tabs in a cell become one space (info), other control
// characters are removed (warning); a value wider than its column is refused (or cut with `too-long=truncate`).
import * as v from 'valibot';
import { columnList, resolveColumns } from '../core/columns.ts';
import { defineTool, type ToolContext } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf } from '../core/files.ts';
import { hasHeader } from '../core/schema.ts';
import { columnLetter, numericColumns, openWorkbook, shownRows, shownTitles, Unencodable, writeFixedWidth } from '../formats/index.ts';

const MAX_WIDTH = 1000;
const SEPARATORS = { space: ' ', none: '', pipe: ' | ' } as const;

// `10,,8`: an empty item is auto. As a JSON array, null is auto.
const widthList = v.optional(
  v.union([v.pipe(v.string(), v.maxLength(20_000)), v.pipe(v.array(v.union([v.pipe(v.number(), v.integer()), v.null()])), v.maxLength(16_384))]),
  '',
);

export default defineTool({
  id: 'excel-to-txt',
  category: 'convert',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    'has-header': hasHeader,
    'include-header': v.optional(v.boolean(), true),
    columns: columnList,
    widths: widthList,
    align: v.optional(v.picklist(['auto', 'left', 'right']), 'auto'),
    'column-separator': v.optional(v.picklist(['space', 'none', 'pipe']), 'space'),
    'header-line': v.optional(v.boolean(), false),
    'too-long': v.optional(v.picklist(['error', 'truncate']), 'error'),
    encoding: v.optional(v.picklist(['utf-8', 'windows-1252']), 'utf-8'),
    'line-ending': v.optional(v.picklist(['crlf', 'lf']), 'crlf'),
  }),
  run({ file }, opts, ctx) {
    const table = openWorkbook(file, ctx, { hasHeader: opts['has-header'], detectTypes: false, sheets: 'first' }).table();
    if (table.width === 0) throw new ToolError('invalid_file', { option: 'file', messageKey: 'error-details.empty', params: { name: file.name.slice(0, 200) } });
    const picked = resolveColumns(table, opts.columns, 'columns', ctx);
    const columns = picked.length > 0 ? picked : Array.from({ length: table.width }, (_, i) => i);
    const given = widthsOf(opts.widths, columns.length, ctx);

    const display = { lang: ctx.lang, words: { true: ctx.t('display.true'), false: ctx.t('display.false') } };
    const all = table.rows();
    const titleRows = opts['has-header'] && opts['include-header'] ? 1 : 0;
    const firstDataRow = opts['has-header'] ? 2 : 1;
    const clean = new Cleaner();
    const allTitles = shownTitles(table, display, (n) => ctx.name('column', { n }));
    const titles = titleRows ? columns.map((c) => clean.text(allTitles[c], 1, c)) : null;
    const shown = shownRows(all, table.width, display);
    const rows = shown.map((r, i) => columns.map((c) => clean.text(r[c], i + firstDataRow, c)));
    const numeric = numericColumns(table, all, { dates: true });
    const right = columns.map((c) => (opts.align === 'auto' ? numeric[c] : opts.align === 'right'));

    const len = (s: string) => [...s].length;
    const widths = columns.map((_, i) => {
      if (given[i] !== null) return given[i]!;
      let w = titles ? len(titles[i]) : 0;
      for (const r of rows) w = Math.max(w, len(r[i]));
      return Math.min(MAX_WIDTH, Math.max(1, w));
    });
    const columnName = (i: number) => table.header?.[columns[i]]?.trim() || ctx.name('column', { n: columns[i] + 1 });
    let cut = 0;
    let firstCut = '';
    const fit = (text: string, i: number, row: number) => {
      const n = len(text);
      if (n <= widths[i]) return text;
      if (opts['too-long'] === 'error') {
        throw new ToolError('invalid_option', { option: 'widths', messageKey: 'error-details.txt-too-long', params: { option: 'widths', column: columnName(i), row, length: n, width: widths[i] } });
      }
      cut++;
      firstCut ||= `${columnLetter(columns[i])}${row}`;
      return [...text].slice(0, widths[i]).join('');
    };
    const fittedTitles = titles?.map((t, i) => fit(t, i, 1)) ?? null;
    const fitted = rows.map((r, k) => r.map((t, i) => fit(t, i, k + firstDataRow)));

    const rule = opts['header-line'] && fittedTitles !== null;
    let written;
    try {
      written = writeFixedWidth(table.name, fittedTitles, fitted, {
        widths,
        right,
        separator: SEPARATORS[opts['column-separator']],
        rule,
        lineEnd: opts['line-ending'] === 'crlf' ? '\r\n' : '\n',
        encoding: opts.encoding,
      });
    } catch (err) {
      if (!(err instanceof Unencodable)) throw err;
      const dataLine = err.line - (fittedTitles ? 1 : 0) - (rule ? 1 : 0);
      const row = dataLine < 0 ? 1 : dataLine + firstDataRow;
      const code = `U+${err.char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
      throw new ToolError('invalid_option', { option: 'encoding', messageKey: 'error-details.txt-unencodable', params: { option: 'encoding', char: err.char, code, row } });
    }
    if (clean.breaks > 0) ctx.message('info', 'txt_breaks', { count: clean.breaks });
    if (clean.removed > 0) ctx.message('warning', 'txt_controls_removed', { count: clean.removed, cell: clean.first });
    if (cut > 0) ctx.message('warning', 'txt_truncated', { count: cut, cell: firstCut });
    const out = ctx.file(`${baseNameOf(file.name)}.txt`, written);
    if (opts.encoding === 'windows-1252') out.contentType = 'text/plain; charset=windows-1252';
    ctx.message('info', 'txt_written', { file: out.name, sheet: table.name, rows: rows.length, columns: columns.length, width: widths.reduce((a, b) => a + b, 0) + SEPARATORS[opts['column-separator']].length * (columns.length - 1) });
    return { files: [out] };
  },
});

/** The widths given, one per written column: null where auto. */
function widthsOf(value: string | readonly (number | null)[], count: number, ctx: ToolContext): (number | null)[] {
  const items = typeof value === 'string' ? (value.trim() === '' ? [] : value.split(',').map((s) => s.trim())) : value.map((x) => (x === null ? '' : String(x)));
  const bad = (key: string, params: Record<string, string | number>) => new ToolError('invalid_option', { option: 'widths', messageKey: `error-details.${key}`, params: { option: 'widths', ...params } });
  while (items.length > 0 && items[items.length - 1] === '') items.pop();
  if (items.length > count) throw bad('txt-widths-count', { count: items.length, columns: count });
  return Array.from({ length: count }, (_, i) => {
    const item = items[i] ?? '';
    if (item === '') return null;
    const n = /^\d{1,7}$/.test(item) ? Number(item) : NaN;
    if (!(n >= 1 && n <= MAX_WIDTH)) throw bad('txt-width-range', { received: item.slice(0, 20), max: MAX_WIDTH });
    return n;
  });
}

/** Cell text as one line of NFC text: line breaks and tabs one space each, other control characters removed. */
class Cleaner {
  breaks = 0;
  removed = 0;
  first = '';

  text(s: string, row: number, col: number): string {
    if (!/[\u0000-\u001f\u007f-\u009f]/.test(s)) return s.normalize('NFC');
    const out = s
      .replace(/\r\n|[\r\n\t]/g, () => {
        this.breaks++;
        return ' ';
      })
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, () => {
        this.removed++;
        this.first ||= `${columnLetter(col)}${row}`;
        return '';
      });
    return out.normalize('NFC');
  }
}

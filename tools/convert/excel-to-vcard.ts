// One vCard per row of the first sheet (or the CSV): columns are mapped to contact fields by the field options,
// then, for the fields not given, by their usual Spanish and English titles (tools/formats/vcard/fields.ts).
// Values are written in machine form (tools.md §2.6), escaped and folded (tools/formats/vcard/write.ts). A row
// whose mapped cells are all empty is skipped (info); a row with data but no name, company, email or phone
// cannot be a contact and is skipped too, with a warning giving the count and the first row.
import * as v from 'valibot';
import { columnList, optionalColumnRef, resolveColumn, resolveColumns } from '../core/columns.ts';
import { defineTool } from '../core/define.ts';
import { ToolError } from '../core/errors.ts';
import { baseNameOf } from '../core/files.ts';
import { CONTACT_FIELDS, csvText, detectFields, escapeValue, listText, openWorkbook, VCARD_VERSIONS, VcardWriter, type Cell, type VcardProperty } from '../formats/index.ts';

const MAX_FILES = 10_000;
/** Fields that can give FN, in the order FN is taken from them after the names. */
const NAMING = ['full-name', 'first-name', 'last-name', 'org', 'email', 'phone', 'mobile'];

export default defineTool({
  id: 'excel-to-vcard',
  category: 'convert',
  input: { kind: 'file', formats: ['xlsx', 'xls', 'csv'] },
  options: v.strictObject({
    version: v.optional(v.picklist(VCARD_VERSIONS), '3.0'),
    output: v.optional(v.picklist(['single', 'files']), 'single'),
    'auto-detect': v.optional(v.boolean(), true),
    'full-name': optionalColumnRef,
    'first-name': optionalColumnRef,
    'last-name': columnList,
    org: optionalColumnRef,
    'job-title': optionalColumnRef,
    phone: columnList,
    mobile: columnList,
    email: columnList,
    address: columnList,
    city: optionalColumnRef,
    region: optionalColumnRef,
    'postal-code': optionalColumnRef,
    country: optionalColumnRef,
    birthday: optionalColumnRef,
    url: optionalColumnRef,
    note: optionalColumnRef,
  }),
  run({ file }, opts, ctx) {
    const table = openWorkbook(file, ctx, { hasHeader: true, sheets: 'first' }).table();
    const titles = Array.from({ length: table.width }, (_, i) => table.header?.[i] ?? '');

    // Fields given as options first, then the columns left, by their titles.
    const columns = new Map<string, number[]>();
    const owner = new Map<number, string>();
    for (const f of CONTACT_FIELDS) {
      const value = (opts as Record<string, unknown>)[f.id] as string | number | (string | number)[];
      if (value === '' || (Array.isArray(value) && value.length === 0)) continue;
      const cols = f.max === 1 ? [resolveColumn(table, value as string | number, f.id, ctx)] : resolveColumns(table, value as string, f.id, ctx, { min: 1, max: f.max });
      for (const c of cols) {
        const other = owner.get(c);
        if (other !== undefined) throw new ToolError('invalid_option', { option: f.id, messageKey: 'error-details.vcard_column_used', params: { option: f.id, column: titles[c], other } });
        owner.set(c, f.id);
      }
      columns.set(f.id, cols);
    }
    if (opts['auto-detect']) {
      const counts = new Map([...columns].map(([id, cols]) => [id, cols.length]));
      for (const [col, id] of detectFields(titles, new Set(owner.keys()), counts)) {
        columns.set(id, [...(columns.get(id) ?? []), col]);
        owner.set(col, id);
      }
    }
    if (!NAMING.some((id) => columns.has(id))) {
      throw new ToolError('invalid_option', { option: 'full-name', messageKey: 'error-details.vcard_no_name', params: { titles: listText(titles.filter((t) => t !== ''), 50), options: NAMING.join(', ') } });
    }
    const mapped = CONTACT_FIELDS.filter((f) => columns.has(f.id));
    ctx.message('info', 'vcard_mapping', { mapping: [...owner].sort((a, b) => a[0] - b[0]).map(([c, id]) => `${titles[c] || c + 1} → ${id}`).join(', ') });

    const v3 = opts.version === '3.0';
    const writer = new VcardWriter(opts.version);
    const cards: { fn: string; props: VcardProperty[]; row: Cell[] }[] = [];
    let empty = 0;
    const nameless = { count: 0, row: 0 };
    const birthdays = { count: 0, row: 0, value: '' };
    const rows = table.rows();
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r];
      // Row numbers as in the file: the title row is 1.
      const line = r + 2;
      const texts = (id: string) => (columns.get(id) ?? []).map((c) => textOf(row[c] ?? null)).filter((s) => s !== '');
      const one = (id: string) => texts(id)[0] ?? '';
      const values = new Map(mapped.map((f) => [f.id, texts(f.id)]));
      if ([...values.values()].every((list) => list.length === 0)) {
        empty++;
        continue;
      }
      const first = one('first-name');
      const last = texts('last-name').join(' ');
      const phones = [...texts('phone'), ...texts('mobile')];
      const fn = one('full-name') || [first, last].filter((s) => s !== '').join(' ') || one('org') || one('email') || phones[0] || '';
      if (fn === '') {
        if (nameless.count++ === 0) nameless.row = line;
        continue;
      }
      const props: VcardProperty[] = [{ name: 'FN', value: escapeValue(fn) }];
      if (v3 || first !== '' || last !== '') props.push({ name: 'N', value: `${escapeValue(last)};${escapeValue(first)};;;` });
      if (one('org') !== '') props.push({ name: 'ORG', value: escapeValue(one('org')) });
      if (one('job-title') !== '') props.push({ name: 'TITLE', value: escapeValue(one('job-title')) });
      for (const t of texts('phone')) props.push({ name: v3 ? 'TEL;TYPE=VOICE' : 'TEL;TYPE=voice', value: escapeValue(t) });
      for (const t of texts('mobile')) props.push({ name: v3 ? 'TEL;TYPE=CELL' : 'TEL;TYPE=cell', value: escapeValue(t) });
      for (const t of texts('email')) props.push({ name: v3 ? 'EMAIL;TYPE=INTERNET' : 'EMAIL', value: escapeValue(t) });
      const adr = [texts('address').join(', '), one('city'), one('region'), one('postal-code'), one('country')];
      if (adr.some((s) => s !== '')) props.push({ name: 'ADR', value: `;;${adr.map(escapeValue).join(';')}` });
      const birthdayCol = columns.get('birthday')?.[0];
      const bday = birthdayCol === undefined ? null : row[birthdayCol] ?? null;
      if (bday !== null && textOf(bday) !== '') {
        const day = birthdayOf(bday);
        if (day) props.push({ name: 'BDAY', value: v3 ? day : day.replaceAll('-', '') });
        else if (birthdays.count++ === 0) Object.assign(birthdays, { row: line, value: textOf(bday).slice(0, 40) });
      }
      if (one('url') !== '') props.push({ name: 'URL', value: escapeValue(one('url')) });
      if (one('note') !== '') props.push({ name: 'NOTE', value: escapeValue(one('note')) });
      cards.push({ fn, props, row: mapped.map((f) => values.get(f.id)!.join(', ') || null) });
    }

    if (empty > 0) ctx.message('info', 'vcard_rows_empty', { count: empty });
    if (nameless.count > 0) ctx.message('warning', 'vcard_rows_nameless', { count: nameless.count, row: nameless.row });
    if (birthdays.count > 0) ctx.message('warning', 'vcard_birthdays_left_out', { count: birthdays.count, row: birthdays.row, value: birthdays.value });
    ctx.message('info', 'vcard_written', { cards: cards.length, rows: rows.length, version: opts.version });

    const head = { name: table.name, header: mapped.map((f) => f.id), width: mapped.length };
    const base = baseNameOf(file.name) || ctx.name('file');
    if (opts.output === 'single') {
      for (const c of cards) writer.add(c.props);
      return { files: [ctx.file(`${base}.vcf`, writer.end(head, cards.map((c) => c.row)))] };
    }
    if (cards.length > MAX_FILES) throw new ToolError('invalid_option', { option: 'output', messageKey: 'error-details.vcard_too_many_files', params: { count: cards.length, max: MAX_FILES } });
    return {
      files: cards.map((c) => {
        const one = new VcardWriter(opts.version);
        one.add(c.props);
        return ctx.file(`${c.fn}.vcf`, one.end(head, [c.row]));
      }),
    };
  },
});

/** A cell's text in machine form, blank text counting as empty. */
function textOf(c: Cell): string {
  if (c === null) return '';
  const s = csvText(c);
  return s.trim() === '' ? '' : s;
}

/** `yyyy-mm-dd` of a birthday: a date cell, or text in `dd/mm/yyyy` or `yyyy-mm-dd`; null for anything else. */
function birthdayOf(c: Exclude<Cell, null>): string | null {
  if (c instanceof Date) return c.toISOString().slice(0, 10);
  if (typeof c !== 'string') return null;
  const s = c.trim();
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s) ?? /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return null;
  const [y, mo, d] = s.includes('/') ? [m[3], m[2], m[1]] : [m[1], m[2], m[3]];
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d) || Number(y) < 1) return null;
  return `${y}-${mo.padStart(2, '0')}-${d.padStart(2, '0')}`;
}

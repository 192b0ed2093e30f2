// @ts-check
// The options form of a tool, generated from the JSON Schema of its catalogue entry: a checkbox for a boolean,
// a select for a closed set (with a text field when the schema also admits free values), a number field with
// the schema's range, a text field otherwise; defaults filled in, the schema's description as help.
import { h } from './dom.js';
import { t } from './i18n.js';

/**
 * @typedef {{ type?: string | string[], enum?: unknown[], anyOf?: Prop[], default?: unknown, description?: string,
 *   minimum?: number, maximum?: number, minLength?: number, maxLength?: number, pattern?: string }} Prop
 * @typedef {{ name: string, prop: Prop, required: boolean, read: () => unknown, control: HTMLElement, element: HTMLElement }} Field
 */

/** Properties that are not options: the files and the language, which the page sets itself. */
const NOT_OPTIONS = new Set(['file', 'files', 'language']);

/** @param {Prop} prop */
function closedSet(prop) {
  if (Array.isArray(prop.enum)) return { values: prop.enum.map(String), open: false };
  const alts = prop.anyOf ?? [];
  const closed = alts.find((a) => Array.isArray(a.enum));
  if (!closed) return null;
  return { values: (closed.enum ?? []).map(String), open: alts.some((a) => !Array.isArray(a.enum)) };
}

/** @param {Prop} prop */
const typeOf = (prop) => (Array.isArray(prop.type) ? prop.type.find((x) => x !== 'null') : prop.type);

/**
 * Builds the fields of a schema into `container`; `onChange` runs whenever a value changes.
 * @param {HTMLElement} container
 * @param {{ properties?: Record<string, Prop>, required?: string[] }} schema
 * @param {string} toolId
 * @param {() => void} onChange
 * @param {string[]} [fileFields] further file inputs (`lookup-file`), which have pickers of their own
 * @returns {Field[]}
 */
export function buildOptions(container, schema, toolId, onChange, fileFields = []) {
  /** @type {Field[]} */
  const fields = [];
  const required = new Set(schema.required ?? []);
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (NOT_OPTIONS.has(name) || fileFields.includes(name)) continue;
    fields.push(field(name, prop, required.has(name), `opt-${toolId}-${name}`, onChange));
  }
  container.replaceChildren(...(fields.length ? fields.map((f) => f.element) : [h('p', { class: 'help', text: t('web.no-options') })]));
  return fields;
}

/**
 * @param {string} name
 * @param {Prop} prop
 * @param {boolean} required
 * @param {string} id
 * @param {() => void} onChange
 * @returns {Field}
 */
function field(name, prop, required, id, onChange) {
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const describedBy = `${helpId} ${errorId}`;
  const help = h('p', { id: helpId, class: 'help', text: prop.description ?? '' });
  const error = h('p', { id: errorId, class: 'error field-error' });
  const mark = required ? h('span', { class: 'required', text: ` (${t('web.required')})` }) : null;
  const type = typeOf(prop);
  const set = closedSet(prop);
  /** The free alternative of a closed set that also admits other values (a one-character delimiter, say). */
  const free = prop.anyOf?.find((a) => !Array.isArray(a.enum));

  if (type === 'boolean') {
    const box = h('input', { type: 'checkbox', id, name, checked: prop.default === true, 'aria-describedby': describedBy, onchange: onChange });
    const wrap = h('div', { class: 'field check' }, h('label', { for: id }, box, ' ', h('span', { class: 'name', text: name })), help, error);
    return { name, prop, required, control: box, element: wrap, read: () => box.checked };
  }

  const label = h('label', { for: id }, h('span', { class: 'name', text: name }), mark);
  if (set) {
    const select = h(
      'select',
      { id, name, required, 'aria-describedby': describedBy, onchange: () => toggleOther() },
      ...set.values.map((v) => h('option', { value: v, selected: v === String(prop.default ?? ''), text: v })),
      set.open ? h('option', { value: '\u0000other', text: t('web.other') }) : null,
    );
    const other = set.open
      ? h('input', { id: `${id}-other`, type: 'text', hidden: true, maxLength: free?.maxLength, 'aria-label': t('web.other-value', { option: name }), 'aria-describedby': describedBy, oninput: onChange })
      : null;
    const toggleOther = () => {
      if (other) other.hidden = select.value !== '\u0000other';
      onChange();
    };
    const wrap = h('div', { class: 'field' }, label, select, other, help, error);
    return { name, prop, required, control: select, element: wrap, read: () => (other && select.value === '\u0000other' ? other.value : select.value) };
  }

  if (type === 'integer' || type === 'number') {
    const input = h('input', {
      id,
      name,
      type: 'number',
      inputmode: type === 'integer' ? 'numeric' : 'decimal',
      step: type === 'integer' ? '1' : 'any',
      min: prop.minimum === undefined ? undefined : String(prop.minimum),
      max: prop.maximum === undefined ? undefined : String(prop.maximum),
      value: prop.default === undefined ? '' : String(prop.default),
      required,
      'aria-describedby': describedBy,
      oninput: onChange,
    });
    const wrap = h('div', { class: 'field' }, label, input, help, error);
    return { name, prop, required, control: input, element: wrap, read: () => (input.value.trim() === '' ? undefined : Number(input.value)) };
  }

  const input = h('input', {
    id,
    name,
    type: 'text',
    value: prop.default === undefined ? '' : String(prop.default),
    maxLength: prop.maxLength,
    required,
    autocomplete: 'off',
    spellcheck: 'false',
    'aria-describedby': describedBy,
    oninput: onChange,
  });
  const wrap = h('div', { class: 'field' }, label, input, help, error);
  return { name, prop, required, control: input, element: wrap, read: () => input.value };
}

/**
 * The options whose value differs from the schema's default (and every required one), in schema order:
 * what the run sends, and what the API examples show.
 * @param {Field[]} fields
 * @returns {Array<[string, unknown]>}
 */
export function changedOptions(fields) {
  /** @type {Array<[string, unknown]>} */
  const out = [];
  for (const f of fields) {
    const value = f.read();
    if (value === undefined) continue;
    if (!f.required && (value === f.prop.default || (f.prop.default === undefined && value === ''))) continue;
    out.push([f.name, value]);
  }
  return out;
}

/**
 * Marks the field an error names (or clears every mark when `option` is null); true when one was marked.
 * @param {Field[]} fields
 * @param {string | null} option
 * @param {string} message
 */
export function markField(fields, option, message) {
  let marked = false;
  for (const f of fields) {
    const error = f.element.querySelector('.field-error');
    const hit = option !== null && f.name === option;
    if (hit) f.control.setAttribute('aria-invalid', 'true');
    else f.control.removeAttribute('aria-invalid');
    if (error) error.textContent = hit ? message : '';
    if (hit && !marked) {
      f.control.focus();
      marked = true;
    }
  }
  return marked;
}

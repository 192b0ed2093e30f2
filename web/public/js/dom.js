// @ts-check
// A few DOM helpers: elements are built with textContent and properties only, never from HTML text.

/**
 * @typedef {Node | string | number | null | undefined | false} Child
 * @typedef {Record<string, unknown>} Attrs
 */

/**
 * An element with attributes and children. `class`, `text` and `on*` (listeners) are handled; `hidden`,
 * `disabled`, `checked`, `value`, `required` and friends are set as properties; the rest as attributes.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') el.className = String(value);
    else if (name === 'text') el.textContent = String(value);
    else if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    else if (PROPS.has(name)) /** @type {any} */ (el)[name] = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

const PROPS = new Set(['hidden', 'disabled', 'checked', 'value', 'required', 'multiple', 'selected', 'open', 'min', 'max', 'step', 'maxLength']);

/**
 * @param {Element} el
 * @param {Child[]} children
 */
export function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'number' ? String(c) : c);
  }
}

/**
 * The element with this id, typed by the caller.
 * @template {HTMLElement} [E=HTMLElement]
 * @param {string} id
 * @returns {E}
 */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing`);
  return /** @type {E} */ (el);
}

/**
 * Copies text to the clipboard; resolves false when the browser refuses (then the caller says to copy by hand).
 * @param {string} text
 */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A copy button for the text `source()` returns; its label says whether it worked, for a moment.
 * @param {string} label
 * @param {() => string} source
 * @param {{ copied: string, failed: string, status: HTMLElement }} texts
 */
export function copyButton(label, source, texts) {
  return h('button', {
    type: 'button',
    class: 'secondary',
    text: label,
    onclick: async () => {
      texts.status.textContent = (await copyText(source())) ? texts.copied : texts.failed;
    },
  });
}

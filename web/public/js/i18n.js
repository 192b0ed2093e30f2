// @ts-check
// The page texts (from the service's locales, /assets/i18n/<lang>.json) and the language choice, which the
// browser remembers. Elements with data-i18n="key" get the text; data-i18n-<attr>="key" sets that attribute.

export const LANGS = /** @type {const} */ (['es', 'en']);
/** @typedef {typeof LANGS[number]} Lang */

const STORE = 'spreadsheet-tools.lang';
/** @type {Record<string, string>} */
let texts = {};
/** @type {Lang} */
let current = 'es';

/** @param {unknown} x @returns {x is Lang} */
const isLang = (x) => x === 'es' || x === 'en';

/** The language asked for in the URL, else the one remembered, else the browser's first es/en, else Spanish. */
export function initialLang() {
  const asked = new URLSearchParams(location.search).get('lang');
  if (isLang(asked)) return asked;
  const saved = readStore(STORE);
  if (isLang(saved)) return saved;
  for (const l of navigator.languages ?? []) {
    const base = l.slice(0, 2).toLowerCase();
    if (isLang(base)) return base;
  }
  return 'es';
}

/** @param {string} key */
function readStore(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** @returns {Lang} */
export function lang() {
  return current;
}

/**
 * Loads the texts of `next` and applies them to the page; `remember` stores the choice in this browser.
 * @param {Lang} next
 * @param {boolean} remember
 */
export async function setLang(next, remember) {
  const res = await fetch(`/assets/i18n/${next}.json`);
  if (!res.ok) throw new Error(`texts ${next}: ${res.status}`);
  texts = await res.json();
  current = next;
  document.documentElement.lang = next;
  if (remember) {
    try {
      localStorage.setItem(STORE, next);
    } catch {
      // A browser that stores nothing still switches; it forgets on the next visit.
    }
  }
  applyTexts(document);
  for (const b of document.querySelectorAll('[data-lang]')) b.setAttribute('aria-pressed', String(b.getAttribute('data-lang') === next));
}

/**
 * The text of `key` with `{name}` placeholders filled; a missing key shows itself, so it gets noticed.
 * @param {string} key
 * @param {Record<string, string | number>} [params]
 */
export function t(key, params = {}) {
  const text = texts[key];
  if (text === undefined) {
    console.warn(`missing text ${current}:${key}`);
    return key;
  }
  return text.replace(/\{(\w+)\}/g, (m, name) => (Object.hasOwn(params, name) ? String(params[name]) : m));
}

/** @param {ParentNode} root */
export function applyTexts(root) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(/** @type {string} */ (el.getAttribute('data-i18n')));
  for (const el of root.querySelectorAll('*')) {
    for (const attr of el.getAttributeNames()) {
      if (attr.startsWith('data-i18n-')) el.setAttribute(attr.slice('data-i18n-'.length), t(/** @type {string} */ (el.getAttribute(attr))));
    }
  }
}

/**
 * Wires the language buttons (elements with data-lang) to switch and remember; `then` runs after each switch.
 * @param {() => void} then
 */
export function wireLangButtons(then) {
  for (const b of document.querySelectorAll('[data-lang]')) {
    b.addEventListener('click', async () => {
      const next = b.getAttribute('data-lang');
      if (!isLang(next) || next === current) return;
      await setLang(next, true);
      then();
    });
  }
}

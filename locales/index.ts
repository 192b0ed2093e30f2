// Human text lives only in es.json and en.json; code refers to it by dotted key.
import es from './es.json' with { type: 'json' };
import en from './en.json' with { type: 'json' };

export const LANGS = ['es', 'en'] as const;
export type Lang = (typeof LANGS)[number];
export const DEFAULT_LANG: Lang = 'es';

type Tree = { [k: string]: string | Tree };
// node --test sets this in every test process: a missing key fails the test instead of showing the key.
const STRICT = Boolean(process.env.NODE_TEST_CONTEXT);

export function isLang(x: unknown): x is Lang {
  return x === 'es' || x === 'en';
}

/** The language asked for, when it is one we speak; otherwise the fallback. */
export function resolveLang(x: unknown, fallback: Lang = DEFAULT_LANG): Lang {
  return isLang(x) ? x : fallback;
}

/** Every text by its dotted key: a run looks up a few texts, and walking the tree for each cost more than the lookup. */
function flatten(node: Tree, prefix: string, out: Map<string, string>): Map<string, string> {
  for (const [k, val] of Object.entries(node)) {
    if (typeof val === 'string') out.set(prefix + k, val);
    else flatten(val, `${prefix}${k}.`, out);
  }
  return out;
}
const TEXTS: Record<Lang, Map<string, string>> = { es: flatten(es, '', new Map()), en: flatten(en, '', new Map()) };

function lookup(lang: Lang, key: string): string | undefined {
  return TEXTS[lang].get(key);
}

export function hasText(lang: Lang, key: string): boolean {
  return lookup(lang, key) !== undefined;
}

/** Localized text for `key`, with `{name}` placeholders filled from `params`. */
export function t(lang: Lang, key: string, params: Record<string, string | number> = {}): string {
  const text = lookup(lang, key);
  if (text === undefined) {
    if (STRICT) throw new Error(`missing locale key ${lang}:${key}`);
    console.error(`missing locale key ${lang}:${key}`);
    return key;
  }
  return text.replace(/\{(\w+)\}/g, (m, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : m));
}

/** Every leaf key of a catalogue, for the parity test. */
export function allKeys(lang: Lang): string[] {
  return [...TEXTS[lang].keys()].sort();
}

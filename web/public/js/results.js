// @ts-check
// What a run answered, shown: messages with their level, a download per result file (and one ZIP of them all
// when there are several, made here from the same bytes, so it costs no second run), the preview table and
// the beginning of a text result.
import { zipSync } from '../vendor/fflate.js';
import { byId, h } from './dom.js';
import { t } from './i18n.js';

/** @typedef {import('./run.js').RunResponse} RunResponse */
/** @typedef {import('./run.js').Message} Message */

/** Object URLs of the results shown, released when the next result replaces them. */
/** @type {string[]} */
let urls = [];

/** @param {number} n */
export function sizeText(n) {
  if (n < 1024) return t('web.size-b', { n });
  if (n < 1024 * 1024) return t('web.size-kb', { n: (n / 1024).toLocaleString(undefined, { maximumFractionDigits: 1 }) });
  return t('web.size-mb', { n: (n / 1024 / 1024).toLocaleString(undefined, { maximumFractionDigits: 1 }) });
}

/** @param {string} b64 */
function bytesOf(b64) {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** @param {Blob} blob */
function urlOf(blob) {
  const url = URL.createObjectURL(blob);
  urls.push(url);
  return url;
}

/** Hides every part of the result and releases the files of the last one. */
export function clearResult() {
  for (const u of urls) URL.revokeObjectURL(u);
  urls = [];
  byId('result').hidden = true;
  byId('refusal').replaceChildren();
  for (const id of ['messages-box', 'downloads-box', 'preview-box', 'text-box']) byId(id).hidden = true;
  byId('zip').hidden = true;
}

/** @param {Message[]} messages */
function showMessages(messages) {
  byId('messages').replaceChildren(
    ...messages.map((m) => h('li', { class: `message ${m.level}` }, h('strong', { text: `${t(`web.level-${m.level}`)}: ` }), m.text)),
  );
  byId('messages-box').hidden = messages.length === 0;
}

/** A downloaded result: only its messages are shown (the file went to the browser's downloads). @param {Message[]} messages */
export function showDownloaded(messages) {
  clearResult();
  byId('result').hidden = messages.length === 0;
  showMessages(messages);
}

/**
 * @param {RunResponse} r
 */
export function showResult(r) {
  clearResult();
  byId('result').hidden = false;
  showMessages(r.messages);

  const files = r.files.map((f) => ({ ...f, bytes: bytesOf(f.contentBase64) }));
  byId('downloads').replaceChildren(
    ...files.map((f) =>
      h('li', {}, h('a', { href: urlOf(new Blob([f.bytes], { type: f.contentType })), download: f.name, text: f.name }), ` (${sizeText(f.size)})`),
    ),
  );
  byId('downloads-box').hidden = files.length === 0;
  const zip = /** @type {HTMLButtonElement} */ (byId('zip'));
  if (files.length > 1) {
    const name = `${t('names.zip')}.zip`;
    zip.textContent = t('web.download-zip', { name });
    zip.hidden = false;
    zip.onclick = () => {
      // Compressed formats are stored as they are; text is deflated.
      /** @type {Record<string, [Uint8Array, { level: 0 | 6 }]>} */
      const entries = {};
      for (const f of files) entries[f.name] = [f.bytes, { level: /\.(xlsx|zip|pdf|docx|ods)$/i.test(f.name) ? 0 : 6 }];
      saveBlob(new Blob([zipSync(entries)], { type: 'application/zip' }), name);
    };
  }

  if (r.preview) {
    const p = r.preview;
    const caption = p.sheet === null
      ? t('web.preview-caption-nosheet', { shown: p.rows.length, total: p.totalRows })
      : t('web.preview-caption', { sheet: p.sheet, shown: p.rows.length, total: p.totalRows });
    byId('preview').replaceChildren(
      h('caption', { text: caption }),
      h('thead', {}, h('tr', {}, ...p.columns.map((c) => h('th', { scope: 'col', text: c })))),
      h('tbody', {}, ...p.rows.map((row) => h('tr', {}, ...row.map((v) => h('td', { class: typeof v === 'number' ? 'num' : '', text: v === null ? '' : String(v) }))))),
    );
    byId('preview-box').hidden = false;
  }
  if (r.textPreview !== null) {
    byId('text-preview').textContent = r.textPreview;
    byId('text-box').hidden = false;
  }
}

/**
 * A refusal: the service's message with its code, and the messages it carried.
 * @param {string} text
 * @param {HTMLElement | null} [action] a button that offers a way on (the direct download)
 */
export function showRefusal(text, action = null) {
  clearResult();
  byId('result').hidden = false;
  byId('refusal').replaceChildren(h('p', { text }), ...(action ? [action] : []));
}

/** Saves a blob as a file through a download link. @param {Blob} blob @param {string} name */
export function saveBlob(blob, name) {
  const a = h('a', { href: urlOf(blob), download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
}

// @ts-check
// The playground: the catalogue (GET /api/v1/tools) grouped by category with a search box; for the chosen
// tool, its files (dropped or picked), its options form, a run over REST with progress, the result, the quota
// left, and the same call as curl and as MCP arguments. Only the public API is used.
import { byId, copyText, h } from './dom.js';
import { buildOptions, changedOptions, markField } from './form.js';
import { initialLang, lang, setLang, t, wireLangButtons } from './i18n.js';
import { clearResult, saveBlob, showDownloaded, showRefusal, showResult, sizeText } from './results.js';
import { runTool } from './run.js';
import { curlCommand, mcpArguments } from './snippets.js';

/**
 * @typedef {{ id: string, title: string, description: string, category: { id: string, label: string },
 *   input: { field: 'file' | 'files', formats: string[], min?: number, max?: number, more?: { field: string, formats: string[] }[] },
 *   options: { properties?: Record<string, import('./form.js').Prop>, required?: string[] } }} Entry
 */

const KEY_STORE = 'spreadsheet-tools.api-key';

/** @type {Entry[]} */
let catalogue = [];
/** @type {Entry | null} */
let tool = null;
/** @type {File[]} */
let files = [];
/** The further files chosen (merge-by-key's `lookup-file`), by field. @type {Map<string, File>} */
let moreFiles = new Map();
/** @type {import('./form.js').Field[]} */
let fields = [];
/** @type {AbortController | null} */
let running = null;
/** The key typed in this page; in localStorage only when the person asks to remember it. */
let apiKey = '';

/** @param {string} key */
function stored(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

const fold = (/** @type {string} */ s) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

async function loadCatalogue() {
  const res = await fetch(`/api/v1/tools?lang=${lang()}`);
  if (!res.ok) throw new Error(String(res.status));
  catalogue = await res.json();
}

/** The tools the search box lets through: by id, title, description or format, ignoring case and accents. */
function matching() {
  const query = fold(/** @type {HTMLInputElement} */ (byId('search')).value.trim());
  return catalogue.filter((e) => !query || fold(`${e.id} ${e.title} ${e.description} ${e.input.formats.join(' ')}`).includes(query));
}

function renderList() {
  const matches = matching();
  if (!tool) renderOverview();
  /** @type {Map<string, Entry[]>} */
  const groups = new Map();
  for (const e of matches) groups.set(e.category.label, [...(groups.get(e.category.label) ?? []), e]);
  byId('tool-list').replaceChildren(
    ...[...groups].map(([label, entries]) =>
      h(
        'section',
        { class: 'category' },
        h('h3', { text: label }),
        h(
          'ul',
          {},
          ...entries.map((e) =>
            h(
              'li',
              {},
              h('a', { href: `#${e.id}`, 'aria-current': tool?.id === e.id ? 'true' : undefined, 'data-tool': e.id }, h('span', { class: 'tool-title', text: e.title }), h('span', { class: 'tool-id', text: e.id })),
            ),
          ),
        ),
      ),
    ),
  );
  byId('search-status').textContent = matches.length ? '' : t('web.no-match', { query: /** @type {HTMLInputElement} */ (byId('search')).value });
}

/** With no tool chosen: every tool by category, with its description and formats. */
function renderOverview() {
  /** @type {Map<string, Entry[]>} */
  const groups = new Map();
  for (const e of matching()) groups.set(e.category.label, [...(groups.get(e.category.label) ?? []), e]);
  byId('overview-list').replaceChildren(
    ...[...groups].map(([label, entries]) =>
      h(
        'section',
        { class: 'overview' },
        h('h2', { text: label }),
        h(
          'ul',
          { class: 'cards' },
          ...entries.map((e) =>
            h('li', { class: 'card' }, h('h3', {}, h('a', { href: `#${e.id}`, text: e.title })), h('p', { text: e.description }), h('p', { class: 'help', text: t('web.formats', { formats: e.input.formats.join(' ') }) })),
          ),
        ),
      ),
    ),
  );
}

/**
 * Shows the tool named in the URL's fragment, or the invitation to choose one.
 * @param {boolean} [moveFocus] the person chose it: focus (and, on a phone, scroll) moves to the tool
 */
function selectFromHash(moveFocus = false) {
  const id = decodeURIComponent(location.hash.slice(1));
  const next = catalogue.find((e) => e.id === id) ?? null;
  const changed = next?.id !== tool?.id;
  tool = next;
  if (changed) {
    files = [];
    moreFiles = new Map();
  }
  renderTool(changed);
  renderList();
  if (moveFocus && tool) byId('tool').focus();
}

/** @param {boolean} fresh the tool changed: its form and result start anew */
function renderTool(fresh) {
  byId('overview').hidden = tool !== null;
  byId('choose').textContent = t('web.choose-tool');
  byId('tool-view').hidden = tool === null;
  if (!tool) return;
  const many = tool.input.field === 'files';
  byId('tool-title').textContent = tool.title;
  byId('tool-description').textContent = tool.description;
  byId('tool-input').textContent = [t('web.formats', { formats: tool.input.formats.join(' ') }), many ? t('web.files-range', { min: tool.input.min ?? 1, max: tool.input.max ?? 1 }) : ''].join(' ');
  byId('files-legend').textContent = t(many ? 'web.files-legend' : 'web.file-legend');
  byId('drop-text').textContent = t(many ? 'web.drop-many' : 'web.drop');
  const input = /** @type {HTMLInputElement} */ (byId('file-input'));
  input.multiple = many;
  input.accept = tool.input.formats.join(',');
  byId('mcp-heading').textContent = t('web.mcp', { url: `${location.origin}/mcp` });
  if (fresh) {
    // Values typed for the tool shown before are kept across a language switch, not across tools.
    fields = buildOptions(byId('option-fields'), tool.options, tool.id, updateSnippets, moreFields());
    clearResult();
    byId('status').textContent = '';
    byId('files-error').textContent = '';
  } else {
    const values = fields.map((f) => f.read());
    fields = buildOptions(byId('option-fields'), tool.options, tool.id, updateSnippets, moreFields());
    restore(values);
  }
  renderMoreFiles();
  renderFiles();
}

const moreFields = () => (tool?.input.more ?? []).map((m) => m.field);

/** A picker of its own for each further file the tool takes (merge-by-key's `lookup-file`), labelled by the option's text. */
function renderMoreFiles() {
  const more = tool?.input.more ?? [];
  byId('more-files').replaceChildren(
    ...more.map((m) => {
      const id = `more-${m.field}`;
      const chosen = moreFiles.get(m.field);
      const ok = !chosen || m.formats.some((ext) => chosen.name.toLowerCase().endsWith(ext));
      const input = h('input', { id, type: 'file', accept: m.formats.join(','), 'aria-describedby': `${id}-help ${id}-error` });
      input.addEventListener('change', () => {
        const f = /** @type {HTMLInputElement} */ (input).files?.[0];
        if (f) moreFiles.set(m.field, f);
        else moreFiles.delete(m.field);
        renderMoreFiles();
        updateSnippets();
      });
      return h(
        'fieldset',
        { class: 'files' },
        h('legend', {}, h('label', { for: id, text: m.field })),
        h('p', { id: `${id}-help`, class: 'help', text: `${tool?.options.properties?.[m.field]?.description ?? ''} ${t('web.formats', { formats: m.formats.join(' ') })}` }),
        input,
        h('p', { class: 'chosen', text: chosen ? `${chosen.name} (${sizeText(chosen.size)})` : t('web.chosen-none') }, ok ? null : h('span', { class: 'warn', text: ` — ${t('web.wrong-format')}` })),
        h('p', { id: `${id}-error`, class: 'error', role: 'alert' }),
      );
    }),
  );
}

/** Puts back values read before the form was rebuilt (a language switch re-renders the descriptions). */
function restore(/** @type {unknown[]} */ values) {
  fields.forEach((f, i) => {
    const v = values[i];
    const c = /** @type {HTMLInputElement} */ (f.control);
    if (c.type === 'checkbox') c.checked = v === true;
    else if (v !== undefined && (c.tagName !== 'SELECT' || [.../** @type {HTMLSelectElement} */ (/** @type {unknown} */ (c)).options].some((o) => o.value === String(v)))) c.value = String(v);
  });
}

function renderFiles() {
  if (!tool) return;
  const accepted = tool.input.formats;
  byId('chosen').replaceChildren(
    ...(files.length
      ? files.map((f, i) => {
          const ok = accepted.some((ext) => f.name.toLowerCase().endsWith(ext));
          return h(
            'li',
            {},
            h('span', { class: 'file-name', text: f.name }),
            ` (${sizeText(f.size)})`,
            ok ? null : h('span', { class: 'warn', text: ` — ${t('web.wrong-format')}` }),
            ' ',
            h('button', { type: 'button', class: 'link', text: '×', 'aria-label': t('web.remove-file', { name: f.name }), onclick: () => removeFile(i) }),
          );
        })
      : [h('li', { class: 'help', text: t('web.chosen-none') })]),
  );
  updateSnippets();
}

/** @param {number} i */
function removeFile(i) {
  files.splice(i, 1);
  renderFiles();
  byId('file-input').focus();
}

/** @param {FileList | File[]} list */
function addFiles(list) {
  if (!tool) return;
  byId('files-error').textContent = '';
  const incoming = [...list];
  if (tool.input.field === 'file') {
    files = incoming.slice(0, 1);
  } else {
    const max = tool.input.max ?? Infinity;
    for (const f of incoming) {
      if (files.length >= max) {
        byId('files-error').textContent = t('web.too-many-files', { max, name: f.name });
        break;
      }
      files.push(f);
    }
  }
  renderFiles();
}

/** What the page sends and the examples show: language only when it is not the default. */
function currentOptions() {
  const options = changedOptions(fields);
  if (lang() !== 'es') options.push(['language', lang()]);
  return options;
}

function updateSnippets() {
  if (!tool) return;
  /** @type {Array<[string, string]>} */
  const more = moreFields().map((field) => [field, moreFiles.get(field)?.name ?? `${field}.xlsx`]);
  const common = { toolId: tool.id, field: tool.input.field, fileNames: files.map((f) => f.name), more, options: currentOptions() };
  byId('curl').textContent = curlCommand({ ...common, origin: location.origin, withKey: apiKey !== '' });
  byId('mcp').textContent = mcpArguments(common);
}

function formData() {
  if (!tool) throw new Error('no tool');
  const form = new FormData();
  for (const f of files) form.append(tool.input.field, f, f.name);
  for (const [field, f] of moreFiles) form.append(field, f, f.name);
  for (const [k, v] of currentOptions()) form.append(k, String(v));
  return form;
}

/** The quota left after a run; an answer without it (a refused key) clears the last one, which no longer holds. @param {import('./run.js').Rate | null} rate */
function showQuota(rate) {
  byId('quota').textContent = rate ? t('web.quota', { remaining: rate.remaining, limit: rate.limit, minutes: Math.max(1, Math.ceil(rate.reset / 60)) }) : '';
}

/** @param {boolean} download */
async function run(download = false) {
  if (!tool || running) return;
  const min = tool.input.field === 'files' ? tool.input.min ?? 1 : 1;
  if (files.length < min) {
    byId('files-error').textContent = tool.input.field === 'files' ? t('web.need-files', { min }) : t('web.need-file');
    byId('file-input').focus();
    return;
  }
  for (const field of moreFields()) byId(`more-${field}-error`).textContent = '';
  const missing = moreFields().find((field) => !moreFiles.has(field));
  if (missing) {
    byId(`more-${missing}-error`).textContent = t('web.need-file');
    byId(`more-${missing}`).focus();
    return;
  }
  markField(fields, null, '');
  clearResult();
  byId('files-error').textContent = '';
  const progress = /** @type {HTMLProgressElement} */ (byId('progress'));
  const status = byId('status');
  const button = /** @type {HTMLButtonElement} */ (byId('run'));
  running = new AbortController();
  button.disabled = true;
  byId('cancel').hidden = false;
  progress.hidden = false;
  progress.value = 0;
  status.textContent = t('web.uploading', { percent: 0 });
  try {
    const answer = await runTool(tool.id, formData(), {
      apiKey,
      download,
      signal: running.signal,
      onUpload: (fraction) => {
        progress.value = fraction;
        status.textContent = t('web.uploading', { percent: Math.round(fraction * 100) });
      },
      onUploaded: () => {
        // The service is working now: an indeterminate bar until it answers.
        progress.removeAttribute('value');
        status.textContent = t('web.processing');
      },
    });
    showQuota(answer.rate);
    if (answer.blob && answer.status === 200) {
      saveBlob(answer.blob, answer.fileName ?? `${t('names.zip')}.zip`);
      showDownloaded(answer.messages);
      status.textContent = t('web.done', { count: 1 });
    } else if (answer.body && answer.body.ok) {
      showResult(answer.body);
      status.textContent = t('web.done', { count: answer.body.files.length });
      byId('result-heading').focus();
    } else {
      const body = answer.body && !answer.body.ok ? answer.body : { error: 'internal_error', message: String(answer.status), option: null };
      const text = t('web.refused', { code: body.error, message: body.message });
      status.textContent = '';
      const offer = body.error === 'result_too_large' && !download ? h('button', { type: 'button', text: t('web.download-direct'), onclick: () => run(true) }) : null;
      showRefusal(offer ? `${text} ${t('web.too-large')}` : text, offer);
      const fileField = body.option === 'file' || body.option === 'files';
      if (fileField) byId('files-error').textContent = body.message;
      if (body.option && moreFields().includes(body.option)) byId(`more-${body.option}-error`).textContent = body.message;
      if (!markField(fields, body.option, body.message)) byId('result-heading').focus();
    }
  } catch (err) {
    status.textContent = err instanceof DOMException && err.name === 'AbortError' ? t('web.cancelled') : t('web.network-error');
  } finally {
    running = null;
    button.disabled = false;
    byId('cancel').hidden = true;
    progress.hidden = true;
  }
}

function wire() {
  byId('search').addEventListener('input', renderList);
  window.addEventListener('hashchange', () => selectFromHash(true));
  const input = /** @type {HTMLInputElement} */ (byId('file-input'));
  input.addEventListener('change', () => {
    if (input.files) addFiles(input.files);
    input.value = '';
  });
  const drop = byId('drop');
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    if (e.dataTransfer?.files.length) addFiles(e.dataTransfer.files);
  });
  // A file dropped beside the zone must not make the browser leave the page to open it.
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());

  byId('run-form').addEventListener('submit', (e) => {
    e.preventDefault();
    run();
  });
  byId('cancel').addEventListener('click', () => running?.abort());

  const key = /** @type {HTMLInputElement} */ (byId('api-key'));
  const remember = /** @type {HTMLInputElement} */ (byId('remember-key'));
  const saved = stored(KEY_STORE);
  if (saved) {
    apiKey = saved;
    key.value = saved;
    remember.checked = true;
    /** @type {HTMLDetailsElement} */ (byId('key-box')).open = true;
  }
  const keepKey = () => {
    apiKey = key.value.trim();
    try {
      if (remember.checked && apiKey) localStorage.setItem(KEY_STORE, apiKey);
      else localStorage.removeItem(KEY_STORE);
    } catch {
      // Storage refused (private mode, policy): the key stays in this page's memory only.
    }
    updateSnippets();
  };
  key.addEventListener('input', keepKey);
  remember.addEventListener('change', keepKey);

  for (const [button, source] of /** @type {const} */ ([['copy-curl', 'curl'], ['copy-mcp', 'mcp']])) {
    byId(button).addEventListener('click', async () => {
      byId(`${button}-status`).textContent = (await copyText(byId(source).textContent ?? '')) ? t('web.copied') : t('web.copy-failed');
    });
  }

  wireLangButtons(async () => {
    await loadCatalogue();
    tool = catalogue.find((e) => e.id === tool?.id) ?? null;
    renderTool(false);
    renderList();
  });
}

async function start() {
  await setLang(initialLang(), false);
  wire();
  try {
    await loadCatalogue();
  } catch (err) {
    byId('choose').textContent = t('web.load-failed', { status: err instanceof Error ? err.message : String(err) });
    return;
  }
  selectFromHash();
}

start();

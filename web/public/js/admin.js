// @ts-check
// The admin page: sign in with ADMIN_TOKEN, then list, create, edit and revoke API keys through /admin/api.
// The token is kept in this tab's sessionStorage until sign-out; a key's secret is shown once and never kept.
import { byId, copyText, h } from './dom.js';
import { initialLang, lang, setLang, t, wireLangButtons } from './i18n.js';

/**
 * @typedef {{ id: string, label: string, quota: number | null, createdAt: string, revokedAt: string | null,
 *   runsThisHour: number, lastUsedAt: string | null }} Key
 * @typedef {{ ok: false, error: string, message: string, option: string | null }} ErrorBody
 */

const TOKEN = 'spreadsheet-tools.admin-token';
// An absolute path: the page answers at /admin and /admin/ alike, and a relative one would differ between them.
const API = '/admin/api';

/** @type {Key[]} */
let keys = [];
let defaultQuota = 0;
/** @type {Key | null} */
let editing = null;
/** @type {Key | null} */
let revoking = null;

class ApiError extends Error {
  /** @param {number} status @param {ErrorBody | null} body */
  constructor(status, body) {
    super(body?.message ?? t('admin.network-error'));
    this.status = status;
    this.body = body;
  }
}

const token = () => sessionStorage.getItem(TOKEN);

/**
 * One call to the admin API with the token; a refusal throws ApiError with the service's localized message.
 * @param {string} path
 * @param {{ method?: string, body?: unknown }} [init]
 */
async function api(path, init = {}) {
  /** @type {Response} */
  let res;
  try {
    res = await fetch(`${API}${path}?lang=${lang()}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${token()}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch {
    throw new ApiError(0, null);
  }
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    // A token that stopped working (changed on the server, or this address is refused) ends the session.
    if (res.status === 401 || res.status === 429) signOut(body?.message ?? '');
    throw new ApiError(res.status, body);
  }
  return body;
}

/** @param {string | null} iso */
const when = (iso) => (iso ? new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)) : t('admin.never'));
/** @param {Key} k */
const shortId = (k) => k.id.slice(0, 8);
/** @param {number | null} quota */
const quotaText = (quota) => (quota === null ? t('admin.default-quota', { quota: defaultQuota.toLocaleString() }) : quota.toLocaleString());

/** @param {boolean} on */
function showSignedIn(on) {
  byId('sign-in-section').hidden = on;
  byId('signed-in').hidden = !on;
  byId('sign-out').hidden = !on;
}

/** @param {string} notice */
function signOut(notice) {
  sessionStorage.removeItem(TOKEN);
  keys = [];
  byId('keys').replaceChildren();
  byId('secret').hidden = true;
  byId('secret-value').textContent = '';
  showSignedIn(false);
  byId('notice').textContent = notice;
  byId('token').focus();
}

async function refresh() {
  byId('list-error').textContent = '';
  try {
    const body = await api('/keys');
    keys = body.keys;
    defaultQuota = body.defaultQuota;
    render();
  } catch (err) {
    if (err instanceof ApiError && err.status !== 401 && err.status !== 429) byId('list-error').textContent = err.message;
  }
}

function render() {
  const help = t('admin.quota-help', { quota: defaultQuota.toLocaleString() });
  byId('new-quota-help').textContent = help;
  byId('edit-quota-help').textContent = help;
  byId('keys-caption').textContent = keys.length ? t('admin.keys-count', { count: keys.length }) : t('admin.no-keys');
  byId('keys').replaceChildren(
    ...keys.map((k) =>
      h(
        'tr',
        { class: k.revokedAt ? 'revoked' : '', 'data-key': k.id },
        h('td', { text: k.label }),
        h('td', {}, h('code', { text: shortId(k), title: k.id })),
        h('td', {}, h('time', { datetime: k.createdAt, text: when(k.createdAt) })),
        h('td', { class: 'num', text: quotaText(k.quota) }),
        h('td', { class: 'num', 'data-runs': '', text: k.runsThisHour.toLocaleString() }),
        h('td', {}, k.lastUsedAt ? h('time', { datetime: k.lastUsedAt, text: when(k.lastUsedAt) }) : t('admin.never')),
        h('td', {}, h('span', { class: k.revokedAt ? 'state off' : 'state on', text: k.revokedAt ? t('admin.revoked') : t('admin.active') })),
        h(
          'td',
          { class: 'actions' },
          k.revokedAt
            ? null
            : h('button', { type: 'button', class: 'secondary', text: t('admin.edit'), 'aria-label': t('admin.edit-named', { label: k.label }), onclick: () => openEdit(k) }),
          ' ',
          k.revokedAt
            ? null
            : h('button', { type: 'button', class: 'danger', text: t('admin.revoke'), 'aria-label': t('admin.revoke-named', { label: k.label }), onclick: () => openRevoke(k) }),
        ),
      ),
    ),
  );
}

/** The quota typed in a field: empty is the default (null); anything else goes to the service as typed. */
function quotaOf(/** @type {HTMLInputElement} */ input) {
  return input.value.trim() === '' ? null : Number(input.value);
}

/** @param {Key} k */
function openEdit(k) {
  editing = k;
  byId('edit-title').textContent = t('admin.edit-title', { id: shortId(k) });
  /** @type {HTMLInputElement} */ (byId('edit-label')).value = k.label;
  /** @type {HTMLInputElement} */ (byId('edit-quota')).value = k.quota === null ? '' : String(k.quota);
  byId('edit-error').textContent = '';
  /** @type {HTMLDialogElement} */ (byId('edit-dialog')).showModal();
}

/** @param {Key} k */
function openRevoke(k) {
  revoking = k;
  byId('revoke-text').textContent = t('admin.confirm-revoke', { label: k.label, id: shortId(k) });
  byId('revoke-error').textContent = '';
  /** @type {HTMLDialogElement} */ (byId('revoke-dialog')).showModal();
  byId('revoke-cancel').focus();
}

/** @param {unknown} err @param {HTMLElement} where @param {Record<string, HTMLElement>} [fields] */
function showError(err, where, fields = {}) {
  if (!(err instanceof ApiError) || err.status === 401 || err.status === 429) return;
  where.textContent = err.message;
  const field = err.body?.option ? fields[err.body.option] : undefined;
  if (field) {
    field.setAttribute('aria-invalid', 'true');
    field.focus();
  }
}

function wire() {
  byId('sign-in').addEventListener('submit', async (e) => {
    e.preventDefault();
    const input = /** @type {HTMLInputElement} */ (byId('token'));
    byId('sign-in-error').textContent = '';
    byId('notice').textContent = '';
    if (!input.value.trim()) {
      input.focus();
      return;
    }
    sessionStorage.setItem(TOKEN, input.value.trim());
    try {
      const body = await api('/keys');
      keys = body.keys;
      defaultQuota = body.defaultQuota;
      input.value = '';
      showSignedIn(true);
      render();
      byId('keys-heading').focus();
    } catch (err) {
      sessionStorage.removeItem(TOKEN);
      byId('sign-in-error').textContent = err instanceof Error ? err.message : String(err);
      input.focus();
    }
  });
  byId('sign-out').addEventListener('click', () => signOut(t('admin.signed-out')));
  byId('refresh').addEventListener('click', refresh);

  const newLabel = /** @type {HTMLInputElement} */ (byId('new-label'));
  const newQuota = /** @type {HTMLInputElement} */ (byId('new-quota'));
  byId('create').addEventListener('submit', async (e) => {
    e.preventDefault();
    byId('create-error').textContent = '';
    newLabel.removeAttribute('aria-invalid');
    newQuota.removeAttribute('aria-invalid');
    try {
      const { key, secret } = await api('/keys', { method: 'POST', body: { label: newLabel.value, quota: quotaOf(newQuota) } });
      byId('secret-value').textContent = secret;
      byId('copy-status').textContent = '';
      byId('secret').hidden = false;
      byId('notice').textContent = t('admin.created-ok', { label: key.label });
      newLabel.value = '';
      newQuota.value = '';
      await refresh();
      byId('copy-secret').focus();
    } catch (err) {
      showError(err, byId('create-error'), { label: newLabel, quota: newQuota });
    }
  });
  byId('copy-secret').addEventListener('click', async () => {
    byId('copy-status').textContent = (await copyText(byId('secret-value').textContent ?? '')) ? t('admin.copied') : t('admin.copy-failed');
  });

  const editDialog = /** @type {HTMLDialogElement} */ (byId('edit-dialog'));
  const editLabel = /** @type {HTMLInputElement} */ (byId('edit-label'));
  const editQuota = /** @type {HTMLInputElement} */ (byId('edit-quota'));
  byId('edit-cancel').addEventListener('click', () => editDialog.close());
  byId('edit').addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!editing) return;
    byId('edit-error').textContent = '';
    try {
      const { key } = await api(`/keys/${encodeURIComponent(editing.id)}`, { method: 'PATCH', body: { label: editLabel.value, quota: quotaOf(editQuota) } });
      editDialog.close();
      byId('notice').textContent = t('admin.saved', { label: key.label });
      await refresh();
    } catch (err) {
      showError(err, byId('edit-error'), { label: editLabel, quota: editQuota });
    }
  });

  const revokeDialog = /** @type {HTMLDialogElement} */ (byId('revoke-dialog'));
  byId('revoke-cancel').addEventListener('click', () => revokeDialog.close());
  byId('revoke-confirm').addEventListener('click', async () => {
    if (!revoking) return;
    const k = revoking;
    try {
      await api(`/keys/${encodeURIComponent(k.id)}`, { method: 'DELETE' });
      revokeDialog.close();
      byId('notice').textContent = t('admin.revoked-ok', { label: k.label });
      await refresh();
    } catch (err) {
      showError(err, byId('revoke-error'));
    }
  });

  wireLangButtons(() => {
    if (token()) render();
  });
}

async function start() {
  await setLang(initialLang(), false);
  wire();
  if (token()) {
    showSignedIn(true);
    await refresh();
  } else {
    showSignedIn(false);
  }
}

start();

// The admin page: static HTML whose script calls /admin/api with the token the operator types in.
// The token stays in this tab's sessionStorage; key secrets are shown once and never stored.
import { t, type Lang } from '../../locales/index.ts';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function adminPage(lang: Lang): string {
  const tx = (key: string) => escapeHtml(t(lang, `admin.${key}`));
  const texts = JSON.stringify({ revoke: t(lang, 'admin.revoke'), revoked: t(lang, 'admin.revoked'), secretOnce: t(lang, 'admin.secret-once'), error: t(lang, 'admin.error') }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><title>${tx('title')}</title>
<style>body{font:15px system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}table{border-collapse:collapse;width:100%}td,th{border:1px solid #ccc;padding:.3rem .5rem;text-align:left}code{background:#f4f4f4;padding:.2rem .4rem;word-break:break-all}form{margin:1rem 0}</style></head>
<body><h1>${tx('title')}</h1>
<form id="auth"><label>${tx('token')} <input id="token" type="password" autocomplete="off" required></label> <button>${tx('sign-in')}</button></form>
<form id="create"><label>${tx('label')} <input id="label" required maxlength="100"></label> <label>${tx('quota')} <input id="quota" type="number" min="0"></label> <button>${tx('create')}</button></form>
<p id="secret"></p>
<table><thead><tr><th>${tx('label')}</th><th>${tx('quota')}</th><th>${tx('created')}</th><th>${tx('state')}</th><th></th></tr></thead><tbody id="keys"></tbody></table>
<script>
const T = ${texts};
const $ = (id) => document.getElementById(id);
const api = async (path, init = {}) => {
  const r = await fetch('api' + path, { ...init, headers: { 'content-type': 'application/json', authorization: 'Bearer ' + sessionStorage.getItem('adminToken') } });
  if (!r.ok) { alert(T.error + ' (' + r.status + ')'); throw new Error(String(r.status)); }
  return r.json();
};
const cell = (text) => { const td = document.createElement('td'); td.textContent = text; return td; };
async function refresh() {
  const { keys } = await api('/keys');
  const body = $('keys'); body.replaceChildren();
  for (const k of keys) {
    const tr = document.createElement('tr');
    tr.append(cell(k.label), cell(k.quota ?? ''), cell(k.createdAt), cell(k.revokedAt ? T.revoked : ''));
    const td = document.createElement('td');
    if (!k.revokedAt) { const b = document.createElement('button'); b.textContent = T.revoke; b.onclick = async () => { await api('/keys/' + k.id, { method: 'DELETE' }); refresh(); }; td.append(b); }
    tr.append(td); body.append(tr);
  }
}
$('auth').onsubmit = (e) => { e.preventDefault(); sessionStorage.setItem('adminToken', $('token').value); refresh(); };
$('create').onsubmit = async (e) => {
  e.preventDefault();
  const quota = $('quota').value === '' ? null : Number($('quota').value);
  const { secret } = await api('/keys', { method: 'POST', body: JSON.stringify({ label: $('label').value, quota }) });
  const code = document.createElement('code'); code.textContent = secret;
  $('secret').replaceChildren(T.secretOnce + ' ', code);
  refresh();
};
if (sessionStorage.getItem('adminToken')) refresh();
</script></body></html>
`;
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_GUESSES } from '../../bridge/admin/router.ts';
import { bodyOf, postRun, fileObject, startServer } from '../helpers/http.ts';

const TOKEN = 'a-token-of-more-than-32-characters-for-tests';
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

test('admin: disabled (404) without ADMIN_TOKEN', async () => {
  const srv = await startServer();
  try {
    assert.equal((await fetch(`${srv.url}/admin/api/keys`)).status, 404);
    const page = await fetch(`${srv.url}/admin`);
    assert.equal(page.status, 404);
    assert.equal((await bodyOf(page)).error, 'not_found');
  } finally {
    await srv.close();
  }
});

test('admin: with ADMIN_TOKEN, 401 without it; create (secret once), list, revoke; the key works until revoked', async () => {
  const srv = await startServer({ ADMIN_TOKEN: TOKEN });
  try {
    assert.equal((await fetch(`${srv.url}/admin/api/keys`)).status, 401);
    const wrong = await fetch(`${srv.url}/admin/api/keys?lang=en`, { headers: { authorization: 'Bearer wrong' } });
    assert.equal(wrong.status, 401);
    assert.deepEqual(await bodyOf(wrong), { ok: false, error: 'unauthorized', message: 'The admin token is missing or wrong.', option: null });

    const created = await fetch(`${srv.url}/admin/api/keys`, { method: 'POST', headers: auth, body: JSON.stringify({ label: 'datos', quota: 50 }) });
    assert.equal(created.status, 201);
    const { key, secret } = await bodyOf(created);
    assert.equal(key.quota, 50);
    assert.match(secret, /^sk_/);
    const listed = await bodyOf(await fetch(`${srv.url}/admin/api/keys`, { headers: auth }));
    assert.equal(listed.keys.length, 1);
    assert.equal(listed.defaultQuota, 1000, 'the quota of a key without its own is shown');
    assert.equal(JSON.stringify(listed).includes(secret), false, 'the secret is never listed');
    const bad = await fetch(`${srv.url}/admin/api/keys`, { method: 'POST', headers: auth, body: JSON.stringify({ label: '', extra: 1 }) });
    assert.equal(bad.status, 400);
    assert.equal((await bodyOf(bad)).option, 'label');

    const run = await postRun(srv.url, 'split-rows', { file: fileObject('x.csv', 'a\n1\n') }, { headers: { 'x-api-key': secret } });
    assert.equal(run.headers.get('ratelimit-limit'), '50');
    assert.equal((await fetch(`${srv.url}/admin/api/keys/${key.id}`, { method: 'DELETE', headers: auth })).status, 200);
    assert.equal((await fetch(`${srv.url}/admin/api/keys/nope`, { method: 'DELETE', headers: auth })).status, 404);
    const after = await postRun(srv.url, 'split-rows', { file: fileObject('x.csv', 'a\n1\n') }, { headers: { 'x-api-key': secret } });
    assert.equal(after.status, 401);
  } finally {
    await srv.close();
  }
});

test('admin: the listing shows each key\'s runs this hour and last use; PATCH edits label and quota, which apply at once', async () => {
  const srv = await startServer({ ADMIN_TOKEN: TOKEN });
  try {
    const { key, secret } = await bodyOf(await fetch(`${srv.url}/admin/api/keys`, { method: 'POST', headers: auth, body: JSON.stringify({ label: 'ventas' }) }));
    assert.equal(key.quota, null);
    const listOne = async () => (await bodyOf(await fetch(`${srv.url}/admin/api/keys`, { headers: auth }))).keys[0];
    assert.deepEqual([(await listOne()).runsThisHour, (await listOne()).lastUsedAt], [0, null]);

    for (let i = 0; i < 2; i++) assert.equal((await postRun(srv.url, 'split-rows', { file: fileObject('x.csv', 'a\n1\n') }, { headers: { authorization: `Bearer ${secret}` } })).status, 200);
    // A run refused for its input counts against the quota, so it counts here too.
    assert.equal((await postRun(srv.url, 'split-rows', { file: fileObject('x.pdf', 'a') }, { headers: { authorization: `Bearer ${secret}` } })).status, 400);
    const used = await listOne();
    assert.equal(used.runsThisHour, 3);
    assert.ok(Date.now() - Date.parse(used.lastUsedAt) < 3_600_000);

    const patched = await fetch(`${srv.url}/admin/api/keys/${key.id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ label: 'ventas 2027', quota: 2 }) });
    assert.equal(patched.status, 200);
    assert.deepEqual({ label: (await bodyOf(patched)).key.label, quota: (await listOne()).quota }, { label: 'ventas 2027', quota: 2 });
    const run = await postRun(srv.url, 'split-rows', { file: fileObject('x.csv', 'a\n1\n') }, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(run.headers.get('ratelimit-limit'), '2', 'the new quota applies to the next run');

    const back = await fetch(`${srv.url}/admin/api/keys/${key.id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ quota: null }) });
    assert.equal((await bodyOf(back)).key.quota, null, 'null gives the key the default quota again');
    const refused = await fetch(`${srv.url}/admin/api/keys/${key.id}?lang=en`, { method: 'PATCH', headers: auth, body: JSON.stringify({ quota: -1 }) });
    assert.equal(refused.status, 400);
    assert.deepEqual({ ...(await bodyOf(refused)), message: '' }, { ok: false, error: 'invalid_option', message: '', option: 'quota' });
    const unknown = await fetch(`${srv.url}/admin/api/keys/${key.id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ secret: 'x' }) });
    assert.equal(unknown.status, 400);
    const malformed = await fetch(`${srv.url}/admin/api/keys/${key.id}`, { method: 'PATCH', headers: auth, body: '{"label":' });
    assert.deepEqual([malformed.status, (await bodyOf(malformed)).error], [400, 'invalid_option']);
    assert.equal((await fetch(`${srv.url}/admin/api/keys/nope`, { method: 'PATCH', headers: auth, body: '{"label":"x"}' })).status, 404);
  } finally {
    await srv.close();
  }
});

test('admin: the page answers at /admin and /admin/ alike, with a CSP that allows no inline script, and calls /admin/api by absolute path', async () => {
  const srv = await startServer({ ADMIN_TOKEN: TOKEN });
  try {
    const pages = await Promise.all(['/admin', '/admin/', '/admin?lang=en'].map((p) => fetch(`${srv.url}${p}`)));
    const texts = await Promise.all(pages.map((p) => p.text()));
    for (const p of pages) {
      assert.equal(p.status, 200);
      assert.match(p.headers.get('content-security-policy') ?? '', /script-src 'self'(;|$)/);
      assert.doesNotMatch(p.headers.get('content-security-policy') ?? '', /unsafe-inline|unsafe-eval/);
    }
    assert.equal(texts[0], texts[1]);
    assert.match(texts[0], /<script type="module" src="\/assets\/js\/admin\.js"><\/script>/);
    const script = await (await fetch(`${srv.url}/assets/js/admin.js`)).text();
    assert.match(script, /const API = '\/admin\/api';/, 'the API path does not depend on the page URL');
  } finally {
    await srv.close();
  }
});

test('admin: wrong tokens are limited per address and logged without the token; a request without one is not counted', async () => {
  const srv = await startServer({ ADMIN_TOKEN: TOKEN });
  const logged: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => void logged.push(args.map(String).join(' '));
  try {
    for (let i = 0; i < 5; i++) assert.equal((await fetch(`${srv.url}/admin/api/keys`)).status, 401);
    for (let i = 1; i <= ADMIN_GUESSES; i++) {
      const r = await fetch(`${srv.url}/admin/api/keys`, { headers: { authorization: `Bearer guess-number-${i}` } });
      assert.equal(r.status, 401, `guess ${i}`);
    }
    const blocked = await fetch(`${srv.url}/admin/api/keys?lang=en`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(blocked.status, 429, 'past the limit even the right token is refused from that address');
    assert.ok(Number(blocked.headers.get('retry-after')) > 0);
    assert.equal((await bodyOf(blocked)).error, 'too_many_attempts');
    assert.equal(logged.filter((l) => l.includes('wrong token from')).length, ADMIN_GUESSES);
    assert.equal(logged.filter((l) => l.includes('refused for')).length, 1);
    assert.ok(logged.every((l) => !l.includes('guess-number') && !l.includes(TOKEN)), 'no token in the log');
  } finally {
    console.warn = warn;
    await srv.close();
  }
});

test('admin: start-up refuses an ADMIN_TOKEN shorter than 32 characters, naming the variable and not the token', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'st-admin-'));
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('../../mcp/main.ts', import.meta.url).pathname], {
    env: { ...process.env, PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: 'hunter2-is-short' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  try {
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 1);
    assert.match(out, /ADMIN_TOKEN .*32 characters/);
    assert.doesNotMatch(out, /hunter2/);
  } finally {
    child.kill('SIGKILL');
  }
});

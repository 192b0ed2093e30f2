import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bodyOf, postRun, fileObject, startServer } from '../helpers/http.ts';

test('admin: disabled (404) without ADMIN_TOKEN', async () => {
  const srv = await startServer();
  try {
    assert.equal((await fetch(`${srv.url}/admin/api/keys`)).status, 404);
    assert.equal((await fetch(`${srv.url}/admin`)).status, 404);
  } finally {
    await srv.close();
  }
});

test('admin: with ADMIN_TOKEN, 401 without it; create (secret once), list, revoke; the key works until revoked', async () => {
  const srv = await startServer({ ADMIN_TOKEN: 's3cret-admin' });
  const auth = { authorization: 'Bearer s3cret-admin', 'content-type': 'application/json' };
  try {
    assert.equal((await fetch(`${srv.url}/admin/api/keys`)).status, 401);
    assert.equal((await fetch(`${srv.url}/admin/api/keys`, { headers: { authorization: 'Bearer wrong' } })).status, 401);
    const page = await fetch(`${srv.url}/admin?lang=en`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /API keys/);

    const created = await fetch(`${srv.url}/admin/api/keys`, { method: 'POST', headers: auth, body: JSON.stringify({ label: 'datos', quota: 50 }) });
    assert.equal(created.status, 201);
    const { key, secret } = await bodyOf(created);
    assert.equal(key.quota, 50);
    assert.match(secret, /^sk_/);
    const listed = await bodyOf(await fetch(`${srv.url}/admin/api/keys`, { headers: auth }));
    assert.equal(listed.keys.length, 1);
    assert.equal(JSON.stringify(listed).includes(secret), false, 'the secret is never listed');
    const bad = await fetch(`${srv.url}/admin/api/keys`, { method: 'POST', headers: auth, body: JSON.stringify({ label: '', extra: 1 }) });
    assert.equal(bad.status, 400);

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

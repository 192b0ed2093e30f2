import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileKeyStore } from '../../tools/core/keys.ts';

/** A fresh folder for one test's stores, removed after it. */
function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'keys-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('keys: created keys verify, survive a restart, are stored hashed, and stop working when revoked', async (t) => {
  const dir = tempDir(t);
  const store = createFileKeyStore(dir);
  const { key, secret } = await store.create('equipo', 500);
  assert.equal((await store.verify(secret))?.id, key.id);
  assert.equal(await store.verify(secret + 'x'), null);
  const file = readFileSync(join(dir, 'api-keys.json'), 'utf8');
  assert.ok(!file.includes(secret), 'the secret itself is never written');

  const again = createFileKeyStore(dir);
  assert.equal((await again.verify(secret))?.quota, 500);
  assert.equal(await again.revoke(key.id), true);
  assert.equal(await again.verify(secret), null);
  assert.equal(await again.revoke('nope'), false);
  assert.equal(await createFileKeyStore(dir).verify(secret), null, 'revocation survives a restart');
  assert.equal((await again.list())[0].revokedAt !== null, true);
});

test('keys: update changes label and quota (null: the default) and survives a restart; unknown ids give null', async (t) => {
  const dir = tempDir(t);
  const store = createFileKeyStore(dir);
  const { key, secret } = await store.create('equipo', 500);
  const updated = await store.update(key.id, { label: 'ventas', quota: null });
  assert.deepEqual({ label: updated?.label, quota: updated?.quota, id: updated?.id }, { label: 'ventas', quota: null, id: key.id });
  assert.equal((await store.update(key.id, { quota: 7 }))?.label, 'ventas', 'a change left out keeps its value');
  assert.equal(await store.update('nope', { label: 'x' }), null);
  const again = createFileKeyStore(dir);
  const reread = await again.verify(secret);
  assert.deepEqual({ label: reread?.label, quota: reread?.quota }, { label: 'ventas', quota: 7 });
  assert.equal(JSON.stringify(await again.list()).includes('hash'), false, 'the listing shows no hash');
});

test('keys: usage counts the runs of the current clock hour and the last use, which a restart keeps', async (t) => {
  const dir = tempDir(t);
  const store = createFileKeyStore(dir);
  const { key: a } = await store.create('a', null);
  const { key: b } = await store.create('b', null);
  const before = Date.now();
  store.recordRun(a.id);
  store.recordRun(a.id);
  assert.equal((await store.usage(a.id, 1))?.at(-1)?.runs, 2);
  assert.equal((await store.usage(b.id, 1))?.at(-1)?.runs, 0);
  let last = await store.lastUsed([a.id, b.id]);
  assert.ok(Date.parse(last.get(a.id) ?? '') >= before - 1000, 'the last use is the run just made');
  assert.equal(last.get(b.id), null, 'a key never used was never used');
  // A busy refusal given back takes the run away again; the last use stays.
  store.recordRun(a.id, -1);
  assert.equal((await store.usage(a.id, 1))?.at(-1)?.runs, 1);
  await store.close();
  const again = createFileKeyStore(dir);
  last = await again.lastUsed([a.id]);
  assert.ok(Date.parse(last.get(a.id) ?? '') >= before - 1000, 'the last use survives a restart');
  assert.equal((await again.usage(a.id, 1))?.at(-1)?.runs, 1);
  await again.close();
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileKeyStore } from '../../tools/core/keys.ts';

test('keys: created keys verify, survive a restart, are stored hashed, and stop working when revoked', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keys-'));
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

test('keys: update changes label and quota (null: the default) and survives a restart; unknown ids give null', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keys-'));
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

test('keys: usage counts the runs of the current clock hour and the last use, which a restart keeps', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keys-'));
  const store = createFileKeyStore(dir);
  const { key: a } = await store.create('a', null);
  const { key: b } = await store.create('b', null);
  const t0 = new Date('2026-11-26T10:59:00Z');
  await store.recordUse(a.id, t0);
  await store.recordUse(a.id, new Date('2026-11-26T10:59:30Z'));
  let u = await store.usage([a.id, b.id], new Date('2026-11-26T10:59:40Z'));
  assert.deepEqual(u.get(a.id), { runsThisHour: 2, lastUsedAt: '2026-11-26T10:59:30.000Z' });
  assert.deepEqual(u.get(b.id), { runsThisHour: 0, lastUsedAt: null });
  // A new hour starts the count again; the last use stays.
  u = await store.usage([a.id], new Date('2026-11-26T11:00:01Z'));
  assert.deepEqual(u.get(a.id), { runsThisHour: 0, lastUsedAt: '2026-11-26T10:59:30.000Z' });
  await store.recordUse(a.id, new Date('2026-11-26T11:00:05Z'));
  assert.equal((await store.usage([a.id], new Date('2026-11-26T11:10:00Z'))).get(a.id)?.runsThisHour, 1);
  // The file keeps the last use to the minute: a restart shows the use written, not the hour's count.
  const again = createFileKeyStore(dir);
  const after = (await again.usage([a.id], new Date('2026-11-26T11:10:00Z'))).get(a.id);
  assert.equal(after?.runsThisHour, 0);
  assert.ok(after?.lastUsedAt && Date.parse(after.lastUsedAt) >= t0.getTime() - 60_000, 'the last use survives a restart');
  assert.equal(readFileSync(join(dir, 'api-keys.json'), 'utf8').includes('lastUsedAt'), true);
});

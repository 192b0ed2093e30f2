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

// The embedded key store (no Redis): processes sharing DATA_DIR see each other's keys, revocations and
// quota changes, never overwrite each other's writes, and add up each other's per-hour usage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createFileKeyStore, FILE_RECHECK_MS, withKeyUsage } from '../../tools/core/keys.ts';
import { createMemoryQuota } from '../../tools/core/quota.ts';

const run = promisify(execFile);
const WRITER = new URL('./key-writer.ts', import.meta.url).pathname;
/** Longer than a store waits before looking at the file again, whatever the machine's load. */
const recheck = () => new Promise((r) => setTimeout(r, 2 * FILE_RECHECK_MS));

test('file keys: a second store on the same folder sees a new key, its quota change and its revocation', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keys-shared-'));
  const a = createFileKeyStore(dir);
  const b = createFileKeyStore(dir);
  try {
    assert.equal(await b.verify('sk_nothing'), null, 'b has looked at the (missing) file');
    const { key, secret } = await a.create('equipo', 10);
    await recheck();
    assert.equal((await b.verify(secret))?.id, key.id, 'a key made by another process works');
    const updated = await b.update(key.id, { quota: 99, label: 'equipo grande' });
    assert.deepEqual({ quota: updated?.quota, label: updated?.label }, { quota: 99, label: 'equipo grande' });
    await recheck();
    assert.equal((await a.verify(secret))?.quota, 99);
    assert.equal((await a.list())[0].label, 'equipo grande');
    assert.equal(await b.update('nope', { quota: 1 }), null);
    assert.equal(await a.revoke(key.id), true);
    await recheck();
    assert.equal(await b.verify(secret), null, 'a key revoked by another process is refused');
    assert.ok((await b.list())[0].revokedAt);
    assert.ok(!readFileSync(join(dir, 'api-keys.json'), 'utf8').includes(secret), 'only the hash is stored');
  } finally {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('file keys: two processes writing at once lose nothing (keys, revocations, usage)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keys-race-'));
  try {
    const outs = await Promise.all(['uno', 'dos'].map((label) => run(process.execPath, ['--import', 'tsx', WRITER, dir, label, '15'], { timeout: 120_000 })));
    const made = outs.flatMap((o) => JSON.parse(o.stdout) as Array<{ id: string; secret: string }>);
    const store = createFileKeyStore(dir);
    try {
      const listed = await store.list();
      assert.equal(listed.length, 30, 'every key of both processes is in the file');
      assert.deepEqual(new Set(listed.map((k) => k.id)), new Set(made.map((k) => k.id)));
      assert.equal(listed.filter((k) => k.revokedAt).length, 2, "each process's revocation is kept");
      for (const { id } of made) {
        const usage = await store.usage(id, 2);
        assert.equal(usage?.at(-1)?.runs, 3, `usage of ${id}`);
      }
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('file keys: usage counts the runs a key\'s quota took, per clock hour, minus the ones given back', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'keys-usage-'));
  const keys = createFileKeyStore(dir, { flushMs: 10 });
  try {
    const { key } = await keys.create('uso', 5);
    const quota = withKeyUsage(createMemoryQuota(), keys);
    for (let i = 0; i < 4; i++) assert.equal((await quota.take(`key:${key.id}`, 5)).allowed, true);
    await quota.giveBack(`key:${key.id}`, 5);
    assert.equal((await quota.take('ip:192.0.2.1', 5)).allowed, true, 'anonymous runs are not recorded anywhere');
    const hours = await keys.usage(key.id, 24);
    assert.equal(hours?.length, 24);
    assert.equal(hours?.at(-1)?.runs, 3, 'pending counts are included before they are written');
    assert.ok(hours!.slice(0, -1).every((h) => h.runs === 0));
    assert.match(hours!.at(-1)!.hour, /^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.000Z$/);
    await keys.close();
    const again = createFileKeyStore(dir);
    assert.equal((await again.usage(key.id, 1))?.[0].runs, 3, 'written at close, read by another store');
    assert.equal(await again.usage('nope'), null);
    await again.close();
  } finally {
    await keys.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

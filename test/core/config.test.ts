import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { CONFIG_VARIABLES, bodyLimitBytes, parseConfig } from '../../tools/core/config.ts';

test('config: every variable has a working default', () => {
  const c = parseConfig({}, { cpus: availableParallelism(), memoryBytes: null });
  assert.equal(c.PORT, 3000);
  assert.equal(c.MAX_INPUT_MB, 25);
  assert.equal(c.MAX_INLINE_RESULT_MB, 8);
  assert.equal(c.MAX_RESULT_MB, 100);
  assert.equal(c.MAX_JOBS, availableParallelism());
  assert.equal(c.JOB_TIMEOUT_S, 60);
  assert.equal(c.JOB_MEMORY_MB, 1024);
  assert.equal(c.ANON_RUNS_PER_HOUR, 30);
  assert.equal(c.KEY_RUNS_PER_HOUR, 1000);
  assert.deepEqual(c.ALLOWED_HOSTS, []);
  assert.ok(Object.isFrozen(c));
});

test('config: a bad value names the variable', () => {
  assert.throws(() => parseConfig({ PORT: 'abc' }), /PORT/);
  assert.throws(() => parseConfig({ MAX_JOBS: '0' }), /MAX_JOBS/);
  assert.throws(() => parseConfig({ JOB_TIMEOUT_S: '-1' }), /JOB_TIMEOUT_S/);
  assert.throws(() => parseConfig({ REDIS_URL: 'localhost:6379' }), /REDIS_URL/);
  assert.throws(() => parseConfig({ REDIS_URL: 'http://localhost' }), /REDIS_URL/);
  assert.equal(parseConfig({ REDIS_URL: 'redis://cache:6379/2' }).REDIS_URL, 'redis://cache:6379/2');
});

test('config: lists and fractional timeouts parse', () => {
  const c = parseConfig({ ALLOWED_HOSTS: 'a.example, b.example', JOB_TIMEOUT_S: '0.5' });
  assert.deepEqual(c.ALLOWED_HOSTS, ['a.example', 'b.example']);
  assert.equal(c.JOB_TIMEOUT_S, 0.5);
});

test('config: the JSON body limit covers the input bound in base64', () => {
  assert.ok(bodyLimitBytes({ MAX_INPUT_MB: 25 }) >= (25 * 1024 * 1024 * 4) / 3);
  assert.ok(Object.keys(CONFIG_VARIABLES).every((k) => /^[A-Z_]+$/.test(k)));
});

test('config: ADMIN_TOKEN is unset or at least 32 characters, and a refused one is never echoed', () => {
  assert.equal(parseConfig({}).ADMIN_TOKEN, '');
  assert.equal(parseConfig({ ADMIN_TOKEN: 'x'.repeat(32) }).ADMIN_TOKEN, 'x'.repeat(32));
  assert.throws(
    () => parseConfig({ ADMIN_TOKEN: 'short-but-secret' }),
    (err: Error) => /ADMIN_TOKEN/.test(err.message) && /32 characters/.test(err.message) && !err.message.includes('short-but-secret'),
  );
  // Outer spaces are trimmed first: 31 characters padded to 33 are still too short.
  assert.throws(() => parseConfig({ ADMIN_TOKEN: ` ${'y'.repeat(31)} ` }), /ADMIN_TOKEN/);
});

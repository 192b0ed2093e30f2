// Upload buffers are let go here once a job process has them, when that is safe: a big upload does not stay
// in the server while its copy is in the job (no second copy), a small Buffer that may share Node's pool is
// never detached. Results come back whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfig } from '../../tools/core/config.ts';
import { createJobRunner } from '../../tools/core/jobs.ts';
import { own, release, TRANSFER_MIN_BYTES, transferables } from '../../tools/core/transfer.ts';
import { bigCsv } from '../helpers/generate.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';

const KEPT = new URL('../helpers/kept-job.ts', import.meta.url);

test('transferables: only whole buffers past the threshold, each once', () => {
  const big = new Uint8Array(TRANSFER_MIN_BYTES);
  const sameBuffer = new Uint8Array(big.buffer);
  const pooled = Buffer.from('id,a\n1,2\n');
  const slice = new Uint8Array(TRANSFER_MIN_BYTES * 2).subarray(1);
  const small = new Uint8Array(TRANSFER_MIN_BYTES - 1);
  assert.deepEqual(transferables([big, sameBuffer, pooled, slice, small]), [big.buffer]);
});

test('release: a let-go buffer leaves V8\'s count of memory outside the heap at once, not at a later collection', () => {
  const MB = 1024 * 1024;
  const body = Buffer.allocUnsafeSlow(16 * MB);
  own(body.buffer);
  const file = new Uint8Array(body.buffer, 100, 12 * MB);
  const before = process.memoryUsage().arrayBuffers;
  release([file]);
  assert.equal(file.byteLength, 0, 'every view reads as empty');
  assert.equal(body.byteLength, 0);
  // No collection runs in between (none is asked for, and nothing is allocated): the 16 MB are gone from the
  // count as the call returns. Handed to a clone, they stayed counted until a collection swept it.
  assert.ok(before - process.memoryUsage().arrayBuffers >= 16 * MB, `${before} -> ${process.memoryUsage().arrayBuffers}`);
});

test('release: a buffer that cannot be let go (a WebAssembly memory\'s) is left as it is, the others still are', () => {
  // (The project's types have no WebAssembly: Node's runtime has.)
  const wasm32 = (globalThis as unknown as { WebAssembly: { Memory: new (o: { initial: number }) => { buffer: ArrayBuffer } } }).WebAssembly;
  const memory = new wasm32.Memory({ initial: 2 });
  const wasm = new Uint8Array(memory.buffer);
  const big = new Uint8Array(TRANSFER_MIN_BYTES);
  release([wasm, big]);
  assert.equal(wasm.byteLength, 2 * 65536);
  assert.equal(big.byteLength, 0);
});

test('jobs: a big upload is let go once the job process has it, and its result comes back; a small pooled one stays readable', async () => {
  const jobs = createJobRunner(parseConfig({ MAX_JOBS: '1' }), 'workers');
  try {
    const csv = bigCsv(5_000);
    const big = new Uint8Array(Buffer.byteLength(csv));
    Buffer.from(big.buffer).write(csv);
    assert.ok(big.byteLength >= TRANSFER_MIN_BYTES);
    const result = await jobs.run({ toolId: 'csv-to-excel', files: [{ name: 'grande.csv', bytes: big }], opts: { 'has-header': true, 'detect-types': true }, lang: 'es', download: true });
    assert.equal(big.byteLength, 0, 'the upload was let go once sent');
    const sheet = (await readXlsx(result.files[0].bytes))[0];
    assert.equal(sheet.rows.length, 5_001);
    assert.equal(sheet.rows[5_000][1], 'Bilbao');

    const pooled = Buffer.from('id,ciudad\n1,Sevilla\n');
    const text = pooled.toString();
    const small = await jobs.run({ toolId: 'csv-to-excel', files: [{ name: 'p.csv', bytes: new Uint8Array(pooled.buffer, pooled.byteOffset, pooled.byteLength) }], opts: { 'has-header': true, 'detect-types': true }, lang: 'es', download: true });
    assert.equal(pooled.toString(), text, 'a Buffer from the shared pool is copied, never detached');
    assert.equal((await readXlsx(small.files[0].bytes))[0].rows[1][1], 'Sevilla');
  } finally {
    await jobs.close();
  }
});

test('job processes let go of a run\'s input and results once the reply is written; what the server got is whole', async () => {
  const jobs = createJobRunner(parseConfig({ MAX_JOBS: '1' }), 'workers', KEPT);
  const kept = async () => {
    const r = await jobs.run({ toolId: 'split-rows', files: [{ name: 'kept.txt', bytes: new Uint8Array(1) }], opts: {}, lang: 'es', download: true });
    return new TextDecoder().decode(r.files[0].bytes).split('\n');
  };
  try {
    const csv = bigCsv(5_000);
    const upload = new Uint8Array(Buffer.byteLength(csv));
    Buffer.from(upload.buffer).write(csv);
    const opts = { delimiter: 'semicolon', encoding: 'utf-8', bom: false, 'line-ending': 'lf' };
    const result = await jobs.run({ toolId: 'convert-csv', files: [{ name: 'grande.csv', bytes: upload }], opts, lang: 'es', download: true });
    const inline = createJobRunner(parseConfig({}), 'inline');
    const inProcess = await inline.run({ toolId: 'convert-csv', files: [{ name: 'grande.csv', bytes: new TextEncoder().encode(csv) }], opts, lang: 'es', download: true });
    await inline.close();
    assert.ok(Buffer.from(result.files[0].bytes).equals(inProcess.files[0].bytes), 'the result arrived whole');
    // Both over TRANSFER_MIN_BYTES: freed as the reply is written, not left to the process's next collection.
    assert.ok(result.files[0].bytes.byteLength >= TRANSFER_MIN_BYTES);
    assert.deepEqual(await kept(), ['input 0', 'result 0']);
    // A small run's buffers (under TRANSFER_MIN_BYTES) are left to the collector.
    const small = await jobs.run({ toolId: 'convert-csv', files: [{ name: 'p.csv', bytes: new TextEncoder().encode('id,ciudad\n1,Sevilla\n') }], opts, lang: 'es', download: true });
    assert.equal(new TextDecoder().decode(small.files[0].bytes), 'id;ciudad\n1;Sevilla\n');
    assert.deepEqual(await kept(), [`input ${'id,ciudad\n1,Sevilla\n'.length}`, `result ${'id;ciudad\n1;Sevilla\n'.length}`]);
  } finally {
    await jobs.close();
  }
});

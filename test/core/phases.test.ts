// The bench's per-phase breakdown (tools/core/phases.ts): a measured run over HTTP publishes its marks once its
// answer is written, from both doors, through the real job processes; the marks of one clock come in order,
// and the job process tells which it was and what it grew by during the job.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { RUN_PHASES_CHANNEL, type RunPhases } from '../../tools/core/phases.ts';
import { fileObject, formOf, postForm, postRun, startServer } from '../helpers/http.ts';

test('a measured run publishes its phase marks, multipart and JSON alike', async () => {
  const seen: RunPhases[] = [];
  const listener = (m: unknown) => seen.push(m as RunPhases);
  subscribe(RUN_PHASES_CHANNEL, listener);
  const srv = await startServer();
  try {
    const csv = 'a,b\n1,2\n3,4\n';
    const form = await postForm(srv.url, 'split-rows', formOf([{ field: 'file', name: 'x.csv', content: csv }], { format: 'csv', 'rows-per-file': '1' }), { query: 'download=true' });
    assert.equal(form.status, 200);
    await form.arrayBuffer();
    const json = await postRun(srv.url, 'split-rows', { file: fileObject('x.csv', csv), format: 'csv', 'rows-per-file': 1 }, { query: 'download=true' });
    assert.equal(json.status, 200);
    await json.arrayBuffer();
    const refused = await postRun(srv.url, 'split-rows', { file: fileObject('x.pdf', csv) });
    assert.equal(refused.status, 400);
    await refused.arrayBuffer();
    // The answer is out before its 'finish' runs here: wait for the three messages.
    for (let i = 0; seen.length < 3 && i < 200; i++) await new Promise((r) => setImmediate(r));
    assert.deepEqual(seen.map((m) => [m.tool, m.door, m.status]), [['split-rows', 'multipart', 200], ['split-rows', 'json', 200], ['split-rows', 'json', 400]]);
    for (const { marks: m } of seen.slice(0, 2)) {
      const server = [m.start, m.bodyEnd, m.jobStart, m.returned, m.answer, m.finish];
      assert.ok(server.every((x) => typeof x === 'number'), JSON.stringify(m));
      assert.deepEqual(server, [...server].sort((a, b) => a! - b!), 'the server\'s marks in order');
      assert.ok(typeof m.got === 'number' && typeof m.done === 'number' && m.got <= m.done, 'the job process\'s marks in order');
    }
    // A refused run has no job marks.
    assert.equal(seen[2].marks.got, undefined);
  } finally {
    unsubscribe(RUN_PHASES_CHANNEL, listener);
    await srv.close();
  }
});

test('a measured run is told the job process that ran it and the memory that process gained during the job', { skip: process.platform !== 'linux' && 'reads /proc' }, async () => {
  const seen: RunPhases[] = [];
  const listener = (m: unknown) => seen.push(m as RunPhases);
  subscribe(RUN_PHASES_CHANNEL, listener);
  // The grow job holds 48 MB, every page written, then answers with its pid (test/helpers/grow-job.ts).
  const srv = await startServer({}, { workerModule: new URL('../helpers/grow-job.ts', import.meta.url) });
  try {
    const res = await postRun(srv.url, 'split-rows', { file: fileObject('grow.csv', '48') }, { query: 'download=true' });
    assert.equal(res.status, 200);
    const pid = Number((await res.text()).split(' ')[0]);
    for (let i = 0; seen.length < 1 && i < 200; i++) await new Promise((r) => setImmediate(r));
    const { marks } = seen[0];
    assert.equal(marks.jobPid, pid);
    // At least most of the 48 MB (a collection during the job may give some of what it held before back), and
    // nowhere near the whole process (about 150 MB).
    assert.ok(typeof marks.jobGrowthMb === 'number' && marks.jobGrowthMb >= 40 && marks.jobGrowthMb < 48 + 64, `grew ${marks.jobGrowthMb} MB holding 48`);
  } finally {
    unsubscribe(RUN_PHASES_CHANNEL, listener);
    await srv.close();
  }
});

// A job runs in a process of its own, where its death cannot take the server down: the allocation shapes that
// abort a whole process from a worker thread (nodejs/node issue 47224), buffers that grow outside the V8 heap,
// and a real file that exhausts memory each end as 413 too_complex for their run (stopped for memory, not
// time: the time limit here is far beyond the test's own timeout), and the server answers the next calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { zipSync, strToU8 } from 'fflate';
import { parseConfig } from '../../tools/core/config.ts';
import { ToolError } from '../../tools/core/errors.ts';
import { createJobRunner, type Job } from '../../tools/core/jobs.ts';
import { bodyOf, fileObject, postRun, startServer } from '../helpers/http.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';
import { SHAPES } from './greedy-job.ts';

const GREEDY = new URL('./greedy-job.ts', import.meta.url);
const LIMITS = { MAX_JOBS: '1', JOB_MEMORY_MB: '128', JOB_TIMEOUT_S: '3600' };

const jobOf = (name: string, content = 'id,ciudad\n1,Sevilla\n'): Job => ({
  toolId: 'csv-to-excel',
  files: [{ name, bytes: new TextEncoder().encode(content) }],
  opts: { 'has-header': true, 'detect-types': true },
  lang: 'es',
  download: true,
});

/** A real ODS (here named .xlsx, which the xlsx reader hands to SheetJS): one value repeated over a million rows. */
function repeatedCellsWorkbook(): Uint8Array {
  const ns = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"';
  const content =
    `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ns} office:version="1.2"><office:body><office:spreadsheet>` +
    '<table:table table:name="Hoja1"><table:table-row table:number-rows-repeated="1000000">' +
    '<table:table-cell office:value-type="float" office:value="1" table:number-columns-repeated="1000"><text:p>1</text:p></table:table-cell>' +
    '</table:table-row></table:table></office:spreadsheet></office:body></office:document-content>';
  const manifest =
    '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">' +
    '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>' +
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>';
  const styles = `<?xml version="1.0" encoding="UTF-8"?><office:document-styles ${ns} office:version="1.2"/>`;
  return zipSync({
    mimetype: [strToU8('application/vnd.oasis.opendocument.spreadsheet'), { level: 0 }],
    'content.xml': strToU8(content),
    'styles.xml': strToU8(styles),
    'META-INF/manifest.xml': strToU8(manifest),
  });
}

test('job isolation: each allocation shape stops its run for memory, and the next run in a new process works', async () => {
  const jobs = createJobRunner(parseConfig(LIMITS), 'workers', GREEDY);
  try {
    for (const shape of Object.keys(SHAPES)) {
      await assert.rejects(jobs.run(jobOf(shape)), (err: unknown) => {
        assert.ok(err instanceof ToolError, String(err));
        assert.equal(err.code, 'too_complex', shape);
        assert.equal(err.detail.params?.reason, 'memory', shape);
        return true;
      });
      const after = await jobs.run(jobOf('normal.csv'));
      assert.deepEqual((await readXlsx(after.files[0].bytes))[0].rows, [['id', 'ciudad'], [1, 'Sevilla']], `after ${shape}`);
    }
  } finally {
    await jobs.close(0);
  }
});

test('job isolation: over HTTP, every shape is 413 too_complex while the server keeps answering', async () => {
  const srv = await startServer(LIMITS, { workerModule: GREEDY });
  try {
    for (const shape of Object.keys(SHAPES)) {
      const run = postRun(srv.url, 'csv-to-excel', { file: fileObject(shape, 'a\n1\n') });
      // The server answers while the job eats its memory, and after.
      assert.equal((await fetch(`${srv.url}/health`)).status, 200);
      const res = await run;
      assert.equal(res.status, 413, shape);
      assert.equal((await bodyOf(res)).error, 'too_complex', shape);
      assert.equal((await fetch(`${srv.url}/health`)).status, 200);
    }
    const ok = await postRun(srv.url, 'csv-to-excel', { file: fileObject('normal.csv', 'id,ciudad\n1,Sevilla\n') }, { query: 'download=true' });
    assert.equal(ok.status, 200);
    assert.deepEqual((await readXlsx(new Uint8Array(await ok.arrayBuffer())))[0].rows, [['id', 'ciudad'], [1, 'Sevilla']]);
  } finally {
    await srv.close();
  }
});

test('job isolation: a 1 KB workbook that exhausts memory when expanded is 413 too_complex; the server goes on', async () => {
  const bomb = repeatedCellsWorkbook();
  assert.ok(bomb.length < 2048, `${bomb.length} bytes`);
  const srv = await startServer(LIMITS);
  try {
    const res = await postRun(srv.url, 'excel-to-csv', { file: fileObject('biblioteca.xlsx', bomb), 'all-sheets': true });
    assert.equal(res.status, 413);
    assert.equal((await bodyOf(res)).error, 'too_complex');
    const ok = await postRun(srv.url, 'csv-to-excel', { file: fileObject('normal.csv', 'id,ciudad\n1,Sevilla\n') });
    assert.equal(ok.status, 200);
    assert.equal((await bodyOf(ok)).preview.rows[0][1], 'Sevilla');
  } finally {
    await srv.close();
  }
});

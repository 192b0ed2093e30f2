// Exactly one usage event per run, whatever its outcome, exposed at /metrics without content or address.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileObject, postRun, startServer } from '../helpers/http.ts';

function runsOf(metrics: string, outcome: string): number {
  return metrics
    .split('\n')
    .filter((l) => l.startsWith('spreadsheet_tools_runs_total{') && l.includes(`outcome="${outcome}"`))
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

test('usage: one event per run with tool, size band and outcome', async () => {
  const srv = await startServer();
  try {
    const before = await (await fetch(`${srv.url}/metrics`)).text();
    await postRun(srv.url, 'split-rows', { file: fileObject('x.csv', 'a\n1\n') });
    await postRun(srv.url, 'split-rows', { file: fileObject('x.csv', 'a\n1\n'), 'rows-per-file': -1 });
    await postRun(srv.url, 'split-rows', { file: fileObject('x.pdf', 'a') });
    const metrics = await (await fetch(`${srv.url}/metrics`)).text();
    assert.equal(runsOf(metrics, 'ok') - runsOf(before, 'ok'), 1);
    assert.equal(runsOf(metrics, 'invalid_option') - runsOf(before, 'invalid_option'), 1);
    assert.equal(runsOf(metrics, 'unsupported_format') - runsOf(before, 'unsupported_format'), 1);
    assert.match(metrics, /spreadsheet_tools_runs_total\{tool="split-rows",size_band="<100KB",outcome="ok"\} 1/);
    assert.match(metrics, /spreadsheet_tools_run_duration_seconds_bucket\{/);
    assert.match(metrics, /process_cpu_user_seconds_total/);
    assert.doesNotMatch(metrics, /127\.0\.0\.1|x\.csv/);
  } finally {
    await srv.close();
  }
});

// Size bounds: results above the inline limit need download=true; inputs above MAX_INPUT_MB are 413.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bigCsv } from '../helpers/generate.ts';
import { bodyOf, fileObject, postRun, startServer } from '../helpers/http.ts';

test('sizes: a result above the inline limit is result_too_large in JSON and MCP, and downloads fine', async () => {
  const srv = await startServer({ MAX_INLINE_RESULT_MB: '0.01' });
  try {
    const body = { file: fileObject('datos.csv', bigCsv(2000)), format: 'csv' };
    const res = await postRun(srv.url, 'split-rows', body);
    assert.equal(res.status, 413);
    const err = await bodyOf(res);
    assert.equal(err.error, 'result_too_large');
    assert.match(err.message, /download=true/);
    const dl = await postRun(srv.url, 'split-rows', body, { query: 'download=true' });
    assert.equal(dl.status, 200);
    assert.equal(dl.headers.get('content-type'), 'application/zip');

    const mcp = await fetch(`${srv.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'split-rows', arguments: body } }),
    });
    assert.equal((await bodyOf(mcp)).result.structuredContent.error, 'result_too_large');
  } finally {
    await srv.close();
  }
});

test('sizes: decoded input above MAX_INPUT_MB is input_too_large (JSON body and MCP)', async () => {
  const srv = await startServer({ MAX_INPUT_MB: '0.05' });
  try {
    const body = { file: fileObject('datos.csv', bigCsv(3000)) };
    const res = await postRun(srv.url, 'split-rows', body);
    assert.equal(res.status, 413);
    assert.equal((await bodyOf(res)).error, 'input_too_large');
    const mcp = await fetch(`${srv.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'split-rows', arguments: body } }),
    });
    const rpc = await bodyOf(mcp);
    assert.equal(rpc.result.structuredContent.error, 'input_too_large');
    assert.equal((await fetch(`${srv.url}/health`)).status, 200);
  } finally {
    await srv.close();
  }
});

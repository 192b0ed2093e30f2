// The real SDK client over Streamable HTTP against the running server.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listTools } from '../../tools/core/registry.ts';
import { jsonSchemaOf } from '../../tools/core/schema.ts';
import { bodyOf, fileObject, postRun, startServer, type TestServer } from '../helpers/http.ts';

let srv: TestServer;
before(async () => {
  srv = await startServer();
});
after(() => srv.close());

async function connect(query = '', headers: Record<string, string> = {}) {
  const client = new Client({ name: 'contract-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp${query}`), { requestInit: { headers } }));
  return client;
}

const CSV = 'id,nombre,importe\n001,Peña,10.5\n002,Ángel,20\n003,Zoë,30\n';

test('mcp: tools/list is the registry, with the same schemas, in Spanish by default', async () => {
  const client = await connect();
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), listTools().map((t) => t.id));
  for (const tool of listTools()) {
    const listed = tools.find((t) => t.name === tool.id)!;
    assert.deepEqual(listed.inputSchema, jsonSchemaOf(tool, 'es'));
    assert.equal(listed.outputSchema?.type, 'object');
    assert.deepEqual(listed.outputSchema?.required, ['ok']);
    assert.equal(listed.annotations?.readOnlyHint, true);
  }
  assert.equal(tools.find((t) => t.name === 'split-rows')!.title, 'Dividir por número de filas');
  await client.close();
});

test('mcp: ?lang=en gives English texts and English generated names', async () => {
  const client = await connect('?lang=en');
  const { tools } = await client.listTools();
  assert.equal(tools.find((t) => t.name === 'split-rows')!.title, 'Split by number of rows');
  assert.deepEqual(tools.find((t) => t.name === 'split-rows')!.inputSchema, jsonSchemaOf(listTools().find((t) => t.id === 'split-rows')!, 'en'));
  const res = await client.callTool({ name: 'split-rows', arguments: { file: fileObject('datos.csv', CSV), 'rows-per-file': 2, format: 'csv' } });
  const sc = res.structuredContent as { files: { name: string }[] };
  assert.deepEqual(sc.files.map((f) => f.name), ['part-001.csv', 'part-002.csv']);
  await client.close();
});

test('mcp: a call returns the same bytes as REST, as embedded resources and structuredContent', async () => {
  const client = await connect();
  const args = { file: fileObject('datos.csv', CSV), 'rows-per-file': 2 };
  const res = await client.callTool({ name: 'split-rows', arguments: args });
  assert.notEqual(res.isError, true);
  const sc = res.structuredContent as { ok: boolean; files: { name: string; uri: string; size: number }[]; preview: { totalRows: number } };
  assert.equal(sc.ok, true);
  assert.deepEqual(sc.files.map((f) => f.name), ['parte-001.xlsx', 'parte-002.xlsx']);
  assert.equal(sc.preview.totalRows, 2, 'the preview is the first result file');
  const content = res.content as Array<{ type: string; text?: string; resource?: { uri: string; blob: string; mimeType: string } }>;
  assert.equal(content[0].type, 'text');
  const resources = content.filter((c) => c.type === 'resource').map((c) => c.resource!);
  assert.equal(resources.length, 2);
  assert.ok(resources[0].uri.endsWith('/parte-001.xlsx'));
  assert.equal(resources[0].uri, sc.files[0].uri);
  assert.equal(resources[0].mimeType, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');

  const rest = await bodyOf(await postRun(srv.url, 'split-rows', args));
  assert.deepEqual(rest.files.map((f: { contentBase64: string }) => f.contentBase64), resources.map((r) => r.blob));
  await client.close();
});

test('mcp: a tool error is a result with isError and the Error body, and the client does not throw', async () => {
  const client = await connect();
  const res = await client.callTool({ name: 'split-rows', arguments: { file: fileObject('datos.csv', CSV), 'rows-per-file': 0 } });
  assert.equal(res.isError, true);
  assert.deepEqual(Object.keys(res.structuredContent!).sort(), ['error', 'message', 'ok', 'option']);
  assert.equal((res.structuredContent as { error: string }).error, 'invalid_option');
  assert.equal((res.structuredContent as { option: string }).option, 'rows-per-file');
  assert.match((res.content as { text: string }[])[0].text, /^invalid_option: /);

  const unknown = await client.callTool({ name: 'split-rows', arguments: { file: fileObject('datos.csv', CSV), nope: 1 } });
  assert.equal((unknown.structuredContent as { error: string }).error, 'unknown_option');
  const noTool = await client.callTool({ name: 'no-such-tool', arguments: {} });
  assert.equal((noTool.structuredContent as { error: string }).error, 'unknown_tool');
  await client.close();
});

test('mcp: GET and DELETE are 405 (stateless server), and tools/list does not use the quota', async () => {
  assert.equal((await fetch(`${srv.url}/mcp`)).status, 405);
  assert.equal((await fetch(`${srv.url}/mcp`, { method: 'DELETE' })).status, 405);
});

// The real SDK client over Streamable HTTP against the running server.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { MAX_BATCH_MESSAGES } from '../../mcp/batch-limits.ts';
import { OUTPUT_SCHEMA } from '../../mcp/output-schema.ts';
import { leanInputSchema } from '../../mcp/tool-list.ts';
import type { AnyTool } from '../../tools/core/define.ts';
import { listTools } from '../../tools/core/registry.ts';
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

test('mcp: tools/list is the registry, with its lean schemas (mcp-view.test.ts), in Spanish by default', async () => {
  const client = await connect();
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), listTools().map((t) => t.id));
  for (const tool of listTools()) {
    const listed = tools.find((t) => t.name === tool.id)!;
    assert.deepEqual(listed.inputSchema, leanInputSchema(tool, 'es'));
    assert.deepEqual(listed.outputSchema, OUTPUT_SCHEMA);
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
  assert.deepEqual(tools.find((t) => t.name === 'split-rows')!.inputSchema, leanInputSchema(listTools().find((t) => t.id === 'split-rows')!, 'en'));
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

const fixture = (name: string) => fileObject(name, readFileSync(new URL(`../fixtures/${name}`, import.meta.url)));

/** The required options of the tools that have some, for CSV's columns. */
const REQUIRED: Record<string, Record<string, unknown>> = {
  'split-by-column': { column: 'nombre' },
  'merge-by-key': { key: 'id' },
  'merge-columns': { columns: 'id,nombre' },
  'split-column': { column: 'nombre' },
  'split-to-sheets': { column: 'nombre' },
  'excel-to-vcard': { 'full-name': 'nombre' },
  'extract-sheets': { sheets: '1' },
};

/** Arguments with which `tool` succeeds: a small input of a format it reads, and its required options. */
function goodArguments(tool: AnyTool): Record<string, unknown> {
  const formats = tool.input.formats as readonly string[];
  const input = formats.includes('csv')
    ? fileObject('datos.csv', CSV)
    : formats.includes('json')
      ? fileObject('datos.json', '[{"id":"001","importe":10.5}]')
      : formats.includes('xml')
        ? fileObject('datos.xml', '<datos><fila><id>001</id></fila><fila><id>002</id></fila></datos>')
        : formats.includes('html')
          ? fileObject('tabla.html', '<table><tr><th>id</th></tr><tr><td>001</td></tr></table>')
          : formats.includes('md')
            ? fileObject('datos.md', '| id | importe |\n| --- | --- |\n| 001 | 10.5 |\n')
            : formats.includes('sql')
              ? fileObject('datos.sql', "CREATE TABLE t (id TEXT);\nINSERT INTO t VALUES ('001');")
              : formats.includes('vcf')
                ? fileObject('datos.vcf', 'BEGIN:VCARD\r\nFN:Ana\r\nEND:VCARD\r\n')
                : formats.includes('xlsx')
                  ? fixture('dos-hojas.xlsx')
                  : fixture(formats.includes('xls') ? 'ventas.xls' : 'ventas.ods');
  const files = tool.input.kind === 'files' ? { files: [input, fileObject('mas.csv', CSV)] } : { file: input };
  const more = Object.fromEntries((tool.input.more ?? []).map((m) => [m.field, fileObject('otra.csv', CSV)]));
  return { ...files, ...more, ...(REQUIRED[tool.id] ?? {}) };
}

test('mcp: the SDK client validates structuredContent of a success and of an error against every tool outputSchema', async () => {
  const client = await connect();
  await client.listTools(); // the client keeps each tool's outputSchema and validates every later result against it
  for (const tool of listTools()) {
    const ok = await client.callTool({ name: tool.id, arguments: goodArguments(tool) });
    assert.notEqual(ok.isError, true, `${tool.id}: ${JSON.stringify(ok.structuredContent)}`);
    assert.equal((ok.structuredContent as { ok: boolean }).ok, true, tool.id);
    const bad = await client.callTool({ name: tool.id, arguments: { ...goodArguments(tool), 'no-such-option': 1 } });
    assert.equal(bad.isError, true, tool.id);
    assert.deepEqual(bad.structuredContent, { ok: false, error: 'unknown_option', message: (bad.structuredContent as { message: string }).message, option: 'no-such-option' }, tool.id);
  }
  await client.close();
});

test('mcp: the SDK client does refuse a structuredContent its outputSchema does not admit (the check above is live)', async () => {
  const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
  const { InMemoryTransport } = await import('@modelcontextprotocol/sdk/inMemory.js');
  const { CallToolRequestSchema, ListToolsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const server = new Server({ name: 'bad', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'x', inputSchema: { type: 'object' }, outputSchema: OUTPUT_SCHEMA as never }] }));
  server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [], structuredContent: { ok: true } }));
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'contract-test', version: '1.0.0' });
  try {
    await Promise.all([server.connect(a), client.connect(b)]);
    await client.listTools();
    await assert.rejects(client.callTool({ name: 'x', arguments: {} }), /structured content does not match/i);
  } finally {
    await client.close();
    await server.close();
  }
});

const names = (tools: { name: string }[]) => tools.map((t) => t.name);
const ids = (pick: (tool: AnyTool) => boolean) => listTools().filter(pick).map((t) => t.id);

test('mcp: ?toolsets= and ?tools= list exactly the chosen tools, in catalogue order, each once', async () => {
  const cases: Array<[string, string[]]> = [
    ['?toolsets=convert', ids((t) => t.category === 'convert')],
    ['?toolsets=merge-split&lang=en', ids((t) => t.category === 'merge-split')],
    ['?toolsets=convert,merge-split', ids(() => true)],
    ['?tools=csv-to-excel,excel-to-csv', ['excel-to-csv', 'csv-to-excel']],
    ['?tools=excel-to-csv&tools=excel-to-csv, split-rows', ['split-rows', 'excel-to-csv']],
    ['?toolsets=merge-split&tools=excel-to-xml,split-rows', ids((t) => t.category === 'merge-split' || t.id === 'excel-to-xml')],
  ];
  for (const [query, expected] of cases) {
    const client = await connect(query);
    try {
      assert.deepEqual(names((await client.listTools()).tools), expected, query);
    } finally {
      await client.close();
    }
  }
});

test('mcp: an unknown toolset or tool in the URL is a JSON-RPC error at initialize and tools/list, naming it and the valid names', async () => {
  const cases: Array<[string, RegExp]> = [
    ['?toolsets=convertir', /Conjunto de herramientas desconocido.*"convertir".*merge-split, convert/],
    ['?toolsets=convert,nope&lang=en', /Unknown toolset.*"nope".*Toolsets: merge-split, convert/],
    ['?tools=excel-to-cvs&lang=en', /Unknown tool.*"excel-to-cvs".*Tools: merge-stack, .*excel-to-xml/],
    ['?tools=&lang=en', /names no tool/],
    ['?toolsets=,&lang=en', /names no toolset/],
    ['?tools=convert&lang=en', /Unknown tool.*"convert"/],
  ];
  for (const [query, message] of cases) {
    const error = await connect(query).then(
      async (client) => {
        await client.close();
        return undefined;
      },
      (err: unknown) => err,
    );
    assert.ok(error instanceof McpError, `${query}: connect must fail`);
    assert.equal(error.code, -32602, query);
    assert.match(error.message, message, query);
  }
  const list = await rpc('?tools=nope', { jsonrpc: '2.0', id: 7, method: 'tools/list' });
  assert.equal(list.status, 200);
  assert.deepEqual([list.json.id, list.json.error?.code, list.json.result], [7, -32602, undefined]);
  assert.match(list.json.error.message, /"nope"/);
  const call = await rpc('?tools=nope', { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'split-rows', arguments: {} } });
  assert.deepEqual([call.json.id, call.json.error?.code], [8, -32602]);
});

test('mcp: a call to a tool left out of the URL selection is refused without a run', async () => {
  const client = await connect('?toolsets=convert&lang=en');
  try {
    const res = await client.callTool({ name: 'split-rows', arguments: { file: fileObject('datos.csv', CSV), 'rows-per-file': 2 } });
    assert.equal(res.isError, true);
    const body = res.structuredContent as { error: string; message: string; option: null };
    assert.deepEqual([body.error, body.option], ['unknown_tool', null]);
    assert.match(body.message, /"split-rows" is not among the tools this connection chose \(toolsets=convert\)/);
    const unknown = await client.callTool({ name: 'no-such-tool', arguments: {} });
    assert.match((unknown.structuredContent as { message: string }).message, /does not exist/);
    const inside = await client.callTool({ name: 'csv-to-excel', arguments: { file: fileObject('datos.csv', CSV) } });
    assert.notEqual(inside.isError, true);
  } finally {
    await client.close();
  }
});

async function rpc(query: string, body: unknown): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(`${srv.url}/mcp${query}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined, headers: res.headers };
}

const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'split-rows', arguments: { file: fileObject('datos.csv', CSV), 'rows-per-file': 0 } } });

test(`mcp: a batch holds at most ${MAX_BATCH_MESSAGES} messages and one tools/call; beyond, it is refused whole before anything runs`, async () => {
  const within = await rpc('', Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => list(i + 1)));
  assert.equal(within.status, 200);
  assert.equal(within.json.length, MAX_BATCH_MESSAGES);
  assert.ok(within.json.every((m: { result: { tools: unknown[] } }) => m.result.tools.length === listTools().length));

  const over = await rpc('?lang=en', Array.from({ length: 100 }, (_, i) => list(i + 1)));
  assert.equal(over.status, 400);
  assert.deepEqual([over.json.jsonrpc, over.json.id, over.json.error.code], ['2.0', null, -32600]);
  assert.match(over.json.error.message, new RegExp(`at most ${MAX_BATCH_MESSAGES} messages, and this one holds 100`));

  const one = await rpc('', [call(1), list(2)]);
  assert.equal(one.status, 200);
  const remaining = Number(one.headers.get('ratelimit-remaining'));
  const two = await rpc('', [call(1), call(2)]);
  assert.equal(two.status, 400);
  assert.equal(two.json.error.code, -32600);
  assert.match(two.json.error.message, /como máximo 1 tools\/call y esta tiene 2; no se ha ejecutado nada/);
  const after = await rpc('', call(3));
  assert.equal(Number(after.headers.get('ratelimit-remaining')), remaining - 1, 'the refused batch ran no call and used no quota');
});

// merge-by-key's second input, `lookup-file`, through every door: JSON and multipart over REST (through the
// job processes, so the hand-off carries it), MCP over HTTP, the command line (--lookup-file) and MCP over
// stdio (a path), and what the catalogue, OpenAPI and llms.txt say of it. Errors name the field (tools.md §2.2).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fileObject, formOf, postForm, postRun, startServer, type TestServer } from '../helpers/http.ts';
import { BIN, personEnv, runCli } from '../cli/cli.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

let srv: TestServer;
before(async () => {
  srv = await startServer();
});
after(() => srv.close());

const MAIN = 'Pedido,Cliente\nP1,7\nP2,8\n';
const LOOKUP = 'Cliente,Nombre\n8,Bea\n7,Ana\n';
const RESULT = '\uFEFFPedido,Cliente,Nombre\r\nP1,7,Ana\r\nP2,8,Bea\r\n';
const text = (b64: string) => Buffer.from(b64, 'base64').toString('utf8');

async function expectError(res: Response, status: number, code: string, option: string | null) {
  const body: Json = await res.json();
  assert.deepEqual([res.status, body.error, body.option], [status, code, option], JSON.stringify(body));
}

test('lookup-file over JSON: the join, through a job process; missing, wrong extension and unreadable name lookup-file', async () => {
  const ok = await postRun(srv.url, 'merge-by-key', { file: fileObject('p.csv', MAIN), 'lookup-file': fileObject('c.csv', LOOKUP), key: 'Cliente' });
  const body: Json = await ok.json();
  assert.equal(ok.status, 200, JSON.stringify(body));
  assert.equal(body.files[0].name, 'p-combinado.csv');
  assert.equal(text(body.files[0].contentBase64), RESULT);
  await expectError(await postRun(srv.url, 'merge-by-key', { file: fileObject('p.csv', MAIN), key: 'Cliente' }), 400, 'missing_file', 'lookup-file');
  await expectError(await postRun(srv.url, 'merge-by-key', { file: fileObject('p.csv', MAIN), 'lookup-file': fileObject('c.pdf', LOOKUP), key: 'Cliente' }), 400, 'unsupported_format', 'lookup-file');
  await expectError(await postRun(srv.url, 'merge-by-key', { file: fileObject('p.csv', MAIN), 'lookup-file': fileObject('c.xlsx', 'not a zip'), key: 'Cliente' }), 400, 'invalid_file', 'lookup-file');
  await expectError(await postRun(srv.url, 'merge-by-key', { file: fileObject('p.csv', MAIN), 'lookup-file': 'c.csv', key: 'Cliente' }), 400, 'invalid_option', 'lookup-file');
  // Another tool has no such field.
  await expectError(await postRun(srv.url, 'split-rows', { file: fileObject('p.csv', MAIN), 'lookup-file': fileObject('c.csv', LOOKUP) }), 400, 'unknown_option', 'lookup-file');
});

test('lookup-file over multipart: its own part; missing and unknown to another tool', async () => {
  const ok = await postForm(srv.url, 'merge-by-key', formOf([{ field: 'file', name: 'p.csv', content: MAIN }, { field: 'lookup-file', name: 'c.csv', content: LOOKUP }], { key: 'Cliente' }), { query: 'download=true' });
  assert.equal(ok.status, 200);
  assert.equal(Buffer.from(await ok.arrayBuffer()).toString('utf8'), RESULT);
  await expectError(await postForm(srv.url, 'merge-by-key', formOf([{ field: 'file', name: 'p.csv', content: MAIN }], { key: 'Cliente' })), 400, 'missing_file', 'lookup-file');
  await expectError(await postForm(srv.url, 'merge-by-key', formOf([{ field: 'file', name: 'p.csv', content: MAIN }, { field: 'lookup-file', name: 'c.json', content: '[]' }], { key: 'Cliente' })), 400, 'unsupported_format', 'lookup-file');
  await expectError(await postForm(srv.url, 'split-rows', formOf([{ field: 'file', name: 'p.csv', content: MAIN }, { field: 'lookup-file', name: 'c.csv', content: LOOKUP }])), 400, 'unknown_option', 'lookup-file');
});

test('lookup-file in the catalogue, OpenAPI (a binary part) and llms.txt (the input line), and MCP over HTTP', async () => {
  const entry: Json = await (await fetch(`${srv.url}/api/v1/tools/merge-by-key?lang=en`)).json();
  assert.deepEqual(entry.input.more, [{ field: 'lookup-file', formats: ['.xlsx', '.xls', '.csv'] }]);
  assert.deepEqual(entry.options.required.slice(0, 2), ['file', 'lookup-file']);
  const openapi: Json = await (await fetch(`${srv.url}/api/v1/openapi.json`)).json();
  const op = openapi.paths['/api/v1/tools/merge-by-key/run'].post;
  const form = op.requestBody.content['multipart/form-data'];
  assert.equal(form.schema.properties['lookup-file'].format, 'binary');
  assert.ok(form.encoding['lookup-file']);
  const llms = await (await fetch(`${srv.url}/llms.txt`)).text();
  const section = llms.slice(llms.indexOf('`merge-by-key`'));
  assert.match(section.slice(0, section.indexOf('###', 5)), /`lookup-file` \(\.xlsx, \.xls, \.csv\)/);

  const client = new Client({ name: 'lookup-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/mcp`)));
  try {
    const { tools } = await client.listTools();
    const listed = tools.find((t) => t.name === 'merge-by-key')!;
    const props = listed.inputSchema.properties as Json;
    assert.deepEqual(props['lookup-file'].required, ['name', 'contentBase64']);
    assert.ok((listed.inputSchema.required as string[]).includes('lookup-file'));
    const res = await client.callTool({ name: 'merge-by-key', arguments: { file: fileObject('p.csv', MAIN), 'lookup-file': fileObject('c.csv', LOOKUP), key: 'Cliente' } });
    const sc = res.structuredContent as Json;
    assert.deepEqual(sc.preview.rows, [['P1', '7', 'Ana'], ['P2', '8', 'Bea']], JSON.stringify(sc).slice(0, 500));
    const missing = await client.callTool({ name: 'merge-by-key', arguments: { file: fileObject('p.csv', MAIN), key: 'Cliente' } });
    assert.equal(missing.isError, true);
    assert.equal((missing.structuredContent as Json).error.code ?? (missing.structuredContent as Json).error, 'missing_file');
  } finally {
    await client.close();
  }
});

test('lookup-file on the command line (--lookup-file) and over MCP stdio (a path)', { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'st-lookup-'));
  try {
    writeFileSync(join(dir, 'p.csv'), MAIN);
    writeFileSync(join(dir, 'c.csv'), LOOKUP);
    const run = await runCli(['merge-by-key', 'p.csv', '--lookup-file', 'c.csv', '--key', 'Cliente'], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(join(dir, 'p-combinado.csv'), 'utf8'), RESULT);
    const missing = await runCli(['merge-by-key', 'p.csv', '--key', 'Cliente'], { cwd: dir });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /lookup-file.*\(missing_file\)/);
    const help = await runCli(['merge-by-key', '--help'], { cwd: dir });
    assert.match(help.stdout.toString(), /--lookup-file <ruta>/);

    const client = new Client({ name: 'lookup-stdio', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--stdio'], cwd: dir, env: personEnv() as Record<string, string>, stderr: 'ignore' }));
    try {
      const res = await client.callTool({ name: 'merge-by-key', arguments: { file: 'p.csv', 'lookup-file': 'c.csv', key: 'Cliente' } });
      const sc = res.structuredContent as Json;
      assert.notEqual(res.isError, true, JSON.stringify(sc));
      assert.deepEqual(sc.preview.rows, [['P1', '7', 'Ana'], ['P2', '8', 'Bea']]);
    } finally {
      await client.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// `spreadsheet-tools mcp --stdio` with the SDK's own client over StdioClientTransport, as an assistant that
// launches local servers uses it: the tool list, calls with a path and with base64, and paths that lead out
// of the working folder (directly or through a symbolic link) refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { listTools } from '../../tools/core/registry.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';
import { BIN, personEnv } from './cli.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;

type CallResult = { isError?: boolean; content: Array<{ type: string; text?: string; resource?: { uri: string; blob?: string } }>; structuredContent?: Record<string, unknown> };

test('cli mcp --stdio: lists every tool with paths allowed, runs with a path or base64, refuses paths outside the folder', { timeout: 300_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'st-mcp-'));
  const work = join(root, 'work');
  mkdirSync(join(work, 'sub'), { recursive: true });
  copyFileSync(join(FIXTURES, 'ventas.csv'), join(work, 'sub', 'ventas.csv'));
  writeFileSync(join(root, 'secret.csv'), 'clave\nno-debe-salir\n');
  symlinkSync(join(root, 'secret.csv'), join(work, 'enlace.csv'));
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--stdio', '--language', 'en'], cwd: work, env: personEnv() as Record<string, string>, stderr: 'pipe' });
  const client = new Client({ name: 'test', version: '1.0.0' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((x) => x.name), listTools().map((x) => x.id), 'every tool of the registry');
    const csvToExcel = tools.find((x) => x.name === 'csv-to-excel')!;
    const fileSchema = (csvToExcel.inputSchema.properties as Record<string, { anyOf?: Array<{ type?: string; description?: string }> }>).file;
    assert.equal(fileSchema.anyOf?.[0].type, 'string', 'a path is one way to give the file');
    assert.match(fileSchema.anyOf?.[0].description ?? '', /working folder/);
    const merge = tools.find((x) => x.name === 'merge-stack')!;
    assert.ok(JSON.stringify(merge.inputSchema).includes('"anyOf"'), 'and each of several files');

    const byPath = (await client.callTool({ name: 'csv-to-excel', arguments: { file: 'sub/ventas.csv', 'detect-types': false } })) as CallResult;
    assert.equal(byPath.isError, undefined, JSON.stringify(byPath.content[0]));
    const resource = byPath.content.find((c) => c.type === 'resource')!.resource!;
    assert.match(resource.uri, /ventas\.xlsx$/);
    const [sheet] = await readXlsx(Buffer.from(resource.blob!, 'base64'));
    assert.equal(sheet.rows[1][2], '000789');

    const mixed = (await client.callTool({
      name: 'merge-stack',
      arguments: { files: [join(work, 'sub', 'ventas.csv'), { name: 'otro.csv', contentBase64: Buffer.from(readFileSync(join(FIXTURES, 'ventas.csv'))).toString('base64') }] },
    })) as CallResult;
    assert.equal(mixed.isError, undefined, JSON.stringify(mixed.content[0]));
    assert.equal((mixed.structuredContent as { preview: { totalRows: number } }).preview.totalRows, 4, 'an absolute path inside the folder and a base64 file, stacked');

    for (const outside of ['../secret.csv', join(root, 'secret.csv'), 'enlace.csv']) {
      const refused = (await client.callTool({ name: 'csv-to-excel', arguments: { file: outside } })) as CallResult;
      assert.equal(refused.isError, true, outside);
      assert.deepEqual([refused.structuredContent?.error, refused.structuredContent?.option], ['invalid_option', 'file'], outside);
      assert.match(String(refused.structuredContent?.message), /outside the working folder/);
      assert.ok(!JSON.stringify(refused).includes('no-debe-salir'), `${outside}: nothing of the file is read`);
    }
    const missing = (await client.callTool({ name: 'csv-to-excel', arguments: { file: 'nada.csv' } })) as CallResult;
    assert.match(String(missing.structuredContent?.message), /There is no file at "nada\.csv"/);
  } finally {
    await client.close();
    rmSync(root, { recursive: true, force: true });
  }
});

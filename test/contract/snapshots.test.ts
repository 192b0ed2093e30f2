// Schema snapshots (toolsnaps): every interface change shows up in review. UPDATE_SNAPSHOTS=1 rewrites
// them; a missing snapshot is written locally but fails in CI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { openApiDocument } from '../../bridge/openapi.ts';
import { LANGS } from '../../locales/index.ts';
import { mcpToolList } from '../../mcp/tool-list.ts';
import { parseConfig } from '../../tools/core/config.ts';
import { listTools } from '../../tools/core/registry.ts';
import { jsonSchemaOf } from '../../tools/core/schema.ts';

const DIR = new URL('../snapshots/', import.meta.url);

function matchesSnapshot(name: string, value: unknown) {
  const file = new URL(name, DIR);
  const text = JSON.stringify(value, null, 2) + '\n';
  if (process.env.UPDATE_SNAPSHOTS || (!existsSync(file) && !process.env.CI)) {
    mkdirSync(new URL('.', file), { recursive: true });
    writeFileSync(file, text);
    return;
  }
  assert.ok(existsSync(file), `missing snapshot ${name}: run UPDATE_SNAPSHOTS=1 npm test and commit it`);
  assert.equal(text, readFileSync(file, 'utf8'), `${name} changed: if intended, run UPDATE_SNAPSHOTS=1 npm test`);
}

for (const tool of listTools()) {
  test(`snapshot: request schema of ${tool.id}`, () => {
    matchesSnapshot(`schemas/${tool.id}.json`, jsonSchemaOf(tool, 'en'));
  });
}

test('snapshot: openapi.json (en, default config)', () => {
  matchesSnapshot('openapi.json', openApiDocument(parseConfig({ MAX_JOBS: '2' }), 'en'));
});

for (const lang of LANGS) {
  test(`snapshot: MCP tools/list (${lang}), the view every agent pays for on every turn`, () => {
    matchesSnapshot(`mcp/tools-list.${lang}.json`, mcpToolList(lang));
  });
}

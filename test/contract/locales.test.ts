import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allKeys, hasText, LANGS } from '../../locales/index.ts';
import { CATEGORIES } from '../../tools/core/define.ts';
import { ERROR_CODES } from '../../tools/core/errors.ts';
import { listTools } from '../../tools/core/registry.ts';
import { requestSchema } from '../../tools/core/schema.ts';
import { shortTextKey } from '../../mcp/tool-list.ts';

test('locales: es and en have exactly the same keys', () => {
  assert.deepEqual(allKeys('es'), allKeys('en'));
});

test('locales: every tool, option, category and error code has its texts in both languages', () => {
  const missing: string[] = [];
  const need = (key: string) => {
    for (const lang of LANGS) if (!hasText(lang, key)) missing.push(`${lang}:${key}`);
  };
  for (const tool of listTools()) {
    need(`tools.${tool.id}.title`);
    need(`tools.${tool.id}.description`);
    need(`tools.${tool.id}.summary`);
    for (const option of Object.keys(requestSchema(tool).entries)) {
      need(['file', 'files', 'language'].includes(option) ? `common.options.${option}` : `tools.${tool.id}.options.${option}`);
      const short = shortTextKey(tool, option);
      if (short) need(short);
    }
  }
  for (const c of CATEGORIES) need(`categories.${c}`);
  for (const code of ERROR_CODES) need(`errors.${code}`);
  for (const name of ['zip', 'file', 'part']) need(`names.${name}`);
  assert.deepEqual(missing, []);
});

test('locales: no tool text is left over from a removed tool or option', () => {
  const ids = new Set(listTools().map((t) => t.id));
  const stale = allKeys('es').filter((k) => k.startsWith('tools.') && !ids.has(k.split('.')[1]));
  assert.deepEqual(stale, []);
  const options = new Set(
    listTools().flatMap((tool) => [...Object.keys(tool.options.entries), ...(tool.input.more ?? []).map((m) => m.field)].flatMap((o) => [`tools.${tool.id}.options.${o}`, `tools.${tool.id}.short.${o}`])),
  );
  const staleOptions = allKeys('es').filter((k) => /^tools\.[^.]+\.(options|short)\./.test(k) && !options.has(k));
  assert.deepEqual(staleOptions, []);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { renderReadme } from '../../scripts/readme-tables.ts';

test('README: generated tables (tools, configuration, errors) are up to date — run `npm run docs`', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  assert.equal(readme, renderReadme(readme));
  assert.match(readme, /npm start/);
  assert.match(readme, /npm test/);
});

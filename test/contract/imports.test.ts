// The dependency rules of design §2, by a cheap scan of import specifiers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;

function filesUnder(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(ROOT, path)).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const src = readFileSync(join(ROOT, file), 'utf8');
  return [...src.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm), ...src.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]);
}

function resolved(file: string, spec: string): string {
  return spec.startsWith('.') ? relative(ROOT, join(ROOT, file, '..', spec)) : spec;
}

test('imports: tools/core uses no HTTP framework or MCP SDK', () => {
  const bad = filesUnder('tools/core').flatMap((f) => importsOf(f).filter((s) => /^(express|busboy|@modelcontextprotocol\/)/.test(s)).map((s) => `${f} → ${s}`));
  assert.deepEqual(bad, []);
});

test('imports: tool files import only tools/core, the public entry of tools/formats, locales and libraries', () => {
  const bad = [...filesUnder('tools/merge-split'), ...filesUnder('tools/convert')].flatMap((f) =>
    importsOf(f)
      .filter((s) => s.startsWith('.'))
      .map((s) => resolved(f, s))
      .filter((p) => !/^(tools\/core\/|tools\/formats\/index\.ts$|locales\/)/.test(p))
      .map((p) => `${f} → ${p}`),
  );
  assert.deepEqual(bad, []);
});

test('imports: tools/formats imports nothing from the kernel, the tools or locales', () => {
  const bad = filesUnder('tools/formats').flatMap((f) =>
    importsOf(f)
      .filter((s) => s.startsWith('.'))
      .map((s) => resolved(f, s))
      .filter((p) => !p.startsWith('tools/formats/'))
      .map((p) => `${f} → ${p}`),
  );
  assert.deepEqual(bad, []);
});

test('imports: the kernel imports the format library only through its public entry', () => {
  const bad = filesUnder('tools/core').flatMap((f) =>
    importsOf(f)
      .filter((s) => s.startsWith('.'))
      .map((s) => resolved(f, s))
      .filter((p) => p.startsWith('tools/formats/') && p !== 'tools/formats/index.ts')
      .map((p) => `${f} → ${p}`),
  );
  assert.deepEqual(bad, []);
});

test('imports: bridge never imports mcp; mcp imports bridge only in app.ts', () => {
  const bad = [
    ...filesUnder('bridge').flatMap((f) => importsOf(f).map((s) => resolved(f, s)).filter((p) => p.startsWith('mcp/')).map((p) => `${f} → ${p}`)),
    ...filesUnder('mcp')
      .filter((f) => f !== 'mcp/app.ts')
      .flatMap((f) => importsOf(f).map((s) => resolved(f, s)).filter((p) => p.startsWith('bridge/')).map((p) => `${f} → ${p}`)),
  ];
  assert.deepEqual(bad, []);
});

test('imports: every tool file is named after its id and listed in tools/index.ts', async () => {
  const { tools } = await import('../../tools/index.ts');
  const files = [...filesUnder('tools/merge-split'), ...filesUnder('tools/convert')].map((f) => f.split('/').pop()!.replace(/\.ts$/, '')).sort();
  assert.deepEqual(files, tools.map((t) => t.id).sort());
});

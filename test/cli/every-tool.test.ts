// Every tool of the registry, run once from the command line on a fixture of a format it accepts, and its
// --help. The registry is iterated: a tool added later is covered at once, or the test names what it needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogueEntry } from '../../bridge/catalogue.ts';
import type { AnyTool } from '../../tools/core/define.ts';
import { extensionOf } from '../../tools/core/files.ts';
import { listTools } from '../../tools/core/registry.ts';
import { pooled, runCli } from './cli.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;

/** A committed fixture per input format, or a way to make one in the run's folder. */
const INPUTS: Record<string, (dir: string, name: string) => void> = {
  xlsx: (dir, name) => copyFileSync(join(FIXTURES, 'ventas.xlsx'), join(dir, name)),
  xls: (dir, name) => copyFileSync(join(FIXTURES, 'ventas.xls'), join(dir, name)),
  ods: (dir, name) => copyFileSync(join(FIXTURES, 'ventas.ods'), join(dir, name)),
  csv: (dir, name) => copyFileSync(join(FIXTURES, 'ventas.csv'), join(dir, name)),
  json: (dir, name) => writeFileSync(join(dir, name), JSON.stringify([{ Cliente: 'Ana', Importe: 12.5 }, { Cliente: 'Íñigo', Importe: 3 }])),
  xml: (dir, name) => writeFileSync(join(dir, name), '<datos><fila><Cliente>Ana</Cliente><Importe>12.5</Importe></fila><fila><Cliente>Íñigo</Cliente><Importe>3</Importe></fila></datos>'),
  html: (dir, name) => copyFileSync(join(FIXTURES, 'html/wikipedia.html'), join(dir, name)),
  md: (dir, name) => writeFileSync(join(dir, name), '| Cliente | Importe |\n| --- | ---: |\n| Ana | 12,5 |\n| Íñigo | 3 |\n'),
  vcf: (dir, name) => writeFileSync(join(dir, name), 'BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Ana Muñoz\r\nTEL;TYPE=CELL:600111222\r\nEND:VCARD\r\n'),
  sql: (dir, name) => writeFileSync(join(dir, name), "CREATE TABLE ventas (Cliente VARCHAR(20), Importe DECIMAL(5,1));\nINSERT INTO ventas VALUES ('Ana', 12.5), ('Íñigo', 3);\n"),
};

/** Values for options a tool requires without a default (they must fit the fixtures above). */
const REQUIRED: Record<string, Record<string, string>> = {
  'split-by-column': { column: 'Cliente' },
  'merge-by-key': { key: 'Cliente' },
  'merge-columns': { columns: 'Cliente,Importe' },
  'split-column': { column: 'Cliente' },
  'split-to-sheets': { column: 'Cliente' },
  'extract-sheets': { sheets: '1' },
};

/** Options a tool needs on these fixtures although they have defaults (ventas has no contact titles). */
const WITH: Record<string, string[]> = {
  'excel-to-vcard': ['--full-name', 'Cliente'],
};

/** What a result of each extension must start with, or how it must read. */
function assertReadable(path: string, bytes: Buffer): void {
  const ext = extensionOf(path);
  assert.ok(bytes.length > 0, `${path} is empty`);
  if (['xlsx', 'zip', 'docx', 'ods'].includes(ext)) assert.equal(bytes.subarray(0, 2).toString('latin1'), 'PK', path);
  else if (ext === 'pdf') assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-', path);
  else if (ext === 'xls') assert.equal(bytes.subarray(0, 4).toString('hex'), 'd0cf11e0', path);
  else if (ext === 'json') JSON.parse(bytes.toString('utf8'));
  else new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** The command line that runs `tool` on fixtures made in `dir`; fails loudly when the tool needs what is not here. */
function commandFor(tool: AnyTool, dir: string): string[] {
  const format = tool.input.formats.find((f) => INPUTS[f]);
  assert.ok(format, `${tool.id}: no command-line fixture for any of its formats (${tool.input.formats.join(', ')}); add one to INPUTS`);
  const count = tool.input.kind === 'files' ? tool.input.min : 1;
  const names = Array.from({ length: count }, (_, i) => `${tool.id}-${i + 1}.${format}`);
  for (const n of names) INPUTS[format](dir, n);
  const entry = catalogueEntry(tool, 'es');
  const options: string[] = [];
  // A further file (merge-by-key's lookup-file): the same fixture, given with its flag.
  for (const { field } of tool.input.more ?? []) {
    INPUTS[format](dir, `${tool.id}-${field}.${format}`);
    options.push(`--${field}`, `${tool.id}-${field}.${format}`);
  }
  for (const name of entry.options.required ?? []) {
    if (name === tool.input.kind || tool.input.more?.some((m) => m.field === name) || entry.options.properties?.[name]?.default !== undefined) continue;
    const value = REQUIRED[tool.id]?.[name];
    assert.ok(value !== undefined, `${tool.id}: the required option ${name} has no value for this test; add one to REQUIRED`);
    options.push(`--${name}`, value);
  }
  options.push(...(WITH[tool.id] ?? []));
  return [tool.id, ...names, ...options, '-o', `${tool.id}-out/`, '--json'];
}

test('cli: every tool of the registry runs once on a fixture, its results written where --json says', { timeout: 900_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'st-cli-every-'));
  try {
    const tools = listTools();
    assert.ok(tools.length >= 14);
    const runs = await pooled(tools.map((tool) => () => runCli(commandFor(tool, dir), { cwd: dir }).then((r) => ({ tool, r }))));
    for (const { tool, r } of runs) {
      assert.equal(r.code, 0, `${tool.id}: exit ${r.code}: ${r.stderr}`);
      const summary = JSON.parse(r.stdout.toString('utf8'));
      assert.equal(summary.ok, true);
      assert.equal(summary.tool, tool.id);
      assert.ok(summary.files.length >= 1, `${tool.id} wrote no file`);
      for (const f of summary.files) {
        const bytes = readFileSync(join(dir, f.path));
        assert.equal(statSync(join(dir, f.path)).size, f.size, `${tool.id}: ${f.path}`);
        assertReadable(f.path, bytes);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cli: --help of every tool is generated from its catalogue entry, in the language of the environment', { timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'st-cli-help-'));
  try {
    const tools = listTools();
    const helps = await pooled(tools.map((tool, i) => () => runCli([tool.id, '--help'], { cwd: dir, env: { LANG: i % 2 ? 'en_GB.UTF-8' : 'es_ES.UTF-8' } }).then((r) => ({ tool, r, lang: i % 2 ? 'en' : 'es' }) as const)));
    for (const { tool, r, lang } of helps) {
      assert.equal(r.code, 0, `${tool.id}: ${r.stderr}`);
      const text = r.stdout.toString('utf8');
      const entry = catalogueEntry(tool, lang);
      assert.ok(text.startsWith(`${tool.id} — ${entry.title}\n`), `${tool.id} (${lang}): title line`);
      for (const format of entry.input.formats) assert.ok(text.includes(format), `${tool.id}: format ${format}`);
      for (const name of Object.keys(entry.options.properties ?? {})) {
        if (name !== entry.input.field) assert.ok(text.includes(`--${name} <`), `${tool.id}: option --${name}`);
      }
      assert.ok(text.includes(lang === 'en' ? 'Exit codes:' : 'Códigos de salida:'), `${tool.id}: exit codes in ${lang}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

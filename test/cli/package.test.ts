// `npx spreadsheet-tools` from a clone (the package's own bin) and from the tarball `npm pack` makes,
// installed into an empty project as a user installs it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readXlsx } from '../helpers/read-xlsx.ts';
import { runCli } from './cli.ts';

const REPO = new URL('../../', import.meta.url).pathname;
const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const version = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version as string;

test('package: npx spreadsheet-tools works from a clone', { timeout: 300_000 }, async () => {
  const r = await runCli(['--no-install', 'spreadsheet-tools', '--version'], { cwd: REPO, command: [NPX] });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.toString('utf8').trim(), version);
});

test('package: the tarball of npm pack holds the command and no tests, and runs a tool once installed', { timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'st-pack-'));
  try {
    const packed = await runCli(['pack', '--json', '--pack-destination', dir], { cwd: REPO, command: [NPM] });
    assert.equal(packed.code, 0, packed.stderr);
    const [info] = JSON.parse(packed.stdout.toString('utf8')) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const paths = info.files.map((f) => f.path);
    for (const needed of ['cli/bin.mjs', 'cli/main.ts', 'web/public/index.html', 'locales/es.json', 'tools/core/job-process.ts', 'mcp/main.ts']) assert.ok(paths.includes(needed), needed);
    assert.deepEqual(paths.filter((p) => /^(test|bench|node_modules|data)\//.test(p)), [], 'no tests, benchmarks or data in the package');

    const project = join(dir, 'project');
    mkdirSync(project);
    // Dependencies come from npm's cache when they are there (CI has just run npm ci).
    const installed = await runCli(['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, info.filename)], { cwd: project, command: [NPM] });
    assert.equal(installed.code, 0, installed.stderr);
    copyFileSync(join(FIXTURES, 'ventas.csv'), join(project, 'ventas.csv'));
    const run = await runCli(['--no-install', 'spreadsheet-tools', 'csv-to-excel', 'ventas.csv', '--language', 'en'], { cwd: project, command: [NPX] });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /^ventas\.xlsx \(/m);
    assert.ok(readdirSync(project).includes('ventas.xlsx'));
    const [sheet] = await readXlsx(readFileSync(join(project, 'ventas.xlsx')));
    assert.equal(sheet.rows[1][1], 'Íñigo');
    const help = await runCli(['--no-install', 'spreadsheet-tools', '--help'], { cwd: project, command: [NPX], env: { LANG: 'en_US.UTF-8' } });
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout.toString('utf8'), /csv-to-excel\s+CSV to Excel/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The command line as a person uses it: mistakes and their exit codes and messages, where results go
// (-o as a file, a folder, a ZIP or standard output; never over an existing file without --force), the
// language, and `serve`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandLine } from '../helpers/child-pids.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';
import { BIN, personEnv, runCli } from './cli.ts';
import { SERVER_V8_FLAGS } from '../../mcp/v8-flags.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'st-cli-'));
  copyFileSync(join(FIXTURES, 'ventas.csv'), join(dir, 'ventas.csv'));
  return dir;
}

test('cli: mistakes on the command line exit 2 with a message naming what to fix, and write nothing', { timeout: 300_000 }, async () => {
  const dir = folder();
  try {
    const cases: Array<[string[], RegExp]> = [
      [['csv-to-excel', 'ventas.csv', '--bogus', '1'], /La opción --bogus no existe para csv-to-excel.*csv-to-excel --help/],
      [['csv-to-excel', 'falta.csv'], /No se puede leer «falta\.csv»: no existe/],
      [['csv-to-excel'], /Falta el archivo de entrada/],
      [['csv-to-excel', 'ventas.csv', '--delimiter', 'weird'], /«delimiter» no es válida.*"weird".*\(invalid_option\)/],
      [['csv-to-excel', 'ventas.csv', '--sheet-name'], /Falta el valor de --sheet-name/],
      [['csv-to-excel', 'ventas.csv', '--no-sheet-name'], /--no-sheet-name solo vale para opciones true\/false/],
      [['merge-stack', 'ventas.csv'], /\(too_few_files\)/],
      [['no-such-tool', 'ventas.csv'], /La herramienta «no-such-tool» no existe/],
      [['mcp'], /mcp --stdio/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, { cwd: dir });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
      assert.equal(r.stdout.length, 0);
    }
    assert.deepEqual(readdirSync(dir), ['ventas.csv'], 'nothing written');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cli: input the tool refuses exits 3 (unsupported format, damaged file), with the service\'s code', { timeout: 300_000 }, async () => {
  const dir = folder();
  try {
    writeFileSync(join(dir, 'roto.xlsx'), 'esto no es un xlsx');
    const wrong = await runCli(['excel-to-csv', 'ventas.csv'], { cwd: dir });
    assert.equal(wrong.code, 3);
    assert.match(wrong.stderr, /\(unsupported_format\)/);
    const broken = await runCli(['excel-to-csv', 'roto.xlsx', '--json'], { cwd: dir });
    assert.equal(broken.code, 3);
    const body = JSON.parse(broken.stdout.toString('utf8'));
    assert.deepEqual([body.ok, body.error], [false, 'invalid_file'], 'with --json the Error body goes to standard output');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cli: results go to the current folder, never over a file without --force; -o names a file, a folder, a ZIP or stdout', { timeout: 300_000 }, async () => {
  const dir = folder();
  try {
    const first = await runCli(['csv-to-excel', 'ventas.csv', '--no-detect-types'], { cwd: dir });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /^ventas\.xlsx \(/m, 'says what it wrote');
    assert.match(first.stderr, /^info: «ventas\.csv»/m, 'and the run\'s messages with their level');
    const [sheet] = await readXlsx(readFileSync(join(dir, 'ventas.xlsx')));
    assert.deepEqual(sheet.rows[1].slice(0, 3), ['2024-03-10', 'Íñigo', '000789'], 'an independent reader sees the text cells --no-detect-types asked for');

    writeFileSync(join(dir, 'ventas.xlsx'), 'mine');
    const again = await runCli(['csv-to-excel', 'ventas.csv'], { cwd: dir });
    assert.equal(again.code, 2);
    assert.match(again.stderr, /«.*ventas\.xlsx» ya existe: usa --force/);
    assert.equal(readFileSync(join(dir, 'ventas.xlsx'), 'utf8'), 'mine', 'the existing file is untouched');
    assert.equal((await runCli(['csv-to-excel', 'ventas.csv', '--force'], { cwd: dir })).code, 0);
    assert.notEqual(readFileSync(join(dir, 'ventas.xlsx'), 'utf8'), 'mine');

    const named = await runCli(['excel-to-json', 'ventas.csv', '-o', 'salida/datos.json'], { cwd: dir });
    assert.equal(named.code, 0, named.stderr);
    const json = JSON.parse(readFileSync(join(dir, 'salida', 'datos.json'), 'utf8'));
    assert.equal(json[0].Cliente, 'Íñigo');

    const piped = await runCli(['excel-to-json', 'ventas.csv', '-o', '-'], { cwd: dir });
    assert.equal(piped.code, 0);
    assert.deepEqual(JSON.parse(piped.stdout.toString('utf8')), json, 'the same result on standard output');

    const rows = Array.from({ length: 5 }, (_, i) => `${i},x${i}`).join('\n');
    writeFileSync(join(dir, 'filas.csv'), `n,t\n${rows}\n`);
    const parts = await runCli(['split-rows', 'filas.csv', '--rows-per-file', '2', '--format', 'csv', '-o', 'partes/'], { cwd: dir });
    assert.equal(parts.code, 0, parts.stderr);
    assert.deepEqual(readdirSync(join(dir, 'partes')).sort(), ['parte-001.csv', 'parte-002.csv', 'parte-003.csv']);
    const zipped = await runCli(['split-rows', 'filas.csv', '--rows-per-file', '2', '--format', 'csv', '--language', 'en', '-o', 'all.zip'], { cwd: dir });
    assert.equal(zipped.code, 0, zipped.stderr);
    const names = execFileSync('python3', ['-c', 'import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(" ".join(sorted(z.namelist())))', join(dir, 'all.zip')], { encoding: 'utf8' }).trim();
    assert.equal(names, 'part-001.csv part-002.csv part-003.csv', 'several results in one ZIP, named in the language asked');

    // A result that cannot be written is a failure (1), not the caller's mistake nor the data's.
    const unwritable = await runCli(['excel-to-json', 'ventas.csv', '-o', '/proc/spreadsheet-tools-test/datos.json'], { cwd: dir });
    assert.equal(unwritable.code, 1, unwritable.stderr);
    assert.match(unwritable.stderr, /No se pudo escribir «\/proc\/spreadsheet-tools-test\/datos\.json»/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cli: `serve` starts the service (page, API, health) and stops on SIGTERM', { timeout: 180_000 }, async () => {
  const dir = folder();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { cwd: dir, env: personEnv({ DATA_DIR: join(dir, 'data') }), stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => {
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.on('exit', () => reject(new Error(`serve exited: ${out}`)));
    });
    assert.equal((await fetch(`${url}/health`)).status, 200);
    // The process restarted itself with the server's V8 flags, before the service loaded (mcp/relaunch.ts).
    if (process.platform === 'linux') {
      const line = commandLine(child.pid!);
      for (const flag of SERVER_V8_FLAGS) assert.ok(line.includes(flag), `${flag} in ${line.join(' ')}`);
      assert.deepEqual(line.slice(-4), [BIN, 'serve', '--port', '0']);
    }
    const page = await fetch(`${url}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /playground\.js/);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.equal(existsSync(join(dir, 'data')), false, 'no key file without keys');
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

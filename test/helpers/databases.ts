// Runs SQL scripts in real engines through their own command-line clients (sqlite3 and mariadb/mysql reading
// the script on standard input, `psql -f`) and reads the table back, so that tests check what a database makes
// of a script, not what we think it says.
// PostgreSQL and MariaDB are reached with the throwaway login `.ci/start-databases` creates (sheet_test /
// sheet_test); PG* variables and SQL_TEST_MYSQL_HOST override it. Each load works in its own schema (PostgreSQL),
// database (MariaDB) or file (SQLite), dropped afterwards, so runs never clash. An engine that cannot be reached
// skips its tests locally and fails them when CI is set.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Cell } from '../../tools/formats/model.ts';

export type EngineName = 'sqlite' | 'postgres' | 'mariadb';

export interface Loaded {
  /** Columns as the engine describes them, in table order; `type` as it spells it (`character varying(20)`). */
  columns: { name: string; type: string }[];
  /**
   * Every row in insertion order, values converted by column type into the model's cells: booleans (also
   * MariaDB's TINYINT(1) and SQLite's 1/0) as booleans, DATE/TIMESTAMP/DATETIME as UTC Dates, TIME as a Date
   * on 1899-12-30 (a time of day alone), numbers as numbers, text as text.
   */
  rows: Cell[][];
}

interface Run {
  out: string;
  err: string;
  code: number | null;
}

function run(cmd: string, args: string[], input: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env: { ...process.env, LC_ALL: 'C.UTF-8', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    child.on('error', (e) => resolve({ out, err: err + String(e), code: -1 }));
    child.on('close', (code) => resolve({ out, err, code }));
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

async function ok(cmd: string, args: string[], input: string, env?: Record<string, string>): Promise<string> {
  const r = await run(cmd, args, input, env);
  if (r.code !== 0) throw new Error(`${cmd} failed (${r.code}): ${r.err.trim() || r.out.trim()}`);
  return r.out;
}

let counter = 0;
/** A name no other load (in this process or another) uses. */
const uniqueName = () => `sheet_test_${process.pid}_${Date.now().toString(36)}_${++counter}`;

const dq = (name: string) => `"${name.replaceAll('"', '""')}"`;
const bq = (name: string) => `\`${name.replaceAll('`', '``')}\``;
const sq = (text: string) => `'${text.replaceAll("'", "''")}'`;

interface Driver {
  check(): Promise<void>;
  load(script: string, table: string): Promise<{ columns: [string, string][]; rows: unknown[][] }>;
}

const jsonLines = (out: string) => out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as unknown[]);

const sqlite: Driver = {
  async check() {
    await ok('sqlite3', ['-version'], '');
  },
  async load(script, table) {
    const dir = await mkdtemp(join(tmpdir(), 'sheet-sql-'));
    const db = join(dir, 'test.db');
    try {
      await ok('sqlite3', ['-bail', db], script);
      const cols = jsonLines(await ok('sqlite3', [db], `SELECT json_group_array(json_array(name, type)) FROM pragma_table_info(${sq(table)});\n`))[0] as [string, string][];
      // REAL values as 17 significant digits: SQLite's own text form keeps only 15.
      const exprs = cols.map(([c]) => `CASE WHEN typeof(${dq(c)}) = 'real' THEN json(printf('%!.17g', ${dq(c)})) ELSE ${dq(c)} END`);
      const rows = jsonLines(await ok('sqlite3', [db], `SELECT json_array(${exprs.join(', ')}) FROM ${dq(table)} ORDER BY rowid;\n`));
      return { columns: cols, rows };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

const pgEnv = (extra: Record<string, string> = {}) => ({
  PGHOST: process.env.PGHOST ?? '127.0.0.1',
  PGPORT: process.env.PGPORT ?? '5432',
  PGUSER: process.env.PGUSER ?? 'sheet_test',
  PGPASSWORD: process.env.PGPASSWORD ?? 'sheet_test',
  PGDATABASE: process.env.PGDATABASE ?? 'sheet_test',
  PGCLIENTENCODING: 'UTF8',
  PGCONNECT_TIMEOUT: '5',
  ...extra,
});
const PSQL = ['-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1'];

const postgres: Driver = {
  async check() {
    await ok('psql', [...PSQL, '-c', 'SELECT 1'], '', pgEnv());
  },
  async load(script, table) {
    const schema = uniqueName();
    await ok('psql', PSQL, `CREATE SCHEMA ${dq(schema)};\n`, pgEnv());
    // The script runs unchanged: the schema comes from the session's search_path.
    const env = pgEnv({ PGOPTIONS: `-c search_path=${schema} -c client_min_messages=warning` });
    // `psql -f`, as a person loads a script: a NUL ended its line there, as it does on standard input.
    const dir = await mkdtemp(join(tmpdir(), 'sheet-sql-'));
    try {
      await writeFile(join(dir, 'script.sql'), script);
      await ok('psql', [...PSQL, '-f', join(dir, 'script.sql')], '', env);
      const cols = jsonLines(
        await ok(
          'psql',
          PSQL,
          `SELECT json_agg(json_build_array(attname, format_type(atttypid, atttypmod)) ORDER BY attnum) FROM pg_attribute
           WHERE attrelid = ${sq(`${dq(schema)}.${dq(table)}`)}::regclass AND attnum > 0 AND NOT attisdropped;\n`,
          env,
        ),
      )[0] as [string, string][];
      const rows = jsonLines(await ok('psql', PSQL, `SELECT json_build_array(${cols.map(([c]) => dq(c)).join(', ')}) FROM ${dq(table)} ORDER BY ctid;\n`, env));
      return { columns: cols, rows };
    } finally {
      await rm(dir, { recursive: true, force: true });
      await ok('psql', PSQL, `DROP SCHEMA ${dq(schema)} CASCADE;\n`, pgEnv({ PGOPTIONS: '-c client_min_messages=warning' }));
    }
  },
};

let mysqlClient: string | undefined;
async function mysqlCmd(): Promise<string> {
  if (mysqlClient) return mysqlClient;
  for (const cmd of ['mariadb', 'mysql']) {
    if ((await run(cmd, ['--version'], '')).code === 0) return (mysqlClient = cmd);
  }
  throw new Error('neither the mariadb nor the mysql client is installed');
}
const MYSQL = () => [
  '-u',
  process.env.SQL_TEST_MYSQL_USER ?? 'sheet_test',
  ...(process.env.SQL_TEST_MYSQL_HOST ? ['-h', process.env.SQL_TEST_MYSQL_HOST] : []),
  '--default-character-set=utf8mb4',
  '--connect-timeout=5',
  // Batch, no column names, raw: one JSON text per line, as the server wrote it.
  '-N',
  '-B',
  '-r',
];
const mysqlEnv = () => ({ MYSQL_PWD: process.env.SQL_TEST_MYSQL_PASSWORD ?? 'sheet_test' });

const mariadb: Driver = {
  async check() {
    await ok(await mysqlCmd(), MYSQL(), 'SELECT 1;\n', mysqlEnv());
  },
  async load(script, table) {
    const cmd = await mysqlCmd();
    const db = uniqueName();
    await ok(cmd, MYSQL(), `CREATE DATABASE ${bq(db)};\n`, mysqlEnv());
    try {
      await ok(cmd, [...MYSQL(), db], script, mysqlEnv());
      const cols = jsonLines(
        await ok(
          cmd,
          [...MYSQL(), db],
          `SELECT JSON_ARRAYAGG(JSON_ARRAY(COLUMN_NAME, COLUMN_TYPE) ORDER BY ORDINAL_POSITION) FROM information_schema.COLUMNS
           WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${sq(table)};\n`,
          mysqlEnv(),
        ),
      )[0] as [string, string][];
      // InnoDB without a primary key keeps rows in insertion order (its hidden row id).
      const rows = jsonLines(await ok(cmd, [...MYSQL(), db], `SELECT JSON_ARRAY(${cols.map(([c]) => bq(c)).join(', ')}) FROM ${bq(table)};\n`, mysqlEnv()));
      return { columns: cols, rows };
    } finally {
      await ok(cmd, MYSQL(), `DROP DATABASE ${bq(db)};\n`, mysqlEnv());
    }
  },
};

const DRIVERS: Record<EngineName, Driver> = { sqlite, postgres, mariadb };

const DAY0 = Date.UTC(1899, 11, 30);
const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d):(\d\d)(?:\.(\d+))?)?$/;
const TIME = /^(\d\d):(\d\d):(\d\d)(?:\.(\d+))?$/;
const ms = (frac: string | undefined) => Number(((frac ?? '') + '000').slice(0, 3));

/** A value as the model's cell, given the engine's type of its column. */
function cellOf(v: unknown, type: string): Cell {
  if (v === null) return null;
  const t = type.toLowerCase();
  if (/^(bool|bit|tinyint\(1\))/.test(t)) return v === true || v === 1;
  if (typeof v === 'string' && /^(date|timestamp|datetime)/.test(t)) {
    const m = DATE_TIME.exec(v);
    assert.ok(m, `${type} value ${v}`);
    return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0), ms(m[7])));
  }
  if (typeof v === 'string' && /^time/.test(t)) {
    const m = TIME.exec(v);
    assert.ok(m, `${type} value ${v}`);
    return new Date(DAY0 + ((+m[1] * 60 + +m[2]) * 60 + +m[3]) * 1000 + ms(m[4]));
  }
  return v as Cell;
}

const problems = new Map<EngineName, Promise<string | null>>();

/** Why an engine cannot be used here, or null when it answers. Checked once per process. */
export function unavailable(name: EngineName): Promise<string | null> {
  let p = problems.get(name);
  if (!p) {
    p = DRIVERS[name].check().then(
      () => null,
      (e: Error) => e.message.split('\n')[0],
    );
    problems.set(name, p);
  }
  return p;
}

/** Runs `script` in the engine and reads back `table` (its unquoted name). */
export async function load(name: EngineName, script: string, table: string): Promise<Loaded> {
  const raw = await DRIVERS[name].load(script, table);
  const columns = raw.columns.map(([n, type]) => ({ name: n, type }));
  return { columns, rows: raw.rows.map((r) => r.map((v, i) => cellOf(v, columns[i].type))) };
}

/**
 * Runs `fn` when the engine answers. Otherwise the test is skipped with the reason, except under CI, where
 * the engines must be there and the test fails.
 */
export async function withEngine(t: TestContext, name: EngineName, fn: () => Promise<void>): Promise<void> {
  const problem = await unavailable(name);
  if (problem !== null) {
    if (process.env.CI) assert.fail(`${name} is required when CI is set, and it does not answer: ${problem}`);
    t.skip(`${name} is not available here: ${problem}`);
    return;
  }
  await fn();
}

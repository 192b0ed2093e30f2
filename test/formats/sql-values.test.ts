// sql-to-excel's quick ways against its general ones, cell for cell and byte for byte: a plain literal read in
// one step (lexer plainValue, kept as a span in sql/values.ts) against the same value read token by token, and
// a CSV written from the literals' spans (csv/write.ts textSpans) against the same rows written as cells. On
// what excel-to-sql writes in every dialect and on hand-written scripts with every literal form.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnInfo, DIALECT, DIALECTS, writeSql } from '../../tools/formats/index.ts';
import { csvWriter } from '../../tools/formats/csv/write.ts';
import type { Cell, FormatContext, Row } from '../../tools/formats/model.ts';
import { readSqlScript } from '../../tools/formats/sql/read.ts';
import { SqlRows } from '../../tools/formats/sql/values.ts';

const d = (y: number, m: number, day: number, h = 0, mi = 0, s = 0, ms = 0) => new Date(Date.UTC(y, m - 1, day, h, mi, s, ms));
const time = (h: number, m: number, s: number, ms = 0) => new Date(Date.UTC(1899, 11, 30, h, m, s, ms));

// Text that needs quotes in a CSV, escapes or splitting in SQL, or more than one UTF-16 unit.
const TEXTS = ['plain', '', 'a,b', 'dijo "sí"', 'línea 1\nlínea 2', 'a\r\nb', 'c\rd', "O'Brien", "''", 'C:\\temp\\', '\\', 'Muñoz 😀 中文', '\t tab ', 'NULL', '2024-01-15', '00123', '  ', 'x'.repeat(20_000), '"'];
const NUMBERS = [0, 1, -1, 7458.44, -0.5, 0.1 + 0.2, 1e-7, 123456789012345, 3_000_000_000, -9_007_199_254_740_991, 1e21, 2.5e-300, 1250.5];
const DATES = [d(2024, 1, 15), d(2024, 2, 29), d(1899, 12, 30), d(1900, 1, 1), d(9999, 12, 31), d(50, 6, 7), d(2024, 1, 1, 10, 0, 0, 123)];
const TIMES = [time(13, 45, 30), time(0, 0, 1, 250), time(0, 0, 0)];

function table(n: number): { titles: string[]; rows: Row[] } {
  const titles = ['texto', 'numero', 'fecha', 'momento', 'hora', 'activo', 'entero', 'vacia'];
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    rows.push([
      TEXTS[i % TEXTS.length],
      NUMBERS[i % NUMBERS.length],
      i % 5 === 4 ? null : DATES[i % DATES.length].getUTCHours() === 0 ? DATES[i % DATES.length] : d(2024, 3, 1),
      DATES[i % DATES.length],
      TIMES[i % TIMES.length],
      i % 3 === 2 ? null : i % 2 === 0,
      i % 7,
      null,
    ]);
  }
  return { titles, rows };
}

// Hand-written scripts: every literal form, with and without CREATE TABLE, lists in another order, columns the
// INSERT adds, values the reader keeps as their SQL text.
const SCRIPTS = [
  `CREATE TABLE t (id INT, b BOOLEAN, bit_col BIT, tiny TINYINT(1), dia DATE, hora TIME, ts TIMESTAMP, n NUMERIC, s TEXT);
   INSERT INTO t VALUES (1, TRUE, 1, 0, '2024-01-15', '13:45:30', '2024-02-29 13:45:00.5', 1.50, 'a'),
     (-0, false, 0, 1, '2024-02-30', '25:00:00', 'mañana', -0.000, ''),
     (0x41, Null, 2, 2, '1899-12-30', '00:00:00', '0050-06-07', 1e3, N'x'),
     (12345678901234567890, TRUE, -1, 1, '9999-12-31', '23:59:59.999', '2024-01-01T00:00:00', 007, 'it''s'),
     (1.5E+3, NULL, NULL, NULL, DATE '2020-05-06', TIME '10:11:12', TIMESTAMP '2020-05-06 07:08:09', +5, 'a' || 'b'),
     ( 2 , - 3, .5, 5., '2024-1-5', 'x', '', 0.1, E'\\t'),
     (3, NOW(), CAST('5' AS INT), X'4142', '1900-02-29', '12:00', ' 2024-01-15', 99999999999999999, $$d 'x'$$);
   INSERT INTO t (s, id) VALUES ('primero', 10), ('dijo "hola", y se fue', 11);
   INSERT INTO t (s, extra) VALUES ('añadida', 'valor');`,
  `INSERT INTO u VALUES (1, 'sin CREATE', 2024), (2, 'dos', '2024-01-15', TRUE, 1.0);
   CREATE TABLE u (a INT, b TEXT, c DATE);
   INSERT INTO u VALUES (3, 'tres', '2024-01-15');`,
  "INSERT INTO `m` VALUES (1, 'it\\'s', \"doble\", 'a\\nb', '\\\\', 'x\\0y', '😀\\%');",
  "CREATE TABLE p (a TEXT, b TEXT);\nINSERT INTO p VALUES (E'\\u00e9\\x41\\101', 'lone \ud800 and \udc00 ok'), ('\u0000nul', 'tab\there');",
];

const ctx: FormatContext = { limits: { maxCells: 10_000_000 }, message: () => {}, t: (k) => k, name: (k, p) => `${k} ${p?.n ?? ''}`.trim() };

/** The tables of a script read both ways, with the messages of each. */
function both(text: string) {
  const read = (tokens: boolean) => {
    const messages: string[] = [];
    const c: FormatContext = { ...ctx, message: (level, key, params) => void messages.push(`${level} ${key} ${JSON.stringify(params)}`) };
    const script = readSqlScript(text, { dialect: 'auto', maxCells: 10_000_000, ctx: c, file: 'x.sql', tokens });
    return { script, messages };
  };
  return { plain: read(false), tokens: read(true) };
}

/** A table as CSV: from the batches as they come (spans), or from their rows as cells. */
function csvOf(rows: SqlRows, spans: boolean): Buffer {
  const out = csvWriter(rows);
  for (const batch of rows) out.write(spans ? batch : batch.rows());
  return Buffer.from(out.end().bytes);
}

function compare(text: string, label: string): number {
  const { plain, tokens } = both(text);
  assert.deepEqual(plain.messages, tokens.messages, label);
  assert.equal(plain.script.tables.length, tokens.script.tables.length, label);
  let cells = 0;
  plain.script.tables.forEach((t, i) => {
    const u = tokens.script.tables[i];
    const width = Math.max(t.columns.length, ...Array.from({ length: t.values.rows }, (_, r) => t.values.lengthOf(r)));
    const a = new SqlRows(t.name, t.columns, width, t.values);
    const b = new SqlRows(u.name, u.columns, width, u.values);
    const ra = a.rows();
    assert.deepEqual(ra, b.rows(), `${label}: ${t.name}, plain literals against tokens`);
    assert.equal(t.cells, u.cells, label);
    assert.ok(csvOf(a, true).equals(csvOf(a, false)), `${label}: ${t.name}, CSV from spans against CSV from cells`);
    // Every batch's columns and slices are its rows'.
    for (const batch of a) {
      const rows = batch.rows();
      for (let c = 0; c < width; c++) assert.deepEqual(batch.column(c), rows.map((r) => r[c]), label);
      assert.deepEqual(batch.slice(1, 3).rows(), rows.slice(1, 3), label);
      const at = [rows.length - 1, 0];
      assert.deepEqual(batch.pick(at).rows(), [rows[at[0]], rows[0]], label);
    }
    cells += ra.reduce((n, r) => n + r.filter((c: Cell) => c !== null).length, 0);
  });
  return cells;
}

for (const dialect of DIALECTS) {
  test(`sql values: an excel-to-sql ${dialect} script reads the same by plain literals and by tokens, and writes the same CSV from spans and from cells`, () => {
    const { titles, rows } = table(600);
    const types = titles.map((_, i) => columnInfo(rows, i));
    const script = writeSql(rows, { dialect: DIALECT[dialect], table: 'datos', columns: titles, types, createTable: true, batchSize: 100 });
    const text = Buffer.from(script.bytes).toString('utf8');
    assert.ok(compare(text, dialect) > 3000);
    // Without CREATE TABLE nothing types a column: dates and booleans stay their literals, the same both ways.
    const bare = writeSql(rows, { dialect: DIALECT[dialect], table: 'datos', columns: titles, types, createTable: false, batchSize: 7 });
    compare(Buffer.from(bare.bytes).toString('utf8'), `${dialect} without CREATE TABLE`);
  });
}

test('sql values: hand-written scripts with every literal form read the same both ways, and write the same CSV both ways', () => {
  SCRIPTS.forEach((s, i) => compare(s, `script ${i + 1}`));
  // Rows of long fields of every kind, so that the writer's scratch fills at every place of a row.
  const pieces = ['a', ',', '"', 'ñ', '😀', ' ', '\n', '\r\n', 'é'];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const text = (n: number) => Array.from({ length: n }, () => pieces[Math.floor(next() * pieces.length)]).join('');
  const tuples = Array.from({ length: 400 }, (_, r) => `(${r}, '${text(Math.floor(next() * 2500))}', '${text(Math.floor(next() * 40))}', ${next() < 0.3 ? 'NULL' : `'${text(Math.floor(next() * (r % 97 === 0 ? 17_000 : 4000)))}'`}, 1.5)`);
  compare(`CREATE TABLE big (n INT, a TEXT, b TEXT, c TEXT, d REAL);\nINSERT INTO big VALUES ${tuples.join(',\n')};`, 'long fields');
});

test('sql values: a CSV from spans quotes, doubles quotes and encodes as Buffer.from does', () => {
  const text = `CREATE TABLE t (a TEXT, b INT);\nINSERT INTO t VALUES ('a,b', 1), ('dijo "sí"', 2), ('x\r\ny', 3), ('😀 \ud800 \udc00', 4), ('', 5);`;
  const t = readSqlScript(text, { dialect: 'auto', maxCells: 100, ctx, file: 'x.sql' }).tables[0];
  const csv = csvOf(new SqlRows(t.name, t.columns, 2, t.values), true);
  assert.ok(csv.equals(Buffer.from('\ufeffa,b\r\n"a,b",1\r\n"dijo ""sí""",2\r\n"x\r\ny",3\r\n😀 \ud800 \udc00,4\r\n,5\r\n', 'utf8')));
});

test('sql values: the bytes are read as their text: NBSP and BOM between tokens, a backslash before ñ, names past ASCII, UTF-16 and windows-1252 files', async () => {
  const read = (s: string | Uint8Array, dialect: 'auto' | 'mysql' | 'postgres' = 'auto') => {
    const script = readSqlScript(s, { dialect, maxCells: 100, ctx, file: 'x.sql' });
    return script.tables.map((t) => ({ name: t.name, columns: t.columns, rows: new SqlRows(t.name, t.columns, t.columns.length, t.values).rows() }));
  };
  // Glued to a word they are part of it, as any character past ASCII is.
  const nbsp = 'CREATE TABLE "Año" ("ñu" TEXT, "b" INT);\n\ufeff INSERT INTO \u00a0"Año" \u00a0VALUES \u00a0(\u00a0\'é\', \ufeff1 \u00a0), \u00a0(\'x\u00a0y\', 2);';
  assert.throws(() => read('CREATE\u00a0TABLE t (a INT);'), /no CREATE TABLE/);
  assert.deepEqual(read(nbsp), [{ name: 'Año', columns: ['ñu', 'b'], rows: [['é', 1], ['x\u00a0y', 2]] }]);
  assert.deepEqual(read("CREATE TABLE `t` (a TEXT);\nINSERT INTO `t` VALUES ('\\ñ\\n\\😀'), ('a\\'ñ');", 'mysql')[0].rows, [['ñ\n😀'], ["a'ñ"]]);
  assert.deepEqual(read("CREATE TABLE t (a TEXT);\nINSERT INTO t VALUES (E'\\ñ\\u00f1\\t'), ($$ñ 'x'$$);", 'postgres')[0].rows, [['ññ\t'], ["ñ 'x'"]]);
  // A word past ASCII is an expression, kept as its text.
  assert.deepEqual(read('CREATE TABLE t (a TEXT);\nINSERT INTO t VALUES (ñandú);')[0].rows, [['ñandú']]);

  // The tool reads the same script in UTF-8 (with and without BOM), UTF-16 and windows-1252.
  const text = "CREATE TABLE t (nombre TEXT, n INT);\r\nINSERT INTO t VALUES ('Muñoz, José', 1), ('€ 5', 2);\r\n";
  const { default: tool } = await import('../../tools/convert/sql-to-excel.ts');
  const { inputFile, runTool } = await import('../helpers/run-tool.ts');
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
  const cp1252 = Buffer.from(text.replace('€', '\u0080'), 'latin1');
  const outs = [];
  for (const bytes of [Buffer.from(text), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), utf16, cp1252]) {
    const out = await runTool(tool, [inputFile('t.sql', new Uint8Array(bytes))], { format: 'csv' });
    outs.push(Buffer.from(out.files[0].bytes).toString('utf8'));
  }
  assert.deepEqual(outs, Array(4).fill('\ufeffnombre,n\r\n"Muñoz, José",1\r\n€ 5,2\r\n'));
});

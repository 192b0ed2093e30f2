// sql-to-excel: scripts excel-to-sql writes in every dialect come back cell for cell (re-read with openpyxl), the
// statements of real dumps are read or ignored as tools.md says, and hostile scripts (10,000 statements, 10 MB
// literals, unclosed literals, deep nesting) are answered without harm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import excelToSql from '../../../tools/convert/excel-to-sql.ts';
import tool from '../../../tools/convert/sql-to-excel.ts';
import type { Cell } from '../../../tools/formats/model.ts';
import { readWithOpenpyxl } from '../../helpers/openpyxl-cells.ts';
import { d, readXlsx } from '../../helpers/read-xlsx.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { textOf } from '../../helpers/typed-titles.ts';

const time = (h: number, m: number, s: number, ms = 0) => new Date(Date.UTC(1899, 11, 30, h, m, s, ms));
const DIALECTS = ['standard', 'mysql', 'sqlserver', 'postgres'] as const;

// Text that tries to break out of its literal or its statement in every dialect.
const TRICKY = "GO\nGO\n  go 2\n/* no */ -- nada # nada $$x$$ `b` [c] \"d\"; \\\nsigue \\";
const TITLES = ['Id', 'Texto', "Nota'; DROP TABLE x; --", 'Ruta\\', 'Entero', 'Grande', 'Decimal', 'Doble', 'Fecha', 'Momento', 'Hora', 'Activo', 'Vacía'];
const ROWS: Cell[][] = [
  ['00123', 'Muñoz Peña 😀 ünïcödé 中文', "'; DROP TABLE x; --", 'C:\\temp\\new', 1, 3_000_000_000, 0.1 + 0.2, 1e-40, d(2024, 1, 15), d(2024, 2, 29, 13, 45), time(13, 45, 30), true, null],
  ['4111111111111111', 'línea 1\nlínea 2\n\tfin', "O'Brien \\' \\\\ ''", '\\', -2, -9_007_199_254_740_991, 1250.5, 1.5, d(2023, 12, 31), d(2024, 1, 1), time(0, 0, 1, 250), false, null],
  ['007', TRICKY, 'a\r\nb', '\\\\server\\share\\', 0, 1e18, -3, 2.5e-300, null, new Date(Date.UTC(2024, 2, 1, 10, 0, 0, 123)), null, null, null],
  ['  dos  espacios  ', 'c\rd', 'e\r', '\r\n', null, null, null, null, null, null, null, null, null],
  ['NULL', "E'x'", "N'y'", '$$z$$', null, null, null, null, null, null, null, null, null],
];

async function workbook(name: string, rows: unknown[][]) {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Datos');
  for (const r of rows) ws.addRow(r);
  ws.getColumn(10).numFmt = 'yyyy-mm-dd hh:mm:ss.000';
  ws.getColumn(11).numFmt = 'hh:mm:ss.000';
  return inputFile(name, new Uint8Array(await wb.xlsx.writeBuffer()));
}

const sqlFile = (text: string, name = 'script.sql') => inputFile(name, text);
const texts = (messages: { level: string; text: string }[], level: string) => messages.filter((m) => m.level === level).map((m) => m.text);

async function read(text: string, options: Record<string, unknown> = {}) {
  const out = await runTool(tool, [sqlFile(text)], options);
  return { ...out, sheets: out.files[0].name.endsWith('.xlsx') ? readWithOpenpyxl(out.files[0].bytes) : [] };
}

for (const dialect of DIALECTS) {
  test(`sql-to-excel: an excel-to-sql ${dialect} script comes back cell for cell (auto-detected)`, async () => {
    const sql = await runTool(excelToSql, [await workbook('valores.xlsx', [TITLES, ...ROWS])], { dialect, 'table-name': 'Valores 2024' });
    const script = textOf(sql.files[0].bytes);
    const out = await read(script);
    assert.deepEqual(out.files.map((f) => f.name), ['script.xlsx']);
    const [sheet] = out.sheets;
    assert.equal(sheet.name, 'Valores_2024');
    assert.deepEqual(sheet.rows[0], TITLES);
    // An XML parser reads a CR LF that exceljs wrote as it is as LF (XML 1.0 §2.11): the input holds LF there.
    const expected = ROWS.map((r) => r.map((c) => (typeof c === 'string' ? c.replaceAll('\r\n', '\n') : c)));
    assert.deepEqual(sheet.rows.slice(1), expected);
    assert.deepEqual((await readXlsx(out.files[0].bytes))[0].rows, [TITLES, ...expected]);
    const infos = texts(out.messages, 'info');
    assert.ok(infos.some((m) => m.includes(`comillas de ${dialect} (detectadas)`)), JSON.stringify(infos));
    // mysql's SET NAMES is the only other statement written.
    assert.deepEqual(texts(out.messages, 'warning'), dialect === 'mysql' ? ['Se han ignorado 1 sentencia(s) SET: solo se leen CREATE TABLE e INSERT … VALUES (los datos de COPY no se leen).'] : []);
    // The same script read with its dialect named gives the same cells; as CSV, the same text.
    const named = await read(script, { dialect });
    assert.deepEqual(named.sheets, out.sheets);
  });
}

// CR LF, CR alone and a CR at the end: excel-to-sql splits or escapes them per dialect; a CSV input holds them.
const CR_TEXTS = ['a\r\nb', 'c\rd', 'e\r', '\r\n', 'f\\\r\ng'];
for (const dialect of DIALECTS) {
  test(`sql-to-excel: CR LF inside text survives a ${dialect} script (exceljs, which keeps &#13;)`, async () => {
    const csv = inputFile('cr.csv', `Texto\r\n${CR_TEXTS.map((t) => `"${t}"`).join('\r\n')}\r\n`);
    const sql = await runTool(excelToSql, [csv], { dialect });
    const out = await runTool(tool, [sqlFile(textOf(sql.files[0].bytes))]);
    assert.deepEqual((await readXlsx(out.files[0].bytes))[0].rows, [['Texto'], ...CR_TEXTS.map((t) => [t])]);
  });
}

test('sql-to-excel: a mysql script with one-row INSERTs and a batch of 1 reads the same', async () => {
  const sql = await runTool(excelToSql, [await workbook('v.xlsx', [TITLES, ...ROWS])], { dialect: 'mysql', 'batch-size': 1, 'create-table': false });
  const out = await read(textOf(sql.files[0].bytes));
  // Without CREATE TABLE nothing says a column holds dates or booleans: their literals stay what they are.
  const [sheet] = out.sheets;
  assert.deepEqual(sheet.rows[0], TITLES);
  assert.equal(sheet.rows.length, ROWS.length + 1);
  assert.deepEqual(sheet.rows.map((r) => r[1]), ['Texto', ...ROWS.map((r) => r[1])]);
  assert.equal(sheet.rows[1][8], '2024-01-15');
  assert.equal(sheet.rows[1][11], true);
});

test('sql-to-excel: values follow the declared types and the literal forms', async () => {
  const out = await read(`
    CREATE TABLE IF NOT EXISTS public."Ventas" (
      id INTEGER PRIMARY KEY,
      codigo VARCHAR(10) NOT NULL DEFAULT 'x',
      activo BOOLEAN,
      bit_col BIT,
      tiny TINYINT(1),
      dia DATE,
      momento TIMESTAMP(3) WITH TIME ZONE,
      hora TIME,
      nota TEXT,
      CONSTRAINT pk PRIMARY KEY (id),
      UNIQUE (codigo)
    );
    INSERT INTO public."Ventas" VALUES
      (1, '00123', TRUE, 1, 0, '2024-01-15', '2024-02-29 13:45:00.5', '13:45:30', 'texto'),
      (2, '1234.50', FALSE, 0, 1, '2024-02-30', 'mañana', '25:00:00', NULL),
      (3, NULL, NULL, NULL, NULL, DATE '2020-05-06', TIMESTAMP '2020-05-06T07:08:09', TIME '10:11:12', $$dólar 'x'$$),
      (1234.50, X'4142', NOW(), 0x41, 2, NULL, NULL, NULL, CAST('5' AS INT)),
      (12345678901234567890, -0.000, -7, 1e3, 1.5E+3, NULL, NULL, NULL, 'a' || 'b');
  `);
  const [sheet] = out.sheets;
  assert.equal(sheet.name, 'Ventas');
  assert.deepEqual(sheet.rows, [
    ['id', 'codigo', 'activo', 'bit_col', 'tiny', 'dia', 'momento', 'hora', 'nota'],
    [1, '00123', true, true, false, d(2024, 1, 15), new Date(Date.UTC(2024, 1, 29, 13, 45, 0, 500)), time(13, 45, 30), 'texto'],
    [2, '1234.50', false, false, true, '2024-02-30', 'mañana', '25:00:00', null],
    [3, null, null, null, null, d(2020, 5, 6), d(2020, 5, 6, 7, 8, 9), time(10, 11, 12), "dólar 'x'"],
    [1234.5, "X'4142'", 'NOW()', '0x41', 2, null, null, null, "CAST('5' AS INT)"],
    ['12345678901234567890', 0, -7, 1000, 1500, null, null, null, 'ab'],
  ]);
  const warnings = texts(out.messages, 'warning');
  assert.ok(warnings.includes('Se han dejado como texto 1 número(s) que una hoja de cálculo no puede guardar exactos; el primero: 12345678901234567890 (línea 20).'), JSON.stringify(warnings));
  assert.ok(warnings.includes("Se han escrito como su texto SQL 4 valor(es) que no son literales (funciones, conversiones, hexadecimales); el primero: X'4142' (línea 19)."), JSON.stringify(warnings));
});

test('sql-to-excel: other statements are ignored with one warning per kind, COPY data is passed over', async () => {
  const out = await read(
    [
      'SET NAMES utf8mb4;',
      'SET client_encoding = \'UTF8\';',
      'BEGIN;',
      'DROP TABLE IF EXISTS t;',
      'CREATE TABLE t (a INT, b TEXT);',
      'CREATE INDEX i ON t (a);',
      "COPY t (a, b) FROM stdin;\n1\tit's ; not SQL\n2\t'\n\\.",
      "INSERT INTO t (b, a, c) VALUES ('x', 1, 'extra') ON CONFLICT DO NOTHING;",
      'INSERT INTO t SELECT * FROM u;',
      'INSERT INTO t (a) SELECT 1;',
      "INSERT INTO otra VALUES (1, 'y'), (2, 'z');",
      'COMMIT;',
      'GO',
    ].join('\n'),
  );
  assert.deepEqual(
    out.sheets.map((s) => [s.name, s.rows]),
    [
      ['t', [['a', 'b', 'c'], [1, 'x', 'extra']]],
      ['otra', [['Columna 1', 'Columna 2'], [1, 'y'], [2, 'z']]],
    ],
  );
  const warnings = texts(out.messages, 'warning');
  const ignored = (n: number, kind: string) => `Se han ignorado ${n} sentencia(s) ${kind}: solo se leen CREATE TABLE e INSERT … VALUES (los datos de COPY no se leen).`;
  for (const w of [ignored(2, 'SET'), ignored(1, 'BEGIN'), ignored(1, 'DROP TABLE'), ignored(1, 'CREATE INDEX'), ignored(1, 'COPY'), ignored(2, 'INSERT … SELECT'), ignored(1, 'COMMIT')]) {
    assert.ok(warnings.includes(w), `${w} in ${JSON.stringify(warnings)}`);
  }
  assert.ok(warnings.some((w) => w.startsWith('Se han ignorado 1 cláusula(s) tras los valores de INSERT') && w.endsWith('línea 11.')), JSON.stringify(warnings));
  assert.ok(warnings.some((w) => w.includes('1 columna(s) de INSERT que CREATE TABLE no declara; la primera: t.c (línea 11)')), JSON.stringify(warnings));
});

test('sql-to-excel: a table with CREATE TABLE and no rows is a sheet of titles; `tables` chooses by name, schema or position', async () => {
  const script = 'CREATE TABLE s1.uno (a INT);\nCREATE TABLE s2.dos (b INT, c INT);\nINSERT INTO s2.dos VALUES (1, 2);\nCREATE TABLE tres (x INT);';
  const all = await read(script);
  assert.deepEqual(all.sheets.map((s) => [s.name, s.rows]), [['uno', [['a']]], ['dos', [['b', 'c'], [1, 2]]], ['tres', [['x']]]]);
  for (const tables of ['S2.DOS, tres', ['dos', 3], '2,3']) {
    const some = await read(script, { tables });
    assert.deepEqual(some.sheets.map((s) => s.name), ['dos', 'tres'], JSON.stringify(tables));
  }
  await rejectsWith(runTool(tool, [sqlFile(script)], { tables: 'cuatro' }), 'invalid_option', { option: 'tables' });
  await rejectsWith(runTool(tool, [sqlFile(script)], { tables: 'dos, s2.dos' }), 'invalid_option', { option: 'tables' });
  const csv = await runTool(tool, [sqlFile(script)], { format: 'csv', tables: 'dos', language: 'en' });
  assert.deepEqual(csv.files.map((f) => [f.name, f.contentType]), [['script.csv', 'text/csv; charset=utf-8']]);
  assert.equal(textOf(csv.files[0].bytes), '\ufeffb,c\r\n1,2\r\n');
  const csvs = await runTool(tool, [sqlFile(script)], { format: 'csv' });
  assert.deepEqual(csvs.files.map((f) => f.name), ['uno.csv', 'dos.csv', 'tres.csv']);
});

test('sql-to-excel: the quoting of each dialect, named or detected', async () => {
  const cases: [string, string, Cell[]][] = [
    ['mysql', "CREATE TABLE `t``x` (`a` TEXT, b TEXT); # comentario ; 'no'\nINSERT INTO `t``x` VALUES ('it\\'s \\\\ \\n', \"dq \\\"x\\\"\");", ["it's \\ \n", 'dq "x"']],
    ['sqlserver', "CREATE TABLE [t]]x] ([a] NVARCHAR(10), [b b] NVARCHAR(MAX))\nGO\nINSERT INTO [dbo].[t]]x] VALUES (N'a\\b', N'x' + N'y')\ngo 2\n", ['a\\b', 'xy']],
    ['postgres', "/* uno /* anidado */ sigue */ CREATE TABLE \"t\"\"x\" (a TEXT, b TEXT);\nINSERT INTO \"t\"\"x\" VALUES (E'tab\\there\\\\ \\'q\\' \\x41\\101\\u00e9', $tag$a $$ b$tag$);", ["tab\there\\ 'q' AAé", 'a $$ b']],
    ['standard', "CREATE TABLE \"t\"\"x\" (a VARCHAR(5), b CLOB);\nINSERT INTO \"t\"\"x\" VALUES ('a\\b', 'x' || 'y');", ['a\\b', 'xy']],
  ];
  for (const [dialect, script, row] of cases) {
    for (const option of ['auto', dialect]) {
      const out = await read(script, { dialect: option });
      assert.deepEqual(out.sheets[0].rows.slice(1), [row], `${dialect} read as ${option}`);
      assert.equal(out.sheets.length, 1, 'a table named with and without its schema is one table');
    }
  }
});

test('sql-to-excel: errors name the line', async () => {
  const cases: [string, string, number | undefined][] = [
    ["CREATE TABLE t (a TEXT);\nINSERT INTO t VALUES ('abierto);\n", 'sql_unclosed', 2],
    ['CREATE TABLE t (a TEXT);\n/* sin cerrar\nINSERT INTO t VALUES (1);', 'sql_unclosed', 2],
    ['CREATE TABLE `t` (a TEXT);\n\nINSERT INTO `t` VALUES (`abierto);', 'sql_unclosed', 3],
    ['CREATE TABLE t (a INT, b INT);\n\nINSERT INTO t VALUES (1, 2), (3);', 'sql_values', 3],
    ['INSERT INTO t (a, b) VALUES (1, 2, 3);', 'sql_values', 1],
    ['SET x = 1;\nDROP TABLE y;', 'sql_nothing', undefined],
    ['CREATE TABLE t (a INT);\nINSERT INTO t VALUES (1 2;', 'sql_syntax', 2],
  ];
  for (const [script, key, line] of cases) {
    await assert.rejects(runTool(tool, [sqlFile(script)]), (err: { code: string; detail: { messageKey?: string; option?: string; params?: Record<string, unknown> } }) => {
      assert.equal(err.code, 'invalid_file', script);
      assert.equal(err.detail.messageKey, `error-details.${key}`, script);
      assert.equal(err.detail.option, 'file');
      assert.equal(err.detail.params?.line, line, script);
      return true;
    });
  }
});

test('sql-to-excel: hostile scripts: 10,000 statements, a 10 MB literal, deep nesting, binary', async () => {
  const many = ['CREATE TABLE t (n INT, s TEXT);', ...Array.from({ length: 10_000 }, (_, i) => `INSERT INTO t VALUES (${i}, 'fila ${i}; ''x''');`)].join('\n');
  const out = await read(many);
  assert.equal(out.sheets[0].rows.length, 10_001);
  assert.deepEqual(out.sheets[0].rows[10_000], [9_999, "fila 9999; 'x'"]);
  // mysql quoting (backslash escapes) and postgres nested comments: each literal and comment scanned once.
  const mysql = ['CREATE TABLE `t` (n INT, s TEXT);', ...Array.from({ length: 10_000 }, (_, i) => `INSERT INTO \`t\` VALUES (${i}, 'fila \\'${i}\\'');`)].join('\n');
  assert.deepEqual((await read(mysql)).sheets[0].rows[10_000], [9_999, "fila '9999'"]);
  const pg = ["CREATE TABLE t (n INT, s TEXT);", ...Array.from({ length: 10_000 }, (_, i) => `/* c ${i} */ INSERT INTO t VALUES (${i}, E'\\t${i}');`)].join('\n');
  assert.deepEqual((await read(pg, { dialect: 'postgres' })).sheets[0].rows[10_000], [9_999, '\t9999']);

  const big = 'x'.repeat(10 * 1024 * 1024 - 3) + "'\\";
  const huge = await runTool(tool, [sqlFile(`CREATE TABLE t (s TEXT);\nINSERT INTO t VALUES ('${big.replaceAll("'", "''")}');`)], { format: 'csv' });
  // The literal is read whole (a cell of xlsx holds at most 32,767 characters, so CSV).
  assert.ok(textOf(huge.files[0].bytes) === `\ufeffs\r\n${big}\r\n`, 'the 10 MB literal is read whole');
  await rejectsWith(runTool(tool, [sqlFile(`CREATE TABLE t (s TEXT);\nINSERT INTO t VALUES ('${'x'.repeat(40_000)}');`)]), 'format_limit_exceeded');
  await rejectsWith(runTool(tool, [sqlFile(`CREATE TABLE t (s TEXT);\nINSERT INTO t VALUES ('${'y'.repeat(10 * 1024 * 1024)}`)]), 'invalid_file', { params: { line: 2 } });

  const deep = `CREATE TABLE t (a INT);\nINSERT INTO t VALUES (${'('.repeat(300)}1${')'.repeat(300)});`;
  await rejectsWith(runTool(tool, [sqlFile(deep)]), 'invalid_file', { params: { max: 256, line: 2 } });
  const deepSkipped = `SELECT ${'('.repeat(100_000)};\nCREATE TABLE t (a INT);`;
  await rejectsWith(runTool(tool, [sqlFile(deepSkipped)]), 'invalid_file', { params: { max: 256 } });
  await rejectsWith(runTool(tool, [inputFile('x.sql', new Uint8Array([67, 82, 0, 1]))]), 'invalid_file');
  // An empty upload is invalid_file (README: the file was sent, and it cannot be read).
  await rejectsWith(runTool(tool, [inputFile('x.sql', new Uint8Array(0))]), 'invalid_file');
});

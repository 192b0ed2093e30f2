// excel-to-sql: each dialect's script is run in a real engine and the table read back through its own client
// (standard in SQLite and PostgreSQL, postgres in PostgreSQL, mysql in MariaDB; test/helpers/databases.ts);
// SQL Server, which has no engine here, is held to a golden file and targeted checks of its quoting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import tool from '../../../tools/convert/excel-to-sql.ts';
import type { Cell } from '../../../tools/formats/model.ts';
import { load, withEngine, type EngineName } from '../../helpers/databases.ts';
import { d } from '../../helpers/read-xlsx.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { textOf } from '../../helpers/typed-titles.ts';
import { golden } from '../../helpers/golden.ts';
import { row, xlsxPackage } from '../../helpers/xlsx-package.ts';


const matchesGolden = golden('excel-to-sql');

/** A time of day alone, as the sheet layer reads one (a Date on Excel's day 0). */
const time = (h: number, m: number, s: number, ms = 0) => new Date(Date.UTC(1899, 11, 30, h, m, s, ms));

async function workbook(name: string, rows: unknown[][], formats: Record<number, string> = {}) {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Datos');
  for (const r of rows) ws.addRow(r);
  for (const [col, fmt] of Object.entries(formats)) ws.getColumn(Number(col)).numFmt = fmt;
  return inputFile(name, new Uint8Array(await wb.xlsx.writeBuffer()));
}

async function script(file: ReturnType<typeof inputFile>, options: Record<string, unknown> = {}) {
  const out = await runTool(tool, [file], options);
  assert.equal(out.files.length, 1);
  return { ...out, sql: textOf(out.files[0].bytes) };
}

// Every kind of value, and text that tries to break out of its literal, in each engine.
const VALUE_TITLES = ['Id', 'Texto', "Nota'; DROP TABLE x; --", 'Ruta\\', 'Entero', 'Grande', 'Decimal', 'Doble', 'Fecha', 'Momento', 'Hora', 'Activo', 'Mixta', 'Vacía'];
const TRICKY = 'GO\nGO\n  go 2\n/* no */ -- nada $$x$$ `b` [c] "d"; \\\nsigue \\';
const VALUE_ROWS: unknown[][] = [
  ['00123', 'Muñoz Peña 😀', "'; DROP TABLE x; --", 'C:\\temp\\new', 1, 3_000_000_000, 0.1 + 0.2, 1e-40, d(2024, 1, 15), d(2024, 2, 29, 13, 45), time(13, 45, 30), true, '00123', null],
  ['4111111111111111', 'línea 1\nlínea 2\n\tfin', "O'Brien \\' \\\\", '\\', -2, -9_007_199_254_740_991, 1250.5, 1.5, d(2023, 12, 31), d(2024, 1, 1), time(0, 0, 1, 250), false, 42, null],
  ['007', TRICKY, { error: '#N/A' }, '\\\\server\\share\\', 0, 1e18, -3, 2.5e-300, null, new Date(Date.UTC(2024, 2, 1, 10, 0, 0, 123)), null, null, d(2024, 1, 15), null],
  ['  dos  espacios  ', null, null, null, null, null, null, null, null, null, null, null, true, null],
];
/** What every engine must give back: the cells as they were; the error cell and the mixed column as text. */
const VALUE_EXPECTED = VALUE_ROWS.map((r) => [...r]) as Cell[][];
VALUE_EXPECTED[2][2] = '#N/A';
VALUE_EXPECTED.forEach((r, i) => (r[12] = ['00123', '42', '2024-01-15', 'true'][i]));
const valuesFile = () => workbook('valores.xlsx', [VALUE_TITLES, ...VALUE_ROWS], { 9: 'yyyy-mm-dd', 10: 'yyyy-mm-dd hh:mm:ss.000', 11: 'hh:mm:ss.000' });

const VALUE_TYPES: Record<string, string[]> = {
  standard: ['VARCHAR(20)', 'VARCHAR(100)', 'VARCHAR(20)', 'VARCHAR(20)', 'INTEGER', 'BIGINT', 'DECIMAL(21,17)', 'DOUBLE PRECISION', 'DATE', 'TIMESTAMP', 'TIME', 'BOOLEAN', 'VARCHAR(10)', 'VARCHAR(10)'],
  postgres: [
    'character varying(20)', 'character varying(100)', 'character varying(20)', 'character varying(20)', 'integer', 'bigint', 'numeric(21,17)', 'double precision',
    'date', 'timestamp without time zone', 'time without time zone', 'boolean', 'character varying(10)', 'character varying(10)',
  ],
  mysql: ['varchar(20)', 'varchar(100)', 'varchar(20)', 'varchar(20)', 'int(11)', 'bigint(20)', 'decimal(21,17)', 'double', 'date', 'datetime(3)', 'time(3)', 'tinyint(1)', 'varchar(10)', 'varchar(10)'],
};

const ROUND_TRIPS: { dialect: string; engine: EngineName; types: string[] }[] = [
  { dialect: 'standard', engine: 'sqlite', types: VALUE_TYPES.standard },
  { dialect: 'standard', engine: 'postgres', types: VALUE_TYPES.postgres },
  { dialect: 'postgres', engine: 'postgres', types: VALUE_TYPES.postgres },
  { dialect: 'mysql', engine: 'mariadb', types: VALUE_TYPES.mysql },
];

for (const { dialect, engine, types } of ROUND_TRIPS) {
  test(`excel-to-sql: ${dialect} in ${engine} gives back every value, type and title exactly`, async (t) => {
    await withEngine(t, engine, async () => {
      const { sql, messages } = await script(await valuesFile(), { dialect, 'table-name': 'Valores 2024' });
      const back = await load(engine, sql, 'Valores_2024');
      assert.deepEqual(back.columns.map((c) => c.name), VALUE_TITLES);
      assert.deepEqual(back.columns.map((c) => c.type), types);
      assert.deepEqual(back.rows, VALUE_EXPECTED);
      assert.ok(messages.some((m) => m.level === 'warning' && m.text.includes('«Mixta»') && m.text.includes('fila 3')), JSON.stringify(messages));
    });
  });
}

// Titles that need quoting, escaping, generating, cutting or renaming.
const LONG = 'Descripción ' + 'x'.repeat(140);
const NAME_TITLES = ['Dice "hola"', 'a`b', '[x]]', 'C:\\ruta\\', "Nota'; DROP TABLE x; --", 'importe', 'IMPORTE', '', 'Línea\nnueva', '  espacios  ', 'Estado 😀', LONG + ' A', LONG + ' B', 'columna 8'];
const namesFor = (keep: number, emoji: string) => [
  'Dice "hola"', 'a`b', '[x]]', 'C:\\ruta\\', "Nota'; DROP TABLE x; --", 'importe', 'IMPORTE_2', 'Columna 8', 'Línea nueva', 'espacios', `Estado ${emoji}`,
  'Descripción ' + 'x'.repeat(keep), 'Descripción ' + 'x'.repeat(keep - 2) + '_2', 'columna 8_2',
];
const NAMES: Record<string, string[]> = {
  // PostgreSQL counts 63 bytes (ó takes two), MySQL 64 characters, the others 128; MySQL takes nothing past U+FFFF.
  standard: namesFor(116, '😀'),
  postgres: namesFor(50, '😀'),
  mysql: namesFor(52, '_'),
  sqlserver: namesFor(116, '😀'),
};
const namesFile = () => workbook('nombres.xlsx', [NAME_TITLES, NAME_TITLES.map((_, i) => i + 1)]);

for (const [dialect, engine] of [['standard', 'sqlite'], ['postgres', 'postgres'], ['mysql', 'mariadb']] as const) {
  test(`excel-to-sql: ${dialect} column names are accepted by ${engine} and read back as written`, async (t) => {
    await withEngine(t, engine, async () => {
      const { sql, messages } = await script(await namesFile(), { dialect });
      const back = await load(engine, sql, 'datos');
      assert.deepEqual(back.columns.map((c) => c.name), NAMES[dialect]);
      assert.deepEqual(back.rows, [NAME_TITLES.map((_, i) => i + 1)]);
      const renamed = messages.find((m) => m.text.includes('nombre(s) de columna cambiado(s)'));
      const count = NAMES[dialect].filter((n, i) => n !== NAME_TITLES[i]).length;
      assert.equal(count, dialect === 'mysql' ? 8 : 7);
      assert.match(renamed?.text ?? '', new RegExp(`^${count} nombre\\(s\\).*"IMPORTE" → "IMPORTE_2", "" → "Columna 8"`));
    });
  });
}

test('excel-to-sql: sqlserver quotes with brackets, writes N\'…\', BIT and ISO dates, and no line reads as GO', async () => {
  const names = await script(await namesFile(), { dialect: 'sqlserver' });
  assert.ok(names.sql.includes('[[x]]]]], [C:\\ruta\\], [Nota\'; DROP TABLE x; --]'));
  assert.ok(names.sql.includes(`[${NAMES.sqlserver[12]}]`));
  const values = await script(await valuesFile(), { dialect: 'sqlserver' });
  const { sql } = values;
  matchesGolden('valores-sqlserver.sql', sql);
  assert.match(sql, /^ {2}\[Activo\] BIT,$/m);
  assert.match(sql, /^ {2}\[Momento\] DATETIME2\(3\),$/m);
  assert.match(sql, /^ {2}\[Texto\] NVARCHAR\(100\),$/m);
  assert.ok(sql.includes(`N'Muñoz Peña 😀', N'''; DROP TABLE x; --', N'C:\\temp\\new', 1, 3000000000, 0.30000000000000004`));
  assert.ok(sql.includes(`'2024-01-15', '2024-02-29T13:45:00', '13:45:30', 1, N'00123', NULL),`));
  assert.ok(sql.includes(`'2024-03-01T10:00:00.123', NULL, NULL, N'2024-01-15', NULL),`));
  assert.ok(sql.includes("N'O''Brien \\'' \\\\'"), 'backslashes are plain characters in SQL Server');
  assert.ok(sql.includes("N'GO\nG' + N'O\n  g' + N'o 2\n/* no */ -- nada $$x$$ `b` [c] \"d\"; \\' + N'\nsigue \\'"));
  assert.equal(sql.split('\n').filter((l) => /^\s*go(\s+\d+)?\s*$/i.test(l)).length, 0);
});

for (const dialect of ['standard', 'postgres', 'mysql', 'sqlserver']) {
  test(`excel-to-sql: ${dialect} script of ventas.xlsx matches its golden file`, async () => {
    const out = await script(fixture('ventas.xlsx'), { dialect });
    matchesGolden(`ventas-${dialect}.sql`, out.sql);
    assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['ventas.sql', 'application/sql; charset=utf-8']]);
    assert.equal(out.textPreview, out.sql);
  });
}

// The sqlite3 and mariadb clients drop a CR that ends a line, so no literal may hold CR LF as it is.
const CR_TEXTS = ['a\r\nb', 'c\rd', 'e\r', '\r\n'];
for (const [dialect, engine] of [['standard', 'sqlite'], ['standard', 'postgres'], ['postgres', 'postgres'], ['mysql', 'mariadb']] as const) {
  test(`excel-to-sql: ${dialect} keeps carriage returns through ${engine}'s client`, async (t) => {
    const csv = 'texto\r\n' + CR_TEXTS.map((x) => `"${x}"\r\n`).join('');
    const { sql } = await script(inputFile('cr.csv', csv), { dialect });
    assert.ok(!/\r\n/.test(sql));
    await withEngine(t, engine, async () => {
      assert.deepEqual((await load(engine, sql, 'datos')).rows, CR_TEXTS.map((x) => [x]));
    });
  });
}

// A NUL ended the line for sqlite3 and psql: the rest of the literal and the next row were read as SQL, and the
// cell below dropped a table. NUL is removed (one warning counts them); every other control is kept as it is.
const INJECTION = "', 1); DROP TABLE victims; --";
const CONTROLS = [...Array.from({ length: 31 }, (_, i) => i + 1), 0x7f, 0x85, 0x2028, 0x2029].map((c) => String.fromCharCode(c));
const hex = (ch: string) => `_x${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`;
/** An inline-string cell; characters below U+0020 written as OOXML `_xHHHH_` escapes, as Excel writes them. */
const inline = (ref: string, text: string) =>
  `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${[...text].map((ch) => (ch < ' ' ? hex(ch) : ch === '<' ? '&lt;' : ch === '&' ? '&amp;' : ch)).join('')}</t></is></c>`;
const nulBook = () =>
  inputFile(
    'nulos.xlsx',
    xlsxPackage({
      sheets: [
        {
          name: 'Datos',
          xml: [
            row(1, inline('A1', 'texto') + inline('B1', 'n')),
            row(2, inline('A2', "a\u0000'b\u0000") + '<c r="B2"><v>1</v></c>'),
            row(3, inline('A3', INJECTION) + '<c r="B3"><v>2</v></c>'),
            ...CONTROLS.map((ch, i) => row(i + 4, inline(`A${i + 4}`, `x${ch}y\nz${ch}`) + `<c r="B${i + 4}"><v>${i + 3}</v></c>`)),
          ].join(''),
        },
      ],
    }),
  );
const NUL_EXPECTED = [["a'b", 1], [INJECTION, 2], ...CONTROLS.map((ch, i) => [`x${ch}y\nz${ch}`, i + 3])];

for (const [dialect, engine] of [['standard', 'sqlite'], ['standard', 'postgres'], ['postgres', 'postgres'], ['mysql', 'mariadb']] as const) {
  test(`excel-to-sql: ${dialect} loaded by ${engine}'s client: a NUL is removed with a warning and cuts no literal; other controls survive`, async (t) => {
    const { sql, messages } = await script(nulBook(), { dialect });
    assert.ok(!sql.includes('\u0000'));
    assert.deepEqual(
      messages.filter((m) => m.level === 'warning').map((m) => m.text),
      ['Se han quitado 2 carácter(es) nulo(s) (U+0000), que un resultado SQL no lleva (el primero en A2 de «nulos.sql»).'],
    );
    await withEngine(t, engine, async () => {
      // The victims table is made first and written to last: a script that dropped it fails to load.
      const back = await load(engine, `CREATE TABLE victims (v INTEGER);\n${sql}INSERT INTO victims VALUES (1);\n`, 'datos');
      assert.deepEqual(back.rows, NUL_EXPECTED);
    });
  });
}

test('excel-to-sql: sqlserver writes no NUL either, and the warning is in the language asked', async () => {
  const { sql, messages } = await script(nulBook(), { dialect: 'sqlserver', language: 'en' });
  assert.ok(!sql.includes('\u0000'));
  assert.ok(sql.includes(`(N'a''b', 1),\n  (N''', 1); DROP TABLE victims; --', 2),`));
  assert.deepEqual(
    messages.filter((m) => m.level === 'warning').map((m) => m.text),
    ['2 null character(s) (U+0000) were removed, which a SQL result never carries (the first in A2 of "nulos.sql").'],
  );
});

test('excel-to-sql: sqlserver splits a literal between CR and LF', async () => {
  const { sql } = await script(inputFile('cr.csv', 'texto\n"a\r\nb"\n'), { dialect: 'sqlserver' });
  assert.ok(sql.includes("(N'a\r' + N'\nb');"));
});

test('excel-to-sql: mysql escapes backslashes and postgres uses E\'…\' for them', async () => {
  const file = inputFile('b.csv', 'a\n"C:\\new\\table"\n');
  assert.ok((await script(file, { dialect: 'mysql' })).sql.includes("('C:\\\\new\\\\table');"));
  assert.ok((await script(file, { dialect: 'postgres' })).sql.includes("(E'C:\\\\new\\\\table');"));
  assert.ok((await script(file, { dialect: 'standard' })).sql.includes("('C:\\new\\table');"));
});

test('excel-to-sql: a CSV is typed with detect-types; ids with zeros stay text and their column turns text', async (t) => {
  await withEngine(t, 'sqlite', async () => {
    const { sql, messages } = await script(fixture('ventas.csv'));
    const back = await load('sqlite', sql, 'datos');
    assert.deepEqual(back.columns.map((c) => c.type), ['DATE', 'VARCHAR(10)', 'VARCHAR(10)', 'DECIMAL(3,1)', 'BOOLEAN', 'VARCHAR(10)']);
    assert.deepEqual(back.rows, [
      [d(2024, 3, 10), 'Íñigo', '000789', 12.5, false, '=1+1'],
      [d(2024, 3, 11), 'Ana', '15', 7, true, null],
    ]);
    assert.deepEqual(messages.map((m) => m.level), ['warning', 'info']);
    assert.equal(messages[0].text, '1 columna(s) mezclan tipos de datos y se escriben como texto, cada valor en su forma de máquina (números con punto, fechas ISO, true/false): "Código". La primera celda convertida es la de la fila 3 de «Código».');
    assert.equal(messages[1].text, 'Script SQL (standard) de la tabla «datos»: 2 fila(s) y 6 columna(s) en 1 sentencia(s) INSERT.');
  });
});

const csvRows = (n: number) => 'id,nombre\n' + Array.from({ length: n }, (_, i) => `${i + 1},n${i + 1}\n`).join('');
const inserts = (sql: string) => sql.split('\n\n').filter((s) => s.startsWith('INSERT')).map((s) => s.trimEnd().split('\n').length - 1);

test('excel-to-sql: batch-size rows per INSERT (default 100), the last one takes the rest', async (t) => {
  assert.deepEqual(inserts((await script(inputFile('t.csv', csvRows(250)))).sql), [100, 100, 50]);
  assert.deepEqual(inserts((await script(inputFile('t.csv', csvRows(3)), { 'batch-size': 1 })).sql), [1, 1, 1]);
  const big = await script(inputFile('t.csv', csvRows(2500)), { 'batch-size': 1000, dialect: 'mysql' });
  assert.deepEqual(inserts(big.sql), [1000, 1000, 500]);
  assert.ok(big.sql.split('\n').every((l) => !l.includes('\r')));
  await withEngine(t, 'mariadb', async () => {
    const back = await load('mariadb', big.sql, 'datos');
    assert.equal(back.rows.length, 2500);
    assert.deepEqual([back.rows[0], back.rows[2499]], [[1, 'n1'], [2500, 'n2500']]);
  });
});

test('excel-to-sql: create-table=false writes only the INSERTs, which load into an existing table', async (t) => {
  const file = inputFile('t.csv', 'id,nombre\n1,Ana\n2,Íñigo\n');
  const full = (await script(file, { dialect: 'postgres' })).sql;
  const only = await script(file, { dialect: 'postgres', 'create-table': false });
  assert.ok(!only.sql.includes('CREATE'));
  assert.equal(only.sql, 'INSERT INTO "datos" ("id", "nombre") VALUES\n  (1, \'Ana\'),\n  (2, \'Íñigo\');\n');
  assert.equal(full, 'CREATE TABLE "datos" (\n  "id" INTEGER,\n  "nombre" VARCHAR(10)\n);\n\n' + only.sql);
  await withEngine(t, 'postgres', async () => {
    const back = await load('postgres', 'CREATE TABLE datos (id BIGINT, nombre TEXT);\n' + only.sql, 'datos');
    assert.deepEqual(back.rows, [[1, 'Ana'], [2, 'Íñigo']]);
  });
});

test('excel-to-sql: table-name is made a valid identifier, cut to each dialect\'s limit, and a change is reported', async () => {
  const file = inputFile('t.csv', 'a\n1\n');
  const nameOf = async (name: string, dialect = 'standard') => {
    const out = await script(file, { 'table-name': name, dialect, 'create-table': false });
    const renamed = out.messages.find((m) => m.text.startsWith('El nombre de tabla'));
    return [/^INSERT INTO (.*) \(/m.exec(out.sql)![1], renamed?.text ?? null];
  };
  assert.deepEqual(await nameOf('Ventas 2024/25'), ['"Ventas_2024_25"', 'El nombre de tabla «Ventas 2024/25» no es un identificador SQL válido: la tabla se llama «Ventas_2024_25».']);
  assert.deepEqual(await nameOf('año_fiscal'), ['"año_fiscal"', null]);
  assert.deepEqual(await nameOf(''), ['"datos"', null]);
  assert.deepEqual((await nameOf('!!! ???'))[0], '"datos"');
  assert.deepEqual((await nameOf('2024'))[0], '"_2024"');
  assert.deepEqual((await nameOf('esquema.tabla'))[0], '"esquema_tabla"');
  assert.deepEqual((await nameOf('x"; DROP TABLE y; --', 'mysql'))[0], '`x_DROP_TABLE_y`');
  assert.deepEqual((await nameOf('𝐀bc', 'mysql'))[0], '`_bc`');
  assert.deepEqual((await nameOf('x'.repeat(200), 'sqlserver'))[0], `[${'x'.repeat(128)}]`);
  assert.deepEqual((await nameOf('x'.repeat(200), 'mysql'))[0], `\`${'x'.repeat(64)}\``);
  assert.deepEqual((await nameOf('ñ'.repeat(40), 'postgres'))[0], `"${'ñ'.repeat(31)}"`);
});

test('excel-to-sql: a title row alone gives a table without rows; an empty sheet is invalid_file', async (t) => {
  const { sql, messages } = await script(inputFile('t.csv', 'a,b\n'));
  assert.equal(sql, 'CREATE TABLE "datos" (\n  "a" VARCHAR(10),\n  "b" VARCHAR(10)\n);\n');
  assert.match(messages.at(-1)!.text, /0 fila\(s\) y 2 columna\(s\) en 0 sentencia/);
  await withEngine(t, 'sqlite', async () => {
    assert.deepEqual(await load('sqlite', sql, 'datos'), { columns: [{ name: 'a', type: 'VARCHAR(10)' }, { name: 'b', type: 'VARCHAR(10)' }], rows: [] });
  });
  await rejectsWith(runTool(tool, [await workbook('vacio.xlsx', [])]), 'invalid_file', { option: 'file' });
});

test('excel-to-sql: mysql keeps a wide table of long texts within the row size (the widest become TEXT)', async (t) => {
  // 69 VARCHAR(255) (1,022 bytes each in utf8mb4) and one VARCHAR(100) are 70,920 bytes: six must go.
  const titles = Array.from({ length: 70 }, (_, i) => `c${i + 1}`);
  const row = titles.map((_, i) => 'é'.repeat(100 + i));
  const { sql } = await script(await workbook('ancho.xlsx', [titles, row]), { dialect: 'mysql' });
  assert.deepEqual([...sql.matchAll(/`(c\d+)` TEXT/g)].map((m) => m[1]), ['c65', 'c66', 'c67', 'c68', 'c69', 'c70']);
  assert.match(sql, /`c1` VARCHAR\(100\),\n {2}`c2` VARCHAR\(255\)/);
  await withEngine(t, 'mariadb', async () => {
    const back = await load('mariadb', sql, 'datos');
    assert.deepEqual(back.rows, [row]);
  });
});

test('excel-to-sql: messages and generated names follow language; preview shows the SQL columns', async () => {
  const out = await runTool(tool, [inputFile('t.csv', 'a,,A\n1,2,3\n')], { language: 'en' });
  assert.deepEqual(out.preview?.columns, ['a', 'Column 2', 'A_2']);
  assert.deepEqual(out.preview?.rows, [[1, 2, 3]]);
  assert.deepEqual(out.messages.map((m) => m.text), [
    '2 column name(s) changed for SQL (empty titles, repeats ignoring case, too long or with characters the dialect refuses): "" → "Column 2", "A" → "A_2".',
    'SQL script (standard) for table "datos": 1 row(s) and 3 column(s) in 1 INSERT statement(s).',
  ]);
});

test('excel-to-sql: option errors name their option; only xlsx, xls and csv are read', async () => {
  const f = inputFile('t.csv', 'a\n1\n');
  for (const bad of [0, 1001, -1, 1.5, '10', null]) {
    await rejectsWith(runTool(tool, [f], { 'batch-size': bad }), 'invalid_option', { option: 'batch-size' });
  }
  assert.equal(inserts((await script(f, { 'batch-size': 1000 })).sql).length, 1);
  for (const bad of ['oracle', 'MySQL', '', 1]) {
    await rejectsWith(runTool(tool, [f], { dialect: bad }), 'invalid_option', { option: 'dialect' });
  }
  await rejectsWith(runTool(tool, [f], { 'create-table': 'false' }), 'invalid_option', { option: 'create-table' });
  await rejectsWith(runTool(tool, [f], { 'table-name': 7 }), 'invalid_option', { option: 'table-name' });
  await rejectsWith(runTool(tool, [f], { 'table-name': 'x'.repeat(256) }), 'invalid_option', { option: 'table-name' });
  await rejectsWith(runTool(tool, [f], { table: 'x' }), 'unknown_option', { option: 'table' });
  await rejectsWith(runTool(tool, [inputFile('t.json', '[{"a":1}]')]), 'unsupported_format', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('t.ods', 'x')]), 'unsupported_format', { option: 'file' });
});

test('excel-to-sql: an .xls reads its first sheet; its mixed column is text in every engine form', async (t) => {
  const { sql, messages } = await script(fixture('ventas.xls'), { dialect: 'postgres' });
  assert.deepEqual(messages.map((m) => m.level), ['warning', 'warning', 'info']);
  await withEngine(t, 'postgres', async () => {
    const back = await load('postgres', sql, 'datos');
    assert.deepEqual(back.rows, [
      [d(2024, 1, 15), 'Córdoba', '00123', true],
      [d(2024, 2, 15, 12), 'Logroño', '42', false],
    ]);
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import tool from '../../../tools/merge-split/merge-stack.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { d, readXlsx } from '../../helpers/read-xlsx.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { generator } from '../../helpers/hard-csv.ts';
import { createContext } from '../../../tools/core/execute.ts';
import { NOT_XML } from '../../../tools/formats/removed.ts';
import { readCsv } from '../../../tools/formats/csv/read.ts';
import { stackTables } from '../../helpers/stack-tables.ts';
import { writeXlsx } from '../../../tools/formats/xlsx/write.ts';

const ventas = [
  [d(2024, 1, 15), 'Muñoz Peña', '00123', 1250.5, true, '=SUM(A1)'],
  [d(2024, 2, 29, 13, 45), 'Ángela Ibáñez', '4111111111111111', -3, false, '+34 600 000 000'],
  [d(2023, 12, 31), 'Çedille & Co', '007', 0.1, true, '@mención'],
  [null, 'Total', null, 2501, null, null],
];

test('merge-stack: defaults match columns by name, add the source column, and report every difference', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx'), fixture('ventas-2.xlsx')]);
  assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['combinado.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']]);
  const sheets = await readXlsx(out.files[0].bytes);
  assert.equal(sheets.length, 1);
  assert.equal(sheets[0].name, 'combinado');
  assert.deepEqual(sheets[0].rows, [
    ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas', 'Región', 'Archivo de origen'],
    ...ventas.map((r) => [...r, null, 'ventas.xlsx']),
    [d(2024, 3, 1), 'Zoë', '0042', 99.99, null, 'texto', 'Andalucía', 'ventas-2.xlsx'],
  ]);
  assert.deepEqual(out.messages.map((m) => m.level), ['warning', 'warning', 'warning']);
  assert.match(out.messages[0].text, /ventas-2\.xlsx.*«Febrero».*"Resumen"/);
  assert.match(out.messages[1].text, /«ventas-2\.xlsx» no tiene estas columnas de «ventas\.xlsx»: "Pagado"/);
  assert.match(out.messages[2].text, /«ventas-2\.xlsx» tiene columnas que no están en «ventas\.xlsx»: "Región"/);
  assert.deepEqual(out.preview?.columns, ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas', 'Región', 'Archivo de origen']);
  assert.deepEqual(out.preview?.rows[0], ['2024-01-15', 'Muñoz Peña', '00123', 1250.5, true, '=SUM(A1)', null, 'ventas.xlsx']);
  assert.equal(out.preview?.totalRows, 5);
  assert.equal(out.textPreview, null);
});

test('merge-stack: match-by-name false combines by position under the first file\'s titles, with a warning', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx'), fixture('ventas-2.xlsx')], { 'match-by-name': false, 'add-source-column': false });
  const [sheet] = await readXlsx(out.files[0].bytes);
  assert.deepEqual(sheet.rows[0], ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas']);
  assert.deepEqual(sheet.rows[5], [99.99, 'Zoë', d(2024, 3, 1), '0042', 'texto', 'Andalucía']);
  assert.ok(out.messages.some((m) => m.level === 'warning' && /títulos de «ventas-2\.xlsx» no coinciden/.test(m.text) && /A: Fecha ≠ importe/.test(m.text)));
});

test('merge-stack: same titles in another order and case are matched, and no warning is given', async () => {
  const a = inputFile('a.csv', 'Nombre,Importe\nAna,1\n');
  const b = inputFile('b.csv', ' importe ,NOMBRE\n2,Luis\n');
  const out = await runTool(tool, [a, b], { 'add-source-column': false });
  assert.deepEqual((await readXlsx(out.files[0].bytes))[0].rows, [['Nombre', 'Importe'], ['Ana', 1], ['Luis', 2]]);
  assert.deepEqual(out.messages, []);
});

test('merge-stack: source-column-name sets the title of the source column', async () => {
  const out = await runTool(tool, [inputFile('a.csv', 'x\n1\n'), inputFile('b.csv', 'x\n2\n')], { 'source-column-name': 'Origen' });
  assert.deepEqual((await readXlsx(out.files[0].bytes))[0].rows, [['x', 'Origen'], [1, 'a.csv'], [2, 'b.csv']]);
});

test('merge-stack: has-header false stacks by position with no title row', async () => {
  const out = await runTool(tool, [inputFile('a.csv', 'x,y\n1,2\n'), inputFile('b.csv', '3,4,5\n')], { 'has-header': false });
  assert.deepEqual((await readXlsx(out.files[0].bytes))[0].rows, [
    ['x', 'y', null, 'a.csv'],
    [1, 2, null, 'a.csv'],
    [3, 4, 5, 'b.csv'],
  ]);
  assert.deepEqual(out.preview?.columns, ['A', 'B', 'C', 'D']);
});

test('merge-stack: CSV, xlsx and xls together; CSV values are typed, ids and formula-like text stay text', async () => {
  const out = await runTool(tool, [fixture('ventas.csv'), fixture('ventas.xlsx'), fixture('ventas.xls')]);
  const [sheet] = await readXlsx(out.files[0].bytes);
  assert.deepEqual(sheet.rows[0], ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas', 'Ciudad', 'Activo', 'Archivo de origen']);
  assert.deepEqual(sheet.rows[1], [d(2024, 3, 10), 'Íñigo', '000789', 12.5, false, '=1+1', null, null, 'ventas.csv']);
  assert.deepEqual(sheet.rows[2], [d(2024, 3, 11), 'Ana', 15, 7, true, null, null, null, 'ventas.csv']);
  assert.deepEqual(sheet.rows[7], [d(2024, 1, 15), null, '00123', null, null, null, 'Córdoba', true, 'ventas.xls']);
  assert.ok(sheet.rows.flat().every((c) => c === null || typeof c !== 'object' || c instanceof Date), 'no formula cells');
});

test('merge-stack: an empty file is refused as invalid_file naming it, not merged as nothing', async () => {
  await assert.rejects(runTool(tool, [inputFile('a.csv', 'x\n1\n'), inputFile('vacio.csv', '')]), (e: { code: string; detail: { option: string; params: { name: string } } }) => {
    assert.equal(e.code, 'invalid_file');
    assert.equal(e.detail.option, 'files');
    assert.equal(e.detail.params.name, 'vacio.csv');
    return true;
  });
});

test('merge-stack: a file with titles but no rows adds no row and no warning', async () => {
  const out = await runTool(tool, [inputFile('a.csv', 'x\n1\n'), inputFile('vacio.csv', 'x\n')], { 'add-source-column': false });
  assert.deepEqual((await readXlsx(out.files[0].bytes))[0].rows, [['x'], [1]]);
  assert.deepEqual(out.messages, []);
});

test('merge-stack: names in English', async () => {
  const out = await runTool(tool, [inputFile('a.csv', 'x\n1\n'), inputFile('b.csv', 'x\n2\n')], { language: 'en' });
  assert.equal(out.files[0].name, 'merged.xlsx');
  const [sheet] = await readXlsx(out.files[0].bytes);
  assert.equal(sheet.name, 'merged');
  assert.deepEqual(sheet.rows[0], ['x', 'Source file']);
});

test('merge-stack: file count, format and option errors', async () => {
  const one = inputFile('a.csv', 'x\n1\n');
  await rejectsWith(runTool(tool, [one]), 'too_few_files', { option: 'files', params: { min: 2 } });
  await rejectsWith(runTool(tool, new Array(21).fill(one)), 'too_many_files', { option: 'files', params: { max: 20 } });
  await rejectsWith(runTool(tool, [one, inputFile('b.json', '[]')]), 'unsupported_format', { option: 'files', params: { name: 'b.json' } });
  await rejectsWith(runTool(tool, [one, one], { 'match-by-name': 'yes' }), 'invalid_option', { option: 'match-by-name' });
  await rejectsWith(runTool(tool, [one, one], { 'source-column-name': 'x'.repeat(256) }), 'invalid_option', { option: 'source-column-name' });
  await rejectsWith(runTool(tool, [one, one], { 'match-by-title': true }), 'unknown_option', { option: 'match-by-title' });
  await rejectsWith(runTool(tool, [one, inputFile('roto.xlsx', 'a,b\n1,2\n')]), 'invalid_file', { option: 'files', params: { name: 'roto.xlsx', format: 'xlsx' } });
});

test('merge-stack: 20 files are accepted', async () => {
  const files = Array.from({ length: 20 }, (_, i) => inputFile(`f${i + 1}.csv`, `n\n${i + 1}\n`));
  const out = await runTool(tool, files, { 'add-source-column': false });
  const [sheet] = await readXlsx(out.files[0].bytes);
  assert.deepEqual(sheet.rows, [['n'], ...Array.from({ length: 20 }, (_, i) => [i + 1])]);
});

test('merge-stack: files of thousands of rows are stacked batch by batch, every row in order under its column', async () => {
  const a = ['id;nombre;importe', ...Array.from({ length: 9_000 }, (_, i) => `${i};a${i};${i},5`)].join('\n');
  const b = ['importe;id;extra', ...Array.from({ length: 5_000 }, (_, i) => `${i},25;${i + 9_000};x${i}`)].join('\n');
  const out = await runTool(tool, [inputFile('a.csv', a), inputFile('b.csv', b)]);
  const [sheet] = await readXlsx(out.files[0].bytes);
  assert.deepEqual(sheet.rows[0], ['id', 'nombre', 'importe', 'extra', 'Archivo de origen']);
  assert.equal(sheet.rows.length, 1 + 14_000);
  for (let i = 0; i < 9_000; i++) assert.deepEqual(sheet.rows[1 + i], [i, `a${i}`, i + 0.5, null, 'a.csv'], `row ${i + 2}`);
  for (let i = 0; i < 5_000; i++) assert.deepEqual(sheet.rows[9_001 + i], [i + 9_000, null, i + 0.25, `x${i}`, 'b.csv'], `row ${i + 9_002}`);
  assert.equal(out.preview?.totalRows, 14_000);
  assert.deepEqual(out.preview?.rows[0], [0, 'a0', 0.5, null, 'a.csv']);
});

test('merge-stack: CSVs typed as they are stacked give the workbook of stacking readCsv tables, on 300 generated pairs', async () => {
  const ctx = createContext('es', new AbortController().signal, []);
  const next = generator(31337);
  let compared = 0;
  for (let t = 0; t < 300; t++) {
    const files = [inputFile('uno.csv', next()), inputFile('dos.csv', next())];
    const hasHeader = t % 3 !== 0;
    const messages: string[] = [];
    let want: Uint8Array;
    let removed = 0;
    try {
      const tables = files.map((f) => ({ label: f.name, table: readCsv(f, { hasHeader, detectTypes: true, report: (...m) => void messages.push(m[1]) }).table }));
      const stacked = stackTables(tables, { name: 'combinado', hasHeader, matchByName: t % 2 === 0, labelColumn: 'Archivo de origen', report: (...m) => void messages.push(m[1]) });
      // The writer's one warning for characters XML cannot hold, when the stacked table has some.
      removed = [stacked.titleCells ?? stacked.header ?? [], ...stacked.rows].some((r) => r.some((c) => typeof c === 'string' && NOT_XML.test(c))) ? 1 : 0;
      want = writeXlsx([stacked], ctx);
    } catch {
      continue;
    }
    const out = await runTool(tool, files, { 'has-header': hasHeader, 'match-by-name': t % 2 === 0 });
    assert.deepEqual(out.files[0].bytes, want, `pair ${t}`);
    assert.equal(out.messages.length, messages.length + removed, `pair ${t}: ${out.messages.map((m) => m.text).join(' | ')}`);
    compared++;
  }
  assert.ok(compared > 150, `only ${compared} compared`);
});

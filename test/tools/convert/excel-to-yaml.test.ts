// excel-to-yaml: results re-read by the `yaml` package (YAML 1.2) and PyYAML (YAML 1.1), never by the writer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import ExcelJS from 'exceljs';
import YAML from 'yaml';
import tool from '../../../tools/convert/excel-to-yaml.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const pyYaml = (t: string): unknown =>
  JSON.parse(execFileSync('/usr/bin/python3', ['-c', 'import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read()), default=str))'], { input: t }).toString('utf8'));

test('excel-to-yaml: ventas.xlsx as a list of mappings in machine form (yaml 1.2 and PyYAML agree)', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')]);
  const [y] = out.files;
  assert.deepEqual([y.name, y.contentType], ['ventas.yaml', 'application/yaml; charset=utf-8']);
  const doc = text(y.bytes);
  assert.ok(!doc.startsWith('---') && !doc.includes('\r') && doc.endsWith('\n'));
  assert.equal(doc.split('\n').slice(0, 6).join('\n'), ['- Fecha: 2024-01-15', '  Cliente: Muñoz Peña', "  Código: '00123'", '  Importe: 1250.5', '  Pagado: true', '  Notas: =SUM(A1)'].join('\n'));
  const parsed = YAML.parse(doc) as Record<string, unknown>[];
  assert.equal(parsed.length, 4);
  assert.deepEqual(parsed[1], { Fecha: '2024-02-29T13:45:00', Cliente: 'Ángela Ibáñez', Código: '4111111111111111', Importe: -3, Pagado: false, Notas: '+34 600 000 000' });
  assert.deepEqual(parsed[3], { Fecha: null, Cliente: 'Total', Código: null, Importe: 2501, Pagado: null, Notas: null });
  // PyYAML (YAML 1.1) reads timestamps as dates: everything else is the same value.
  const py = pyYaml(doc) as Record<string, unknown>[];
  assert.deepEqual(py[1], { ...parsed[1], Fecha: '2024-02-29 13:45:00' });
  assert.deepEqual(py[0].Código, '00123');
  assert.match(out.messages.at(-1)!.text, /4 fila\(s\) y 6 columna\(s\) de la hoja «Ventas» en YAML/);
});

test('excel-to-yaml: tricky text stays text, keys are unique and quoted, skip-empty-values, arrays', async () => {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Datos');
  ws.addRow(['yes', 'yes', '', 'on: off', 'n']);
  ws.addRow(['no', '0012', 'x', '12:30', null]);
  ws.addRow(['1e3', '  espacios ', 'línea 1\nlínea 2', '2024-03-15', true]);
  const file = inputFile('d.xlsx', new Uint8Array(await wb.xlsx.writeBuffer()));
  const out = await runTool(tool, [file]);
  const doc = text(out.files[0].bytes);
  const expected = [
    { yes: 'no', yes_2: '0012', 'Columna 3': 'x', 'on: off': '12:30', n: null },
    { yes: '1e3', yes_2: '  espacios ', 'Columna 3': 'línea 1\nlínea 2', 'on: off': '2024-03-15', n: true },
  ];
  assert.deepEqual(YAML.parse(doc, { version: '1.2' }), expected);
  assert.deepEqual(YAML.parse(doc, { version: '1.1' }), expected);
  assert.deepEqual(pyYaml(doc), expected);
  assert.ok(out.messages.some((m) => m.level === 'info' && /yes/.test(m.text)), 'repeated keys listed');
  const skipped = YAML.parse(text((await runTool(tool, [file], { 'skip-empty-values': true })).files[0].bytes));
  assert.deepEqual(skipped[0], { yes: 'no', yes_2: '0012', 'Columna 3': 'x', 'on: off': '12:30' });
  const arrays = text((await runTool(tool, [file], { shape: 'arrays', 'skip-empty-values': true })).files[0].bytes);
  assert.deepEqual(YAML.parse(arrays), [['no', '0012', 'x', '12:30', null], ['1e3', '  espacios ', 'línea 1\nlínea 2', '2024-03-15', true]]);
  assert.ok(arrays.startsWith("- - 'no'\n  - '0012'\n"), arrays);
  const bare = YAML.parse(text((await runTool(tool, [file], { 'has-header': false, language: 'en' })).files[0].bytes));
  assert.equal(bare.length, 3);
  assert.deepEqual(Object.keys(bare[0]), ['Column 1', 'Column 2', 'Column 3', 'Column 4', 'Column 5']);
});

test('excel-to-yaml: a CSV is typed by csv-to-excel rules; 00123 and +34 stay text', async () => {
  const doc = text((await runTool(tool, [inputFile('c.csv', 'id,tel,importe,fecha,ok\n00123,+34 600 000 000,1.50,2024-01-31,true\n')])).files[0].bytes);
  assert.deepEqual(YAML.parse(doc), [{ id: '00123', tel: '+34 600 000 000', importe: 1.5, fecha: '2024-01-31', ok: true }]);
  assert.match(doc, /fecha: 2024-01-31\n/);
});

test('excel-to-yaml: titles only give an empty list; nothing is invalid_file; bad options name themselves', async () => {
  assert.equal(text((await runTool(tool, [inputFile('t.csv', 'a,b\n')])).files[0].bytes), '[]\n');
  await rejectsWith(runTool(tool, [inputFile('v.csv', '\n\n')]), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { shape: 'tree' }), 'invalid_option', { option: 'shape' });
});

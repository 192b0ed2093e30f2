// markdown-to-excel: tables found where GFM finds them, markup reduced or kept, the results re-read by openpyxl
// (xlsx) and as text (csv).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import tool from '../../../tools/convert/markdown-to-excel.ts';
import { inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { openpyxlSheets } from '../../helpers/openpyxl.ts';
import { textOf } from '../../helpers/typed-titles.ts';
import { t } from '../../../locales/index.ts';

const DOC = `# Informe

Texto antes.

## Ventas *2024*

| Región | Importe | Fecha | Pagado |
| :--- | ---: | :---: | --- |
| **Norte** | 1250.5 | 2024-01-15 | true |
| [Sur](http://example.com) | 00123 | 15/02/2024 | falso |
| Este |

> | Cita | Valor |
> | --- | --- |
> | en cita | 1 |

- Lista:

  | En lista |
  | --- |
  | dentro |

\`\`\`
| Código | No |
| --- | --- |
| no es | tabla |
\`\`\`

    | indentado | no |
    | --- | --- |

| Sin | encabezado | cerca |
|---|---|---|
| a | b | c | d | e |
| x \\| y | \`a\\|b\` | <b>negrita</b><br>línea &amp; &copy; ![alt](img.png) \\* |
`;

test('markdown-to-excel: every GFM table, in quotes and lists, none in code; sheets named after headings (openpyxl)', async () => {
  const out = await runTool(tool, [inputFile('respuesta.md', DOC)]);
  assert.deepEqual(out.files.map((f) => [f.name, f.contentType]), [['respuesta.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']]);
  const sheets = openpyxlSheets(out.files[0].bytes);
  assert.deepEqual(sheets.map((s) => s.name), ['Ventas 2024', 'Ventas 2024 (2)', 'Ventas 2024 (3)', 'Ventas 2024 (4)']);
  assert.deepEqual(sheets[0].rows, [
    ['Región', 'Importe', 'Fecha', 'Pagado'],
    ['Norte', 1250.5, { date: '2024-01-15T00:00:00' }, true],
    ['Sur', '00123', { date: '2024-02-15T00:00:00' }, false],
    ['Este', null, null, null],
  ]);
  assert.deepEqual(sheets[1].rows, [['Cita', 'Valor'], ['en cita', 1]]);
  assert.deepEqual(sheets[2].rows, [['En lista'], ['dentro']]);
  assert.deepEqual(sheets[3].rows, [
    ['Sin', 'encabezado', 'cerca', 'Columna 4', 'Columna 5'],
    ['a', 'b', 'c', 'd', 'e'],
    ['x | y', 'a|b', 'negrita\nlínea & © alt *', null, null],
  ]);
  const warning = out.messages.find((m) => m.level === 'warning');
  assert.match(warning!.text, /1 fila\(s\) con más celdas.*2 columna\(s\) más/);
  assert.match(out.messages.at(-1)!.text, /4 tabla\(s\) encontrada\(s\), 4 convertida\(s\) con 7 fila\(s\)/);
  assert.deepEqual(out.preview?.columns, ['Región', 'Importe', 'Fecha', 'Pagado']);
});

test('markdown-to-excel: keep-markdown keeps cells as written but for escaped pipes and <br>; detect-types=false keeps text', async () => {
  const out = await runTool(tool, [inputFile('r.md', DOC)], { 'keep-markdown': true, 'detect-types': false, table: 4 });
  const [sheet] = openpyxlSheets(out.files[0].bytes);
  assert.equal(sheet.name, 'Ventas 2024');
  assert.deepEqual(sheet.rows[2], ['x | y', '`a|b`', '<b>negrita</b>\nlínea &amp; &copy; ![alt](img.png) \\*', null, null]);
  const first = openpyxlSheets((await runTool(tool, [inputFile('r.md', DOC)], { 'detect-types': false, table: '1' })).files[0].bytes)[0];
  assert.deepEqual(first.rows[1], ['Norte', '1250.5', '2024-01-15', 'true']);
});

test('markdown-to-excel: format=csv gives one CSV for one table, one per table named after its sheet for several', async () => {
  const one = await runTool(tool, [inputFile('r.md', DOC)], { format: 'csv', table: 2 });
  assert.deepEqual(one.files.map((f) => [f.name, f.contentType]), [['r.csv', 'text/csv; charset=utf-8']]);
  assert.equal(textOf(one.files[0].bytes), '\uFEFFCita,Valor\r\nen cita,1\r\n');
  const all = await runTool(tool, [inputFile('r.md', '| a |\n|---|\n| 1 |\n\n## Dos\n\n| b |\n|---|\n| 2 |\n')], { format: 'csv' });
  assert.deepEqual(all.files.map((f) => f.name), ['Tabla 1.csv', 'Dos.csv']);
  const en = await runTool(tool, [inputFile('r.markdown', '| a |\n|---|\n| 1 |\n\n| b |\n|---|\n')], { format: 'csv', language: 'en' });
  assert.deepEqual(en.files.map((f) => f.name), ['Table 1.csv', 'Table 2.csv']);
  assert.equal(textOf(en.files[1].bytes), '\uFEFFb\r\n');
});

test('markdown-to-excel: text encodings as §2.2 says: BOM, windows-1252, and NUL bytes refused', async () => {
  const latin = Buffer.from('| Año | Señal |\n|---|---|\n| 2024 | sí |\n', 'latin1');
  const sheet = openpyxlSheets((await runTool(tool, [inputFile('l.md', new Uint8Array(latin))])).files[0].bytes)[0];
  assert.deepEqual(sheet.rows, [['Año', 'Señal'], [2024, 'sí']]);
  const bom = openpyxlSheets((await runTool(tool, [inputFile('b.md', '\uFEFF| a |\n|---|\n| x |\n')])).files[0].bytes)[0];
  assert.deepEqual(bom.rows, [['a'], ['x']]);
  await rejectsWith(runTool(tool, [inputFile('n.md', '| a |\n|---|\n| \u0000 |\n')]), 'invalid_file', { option: 'file' });
});

test('markdown-to-excel: no table, a table beyond the count, deep nesting and bad options are refused with their codes', async () => {
  await rejectsWith(runTool(tool, [inputFile('t.md', '# Título\n\n| a | b |\n| sin separador |\n')]), 'invalid_file', { option: 'file' });
  await assert.rejects(runTool(tool, [inputFile('t.md', 'texto\n')]), (err: { detail: { messageKey: string; params: Record<string, string> } }) => {
    assert.equal(err.detail.messageKey, 'error-details.no-table');
    assert.match(t('es', err.detail.messageKey, err.detail.params), /«t\.md» no contiene ninguna tabla.*`\| --- \| --- \|`/);
    return true;
  });
  await rejectsWith(runTool(tool, [inputFile('t.md', DOC)], { table: 5 }), 'invalid_option', { option: 'table' });
  await rejectsWith(runTool(tool, [inputFile('t.md', DOC)], { table: 'dos' }), 'invalid_option', { option: 'table' });
  await rejectsWith(runTool(tool, [inputFile('t.md', DOC)], { format: 'ods' }), 'invalid_option', { option: 'format' });
  await rejectsWith(runTool(tool, [inputFile('t.md', '>'.repeat(5000) + ' | a |\n' + '>'.repeat(5000) + ' |---|\n')]), 'invalid_file', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('t.txt', DOC)]), 'unsupported_format', { option: 'file' });
});

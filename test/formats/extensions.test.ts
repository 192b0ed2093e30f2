// Macro-enabled workbooks and templates (.xlsm .xltx .xltm) are admitted wherever .xlsx is, and tab-separated
// .tsv / .txt wherever .csv is (issue 16): through a tool, through the HTTP door, and in the catalogue. The
// packages differ from an .xlsx only in the workbook's content type (and a VBA part), as Excel writes them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import excelToCsv from '../../tools/convert/excel-to-csv.ts';
import csvToExcel from '../../tools/convert/csv-to-excel.ts';
import excelToJson from '../../tools/convert/excel-to-json.ts';
import { inputFile, runTool } from '../helpers/run-tool.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';
import { textOf } from '../helpers/typed-titles.ts';
import { bodyOf, fileObject, formOf, postForm, postRun, startServer, type TestServer } from '../helpers/http.ts';
import { packageParts, row } from '../helpers/xlsx-package.ts';
import { zipSync } from 'fflate';

const MAIN_TYPES: Record<string, string> = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
  xlsm: 'application/vnd.ms-excel.sheet.macroEnabled.main+xml',
  xltx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml',
  xltm: 'application/vnd.ms-excel.template.macroEnabled.main+xml',
};

/** A package as Excel saves it under `ext`: the workbook's content type, and a VBA project when macro-enabled. */
function workbook(ext: string): Uint8Array {
  const parts = packageParts({
    sheets: [{ name: 'Datos', xml: row(1, '<c r="A1" t="inlineStr"><is><t>id</t></is></c><c r="B1" t="inlineStr"><is><t>total</t></is></c>') + row(2, '<c r="A2" t="inlineStr"><is><t>007</t></is></c><c r="B2"><v>12.5</v></c>') }],
  });
  let types = (parts['[Content_Types].xml'] as string).replace(MAIN_TYPES.xlsx, MAIN_TYPES[ext]);
  if (ext.endsWith('m')) {
    types = types.replace('</Types>', '<Default Extension="bin" ContentType="application/vnd.ms-office.vbaProject"/></Types>');
    parts['xl/vbaProject.bin'] = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]);
    parts['xl/_rels/workbook.xml.rels'] = (parts['xl/_rels/workbook.xml.rels'] as string).replace('</Relationships>', '<Relationship Id="rIdV" Type="http://schemas.microsoft.com/office/2006/relationships/vbaProject" Target="vbaProject.bin"/></Relationships>');
  }
  parts['[Content_Types].xml'] = types;
  const enc = new TextEncoder();
  return zipSync(Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, typeof v === 'string' ? enc.encode(v) : v])));
}

for (const ext of ['xlsm', 'xltx', 'xltm']) {
  test(`.${ext} is read as the xlsx package it is; macros are said to be neither run nor kept`, async () => {
    const out = await runTool(excelToCsv, [inputFile(`libro.${ext}`, workbook(ext))], { language: 'en' });
    assert.equal(out.files[0].name, 'libro.csv');
    assert.equal(textOf(out.files[0].bytes).replace(/^\uFEFF/, ''), 'id,total\r\n007,12.5\r\n');
    const macros = out.messages.filter((m) => /macros/.test(m.text));
    if (ext === 'xltx') assert.deepEqual(macros, []);
    else assert.deepEqual(macros, [{ level: 'info', text: `The file "libro.${ext}" is a .${ext} workbook: its macros were not run and are not in the result.` }]);
    assert.equal(out.messages.some((m) => /not an \./.test(m.text)), false, 'no "read as" message: the content is what the name says');
  });
}

test('a macro-enabled workbook written back is a plain .xlsx without the VBA project', async () => {
  const { default: flatten } = await import('../../tools/merge-split/flatten-sheets.ts');
  const out = await runTool(flatten, [inputFile('libro.xlsm', workbook('xlsm'))], { language: 'en' });
  assert.match(out.files[0].name, /\.xlsx$/);
  const { unzipSync } = await import('fflate');
  assert.deepEqual(Object.keys(unzipSync(out.files[0].bytes)).filter((n) => /vba/i.test(n)), []);
});

test('.tsv and .txt are read as delimited text wherever .csv is; a .tsv is split at tabs', async () => {
  const tsv = await runTool(csvToExcel, [inputFile('datos.tsv', 'nombre\tnota\nPérez, Juan\t7,5\nAna; Eva\t8\n')], { language: 'en' });
  assert.equal(tsv.files[0].name, 'datos.xlsx');
  const [sheet] = await readXlsx(tsv.files[0].bytes);
  assert.deepEqual(sheet.rows, [['nombre', 'nota'], ['Pérez, Juan', 7.5], ['Ana; Eva', 8]]);
  // A one-column .tsv whose values hold commas: a comma is no delimiter of a .tsv.
  const single = await runTool(csvToExcel, [inputFile('lista.tsv', 'nombre\nPérez, Juan\nGómez, Ana\n')]);
  assert.deepEqual((await readXlsx(single.files[0].bytes))[0].rows, [['nombre'], ['Pérez, Juan'], ['Gómez, Ana']]);
  const txt = await runTool(excelToJson, [inputFile('export.txt', 'id\ttotal\n001\t3\n')]);
  assert.deepEqual(JSON.parse(textOf(txt.files[0].bytes)), [{ id: '001', total: 3 }]);
});

let srv: TestServer;
before(async () => {
  srv = await startServer({}, { jobs: 'inline' });
});
after(() => srv.close());

test('HTTP: the catalogue lists the new extensions, the run endpoint takes them (JSON and multipart), others stay refused', async () => {
  const entries = await bodyOf(await fetch(`${srv.url}/api/v1/tools?lang=en`));
  const toCsv = entries.find((e: { id: string }) => e.id === 'excel-to-csv');
  assert.deepEqual(toCsv.input.formats, ['.xlsx', '.xlsm', '.xltx', '.xltm', '.xls']);
  assert.deepEqual(entries.find((e: { id: string }) => e.id === 'csv-to-excel').input.formats, ['.csv', '.tsv', '.txt']);

  const viaJson = await postRun(srv.url, 'excel-to-csv', { file: fileObject('macro.xlsm', workbook('xlsm')), language: 'en' });
  assert.equal(viaJson.status, 200);
  const body = await bodyOf(viaJson);
  assert.equal(Buffer.from(body.files[0].contentBase64, 'base64').toString('utf8').replace(/^\uFEFF/, ''), 'id,total\r\n007,12.5\r\n');
  assert.ok(body.messages.some((m: { text: string }) => /macros were not run/.test(m.text)));

  const viaForm = await postForm(srv.url, 'csv-to-excel', formOf([{ name: 'datos.tsv', content: 'a\tb\n1\t2\n', field: 'file' }]));
  assert.equal(viaForm.status, 200);

  const refused = await postRun(srv.url, 'excel-to-csv', { file: fileObject('libro.xlsb', workbook('xlsx')), language: 'en' });
  assert.equal(refused.status, 400);
  const err = await bodyOf(refused);
  assert.deepEqual([err.ok, err.error, err.option], [false, 'unsupported_format', 'file']);
  assert.match(err.message, /\.xlsx, \.xlsm, \.xltx, \.xltm, \.xls\b/);
});

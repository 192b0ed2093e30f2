// Files are read as what their bytes are, not as what their names say (tools/formats/open.ts): the exports of
// web applications that name HTML tables or tab-separated text ".xls", a BIFF8 workbook saved as ".xlsx", a
// UTF-16 CSV with tabs. Each is read as what it is, and an info message says so when the name said otherwise;
// bytes that are no spreadsheet are refused with invalid_file whatever the name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { zipSync } from 'fflate';
import * as XLSX from 'xlsx';
import excelToCsv from '../../tools/convert/excel-to-csv.ts';
import excelToJson from '../../tools/convert/excel-to-json.ts';
import csvToExcel from '../../tools/convert/csv-to-excel.ts';
import mergeSheets from '../../tools/merge-split/merge-sheets.ts';
import type { AnyTool } from '../../tools/core/define.ts';
import { fixture, inputFile, runTool } from '../helpers/run-tool.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';
import { rejectsWith } from '../helpers/tool-error.ts';
import { d } from '../helpers/read-xlsx.ts';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

test('sniff: an .xls that is an HTML table (a web export) is read as its table, typed, with an info message', async () => {
  const html = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Informe</title><style>td{color:red}</style></head><body>
    <p>Informe de ventas</p>
    <table border="1">
      <thead><tr><th>Fecha</th><th>Cliente</th><th>Código</th><th>Importe</th></tr></thead>
      <tbody>
        <tr><td>2024-01-15</td><td>Muñoz &amp; Peña</td><td>00123</td><td>1250.5</td></tr>
        <tr><td>2024-02-29</td><td><b>Ángela</b><br>Ibáñez</td><td>007</td><td>-3</td></tr>
        <tr><td colspan="2">Total</td><td></td><td>1247.5</td></tr>
      </tbody>
    </table><script>document.write('<table><tr><td>no</td></tr></table>')</script></body></html>`;
  const out = await runTool(excelToJson, [inputFile('informe.xls', html)], { pretty: false });
  assert.deepEqual(JSON.parse(text(out.files[0].bytes)), [
    { Fecha: '2024-01-15', Cliente: 'Muñoz & Peña', Código: '00123', Importe: 1250.5 },
    { Fecha: '2024-02-29', Cliente: 'Ángela\nIbáñez', Código: '007', Importe: -3 },
    { Fecha: 'Total', Cliente: null, Código: null, Importe: 1247.5 },
  ]);
  assert.equal(out.messages[0].level, 'info');
  assert.match(out.messages[0].text, /«informe\.xls» no es un \.xls sino una página HTML con tablas/);
  // Its dates are dates: in a workbook result they are dates, not text.
  const merged = await runTool(mergeSheets, [inputFile('informe.xls', html), fixture('ventas.xlsx')]);
  const [sheet] = await readXlsx(merged.files[0].bytes);
  assert.deepEqual(sheet.rows[1].slice(0, 3), [d(2024, 1, 15), 'Muñoz & Peña', '00123']);
});

test('sniff: an .xls that is tab-separated text (UTF-16 "Unicode text" and UTF-8 alike) is read as that CSV, with a message', async () => {
  const tsv = 'Ciudad\tHabitantes\tCódigo\r\nMóstoles\t210000\t007\r\nÁvila\t58000\t05001\r\n';
  for (const bytes of [Buffer.from(tsv, 'utf8'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(tsv, 'utf16le')])]) {
    const out = await runTool(excelToCsv, [inputFile('export.xls', new Uint8Array(bytes))], { bom: false });
    assert.equal(text(out.files[0].bytes), 'Ciudad,Habitantes,Código\r\nMóstoles,210000,007\r\nÁvila,58000,05001\r\n');
    assert.match(out.messages[0].text, /«export\.xls» no es un \.xls sino texto delimitado \(delimitador: tabulador\)/);
  }
});

test('sniff: an .xlsx that is a BIFF8 workbook is read as the .xls it is, with a message', async () => {
  const xls = fixture('ventas.xls');
  const asXls = await runTool(excelToCsv, [xls], { 'all-sheets': true });
  const asXlsx = await runTool(excelToCsv, [fixture('ventas.xls', 'ventas.xlsx')], { 'all-sheets': true }, { lang: 'en' });
  assert.deepEqual(asXlsx.files.map((f) => Buffer.from(f.bytes)), asXls.files.map((f) => Buffer.from(f.bytes)));
  assert.equal(asXlsx.messages[0].level, 'info');
  assert.equal(asXlsx.messages[0].text, 'The file "ventas.xlsx" is not an .xlsx file but an Excel 97-2003 workbook (.xls): it was read as such.');
  // Named as what it is, there is nothing to say.
  assert.ok(!asXls.messages.some((m) => /no es un/.test(m.text)));
});

test('sniff: a .csv in UTF-16 with tabs and no BOM is read as UTF-16 tab-separated', async () => {
  const out = await runTool(csvToExcel, [inputFile('datos.csv', new Uint8Array(Buffer.from('Año\tCiudad\r\n2024\tÁvila\r\n2023\tLeón\r\n', 'utf16le')))], {}, { lang: 'en' });
  const [sheet] = await readXlsx(out.files[0].bytes);
  assert.deepEqual(sheet.rows, [['Año', 'Ciudad'], [2024, 'Ávila'], [2023, 'León']]);
  assert.match(out.messages[0].text, /"datos\.csv" \(UTF-16LE, delimiter: tab\)/);
});

test('sniff: bytes that are no spreadsheet are invalid_file whatever their name', async () => {
  const pdf = new TextEncoder().encode('%PDF-1.4\n%âãÏÓ\n1 0 obj << /Type /Catalog >> endobj\n\u0000\u0000trailer\n%%EOF\n');
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 1]);
  const docx = zipSync({ '[Content_Types].xml': new TextEncoder().encode('<Types/>'), 'word/document.xml': new TextEncoder().encode('<w:document/>') });
  const xml = new TextEncoder().encode('<?xml version="1.0"?><rss><channel><title>x</title></channel></rss>');
  const prose = new TextEncoder().encode('Estimado cliente:\nle escribimos para informarle de que su pedido ha salido hoy.\nUn saludo\n');
  for (const [name, bytes] of [
    ['informe.xls', pdf],
    ['foto.xlsx', png],
    ['carta.xlsx', docx],
    ['feed.xls', xml],
    ['carta.xls', prose],
    ['foto.csv', png],
    ['libro.csv', fixture('ventas.xlsx').bytes],
  ] as const) {
    const tool = (name.endsWith('.csv') ? csvToExcel : excelToCsv) as unknown as AnyTool;
    await rejectsWith(runTool(tool, [inputFile(name, bytes)]), 'invalid_file', { option: 'file', params: { name } });
  }
});

test('sniff: an .xls that is SpreadsheetML 2003 (Excel\'s XML) is read as such, with a message; a DTD in it is refused', async () => {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Año', 'Ciudad'], [2024, 'Ávila']]), 'Datos');
  const xml = XLSX.write(wb, { type: 'string', bookType: 'xlml' }) as string;
  const out = await runTool(excelToCsv, [inputFile('excel2003.xls', xml)], { bom: false });
  assert.equal(text(out.files[0].bytes), 'Año,Ciudad\r\n2024,Ávila\r\n');
  assert.match(out.messages[0].text, /«excel2003\.xls» no es un \.xls sino XML de Excel 2003 \(SpreadsheetML\)/);
  const withDtd = xml.replace('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "e">]>');
  assert.notEqual(withDtd, xml);
  await rejectsWith(runTool(excelToCsv, [inputFile('excel2003.xls', withDtd)]), 'invalid_file', { option: 'file', params: { name: 'excel2003.xls' } });
});

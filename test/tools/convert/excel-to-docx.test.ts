// excel-to-docx, re-read by Python (zipfile + ElementTree over the package) and by LibreOffice Writer, which
// converts it to text and to PDF (pages read by poppler): never by the writer that made it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import tool from '../../../tools/convert/excel-to-docx.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { libreOfficeConvert, readDocx } from '../../helpers/docx.ts';
import { pdfInfo, pdfPages } from '../../helpers/pdf.ts';
import { settledHeap } from '../../helpers/heap.ts';
import { writeDocx } from '../../../tools/formats/index.ts';

const csv = (name: string, rows: string[][]) => inputFile(name, rows.map((r) => r.map((f) => (/[",\n]/.test(f) ? `"${f.replace(/"/g, '""')}"` : f)).join(',')).join('\n') + '\n');
const listing = (n: number) => csv('listado.csv', [['Identificador', 'Nombre', 'Importe'], ...Array.from({ length: n }, (_, i) => [`id-${i + 1}`, `Nombre ${i + 1}`, String(i * 3)])]);

test('excel-to-docx: ventas.xlsx as a Word table in display form, titles bold and repeated, numbers and dates right (Python reader)', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')]);
  const [docx] = out.files;
  assert.deepEqual([docx.name, docx.contentType], ['ventas.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document']);
  const pkg = readDocx(docx.bytes);
  assert.equal(pkg.tables.length, 1);
  const [t] = pkg.tables;
  assert.deepEqual(t.header, [true, false, false, false, false], 'only the title row repeats');
  assert.ok(t.cantSplit.every(Boolean), 'no row breaks across pages');
  assert.deepEqual(t.rows.map((r) => r.map((c) => c.text)), [
    ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas'],
    ['15/01/2024', 'Muñoz Peña', '00123', '1250,5', 'VERDADERO', '=SUM(A1)'],
    ['29/02/2024 13:45', 'Ángela Ibáñez', '4111111111111111', '-3', 'FALSO', '+34 600 000 000'],
    ['31/12/2023', 'Çedille & Co', '007', '0,1', 'VERDADERO', '@mención'],
    ['', 'Total', '', '2501', '', ''],
  ]);
  assert.ok(t.rows[0].every((c) => c.bold) && t.rows.slice(1).flat().every((c) => !c.bold));
  assert.deepEqual(t.rows[2].map((c) => c.right), [true, false, false, true, false, false]);
  // A4 portrait, 15 mm margins, a table as wide as the text area, no column over 40 %.
  assert.deepEqual(pkg.page, { w: 11906, h: 16838, orient: null, margins: { top: 850, right: 850, bottom: 850, left: 850 } });
  const total = t.grid.reduce((a, b) => a + b, 0);
  assert.equal(total, 11906 - 2 * 850);
  assert.ok(t.grid.every((w) => w <= 0.4 * total + 1), String(t.grid));
  assert.ok(t.grid[2] > t.grid[3], 'a column of longer text is wider');
  assert.equal(pkg.title, 'Ventas');
  assert.equal(pkg.header, 'Ventas');
  assert.equal(pkg.creator, null, 'no author');
  assert.match(pkg.footer, /^Página \{PAGE\}1 de \{NUMPAGES\}1$/);
  assert.deepEqual(out.preview?.columns, ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas']);
  assert.match(out.messages.at(-1)!.text, /A4 en orientación vertical: una tabla de 4 fila\(s\) de datos y 6 columna\(s\)/);
});

test('excel-to-docx: LibreOffice opens it: text in order; over many pages the titles and "Página X de Y" are on every page', async () => {
  const small = (await runTool(tool, [fixture('ventas.xlsx')], { language: 'en', title: 'Sales 2024' })).files[0].bytes;
  const long = (await runTool(tool, [listing(400)])).files[0].bytes;
  const wide = (await runTool(tool, [csv('ancho.csv', [Array.from({ length: 7 }, (_, i) => `T${i + 1}`), Array.from({ length: 7 }, (_, i) => `v${i}`)])], { 'page-size': 'letter' })).files[0].bytes;
  const lines = csv('l.csv', [['Nota', 'N'], ['línea 1\nlínea 2', '1']]);
  const breaks = (await runTool(tool, [lines], { 'has-header': false })).files[0].bytes;
  const [smallText] = libreOfficeConvert([small], 'txt:Text').map((b) => b.toString('utf8').replace(/^\uFEFF/, ''));
  assert.deepEqual(smallText.split(/\r?\n/).slice(0, 12), ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas', '2024-01-15', 'Muñoz Peña', '00123', '1250.5', 'TRUE', '=SUM(A1)']);
  const [smallPdf, longPdf, widePdf, breaksPdf] = libreOfficeConvert([small, long, wide, breaks], 'pdf');
  assert.match(pdfPages(smallPdf)[0], /Sales 2024[\s\S]*Page 1 of 1/);
  const pages = pdfPages(longPdf);
  assert.ok(pages.length >= 4, `${pages.length} pages`);
  pages.forEach((page, i) => {
    assert.match(page, /Identificador\s+Nombre\s+Importe/, `titles on page ${i + 1}`);
    assert.match(page, new RegExp(`Página ${i + 1} de ${pages.length}`), `footer of page ${i + 1}`);
    assert.match(page, /^\s*listado/, `header of page ${i + 1}`);
  });
  const all = pages.join('\n');
  for (const n of [1, 200, 400]) assert.match(all, new RegExp(`id-${n}\\s+Nombre ${n}\\s`));
  const info = pdfInfo(widePdf);
  assert.ok(info.width > info.height, 'seven columns are landscape');
  assert.deepEqual([Math.round(info.width), Math.round(info.height)], [792, 612]);
  assert.match(pdfPages(breaksPdf)[0], /Columna 1\s+Columna 2\s*\nNota\s+N\s*\nlínea 1\s+1\s*\nlínea 2\n/);
});

test('excel-to-docx: orientation, page sizes, font size, title, has-header=false', async () => {
  const landscape = readDocx((await runTool(tool, [fixture('ventas.xlsx')], { orientation: 'landscape', 'page-size': 'a3' })).files[0].bytes);
  assert.deepEqual([landscape.page.w, landscape.page.h, landscape.page.orient], [23811, 16838, 'landscape']);
  const letter = readDocx((await runTool(tool, [fixture('ventas.xlsx')], { 'page-size': 'letter', title: 'Informe' })).files[0].bytes);
  assert.deepEqual([letter.page.w, letter.page.h, letter.title, letter.header], [12240, 15840, 'Informe', 'Informe']);
  const bare = readDocx((await runTool(tool, [fixture('ventas.xlsx')], { 'has-header': false })).files[0].bytes);
  assert.deepEqual(bare.tables[0].rows.slice(0, 2).map((r) => r.map((c) => c.text)), [['Columna 1', 'Columna 2', 'Columna 3', 'Columna 4', 'Columna 5', 'Columna 6'], ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas']]);
  assert.ok(bare.tables[0].header[0] && bare.tables[0].rows[0][0].bold && !bare.tables[0].rows[1][0].bold, 'generated titles repeat');
  const fromCsv = readDocx((await runTool(tool, [fixture('semicolon.csv')])).files[0].bytes);
  assert.equal(fromCsv.title, 'semicolon');
  assert.deepEqual(fromCsv.tables[0].rows[1].map((c) => c.text), ['00123', 'Pérez; Juan', 'línea 1\nlínea 2', '1,5', '2024-01-31']);
  assert.deepEqual(fromCsv.tables[0].rows[1].map((c) => c.right), [false, false, false, true, true]);
});

test('excel-to-docx: control characters XML cannot hold are removed with a warning; more than 63 columns is format_limit_exceeded', async () => {
  const out = await runTool(tool, [csv('c.csv', [['a', 'b'], ['x\u0001y', 'ok']])]);
  assert.equal(readDocx(out.files[0].bytes).tables[0].rows[1][0].text, 'xy');
  assert.match(out.messages.find((m) => m.level === 'warning')!.text, /1 carácter.*A2/);
  await rejectsWith(runTool(tool, [csv('w.csv', [Array.from({ length: 64 }, (_, i) => `c${i}`)])]), 'format_limit_exceeded', { params: { max: 63, count: 64 } });
  const fits = readDocx((await runTool(tool, [csv('w.csv', [Array.from({ length: 63 }, (_, i) => `c${i}`)])])).files[0].bytes);
  assert.equal(fits.tables[0].grid.length, 63);
  for (const [option, value] of [['orientation', 'up'], ['page-size', 'a5'], ['font-size', 5], ['font-size', 15], ['title', 'x'.repeat(201)]] as const) {
    await rejectsWith(runTool(tool, [fixture('ventas.xlsx')], { [option]: value }), 'invalid_option', { option });
  }
});

test('excel-to-docx: the rows are turned into text as they are written, never held whole as text beside the table', () => {
  const n = 20_000;
  const text = (i: number) => [`id-${i + 1}`, `Nombre y apellidos ${i + 1}`, `Calle de la fila ${i + 1}, ${i % 90}`, String(i * 3)];
  const base = settledHeap();
  const whole = Array.from({ length: n }, (_, i) => text(i));
  const wholeHeap = settledHeap() - base;
  whole.length = 0;
  // Asked for twice per row (widths, then the document): halfway through the second pass, the heap taken.
  let [asked, midway] = [0, 0];
  const start = settledHeap();
  const written = writeDocx(
    {
      name: 'listado',
      titles: ['Id', 'Nombre', 'Dirección', 'Importe'],
      rows: n,
      row(i) {
        if (++asked === n + n / 2) midway = settledHeap() - start;
        return text(i);
      },
      right: (_, c) => c === 3,
      width: 4,
    },
    { title: 'Listado', pageSize: 'a4', orientation: 'portrait', fontSize: 9, language: 'es-ES', pageLabel: ['Página ', ' de ', ''] },
  );
  assert.equal(asked, 2 * n);
  assert.ok(midway > 0 && midway < wholeHeap / 4, `${midway} bytes midway, the rows as text take ${wholeHeap}`);
  const [t] = readDocx(written.bytes).tables;
  assert.equal(t.rows.length, n + 1);
  assert.deepEqual(t.rows[n].map((c) => c.text), text(n - 1));
  assert.equal(written.preview?.rowCount, n);
  assert.deepEqual(written.preview?.rows[0], text(0));
});

// excel-to-pdf, read back with poppler (pdfinfo, pdftotext), never with the pdfmake that wrote it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { hostname, userInfo } from 'node:os';
import ExcelJS from 'exceljs';
import tool from '../../../tools/convert/excel-to-pdf.ts';
import type { AnyTool } from '../../../tools/core/define.ts';
import { execute } from '../../../tools/core/execute.ts';
import { optionsSchema, parseOptions } from '../../../tools/core/schema.ts';
import { pdfSetup } from '../../../tools/formats/pdf/fonts.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { countOf, pdfInfo, pdfPages, pdfWords } from '../../helpers/pdf.ts';
import { rejectsWith } from '../../helpers/tool-error.ts';
import { typedTitles } from '../../helpers/typed-titles.ts';

const csv = (name: string, rows: string[][]) => inputFile(name, rows.map((r) => r.join(',')).join('\n') + '\n');
const titles = (n: number) => Array.from({ length: n }, (_, i) => `Columna${i + 1}`);
/** A line of pdftotext -layout holding these fields in this order, and nothing else. */
const line = (fields: string[]) => new RegExp(`^\\s*${fields.map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s+')}\\s*$`, 'm');
/** `n` data rows under the titles Identificador, Nombre, Importe; ids are `id-1`, `id-2`… */
const listing = (n: number) => csv('listado.csv', [['Identificador', 'Nombre', 'Importe'], ...Array.from({ length: n }, (_, i) => [`id-${i + 1}`, `Nombre ${i + 1}`, String(i * 3)])]);

test('excel-to-pdf: ventas.xlsx gives one A4 portrait page with every value as a spreadsheet shows it (es)', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')]);
  assert.equal(out.files.length, 1);
  const [pdf] = out.files;
  assert.deepEqual([pdf.name, pdf.contentType], ['ventas.pdf', 'application/pdf']);
  assert.equal(Buffer.from(pdf.bytes.subarray(0, 5)).toString('latin1'), '%PDF-');
  const info = pdfInfo(pdf.bytes);
  assert.deepEqual([info.pages, info.width, info.height], [1, 595.28, 841.89]);
  assert.equal(info.fields.Title, 'Ventas');
  const [text] = pdfPages(pdf.bytes);
  assert.equal(text.split('\n')[0].trim(), 'Ventas');
  for (const fields of [
    ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas'],
    ['15/01/2024', 'Muñoz Peña', '00123', '1250,5', 'VERDADERO', '=SUM(A1)'],
    ['29/02/2024 13:45', 'Ángela Ibáñez', '4111111111111111', '-3', 'FALSO', '+34 600 000 000'],
    ['31/12/2023', 'Çedille & Co', '007', '0,1', 'VERDADERO', '@mención'],
    ['Total', '2501'],
  ]) {
    assert.match(text, line(fields));
  }
  assert.match(text, /Página 1 de 1\s*$/);
  assert.deepEqual(out.messages.map((m) => m.level), ['info']);
  assert.match(out.messages[0].text, /1 página\(s\) A4 en orientación vertical: 4 fila\(s\) de datos y 6 columna\(s\)/);
  assert.deepEqual(out.preview?.columns, ['Fecha', 'Cliente', 'Código', 'Importe', 'Pagado', 'Notas']);
});

test('excel-to-pdf: English dates, decimal point, booleans and footer', async () => {
  const out = await runTool(tool, [fixture('ventas.xlsx')], { language: 'en' });
  const [text] = pdfPages(out.files[0].bytes);
  assert.match(text, line(['2024-01-15', 'Muñoz Peña', '00123', '1250.5', 'TRUE', '=SUM(A1)']));
  assert.match(text, line(['2024-02-29 13:45', 'Ángela Ibáñez', '4111111111111111', '-3', 'FALSE', '+34 600 000 000']));
  assert.match(text, /Page 1 of 1\s*$/);
  assert.match(out.messages.at(-1)!.text, /^PDF of 1 page\(s\), A4 portrait: 4 data row\(s\) and 6 column\(s\)\.$/);
});

test('excel-to-pdf: a CSV shows its fields as written; an .xls and typed titles read too', async () => {
  const fromCsv = await runTool(tool, [fixture('semicolon.csv')], { orientation: 'landscape' });
  const csvText = pdfPages(fromCsv.files[0].bytes)[0];
  for (const field of ['00123', 'Pérez; Juan', '1,5', '2024-01-31', '31/12/2023', 'dice "hola"', 'línea 1', 'línea 2']) assert.ok(csvText.includes(field), field);
  assert.equal(pdfInfo(fromCsv.files[0].bytes).fields.Title, 'semicolon');
  const xls = pdfPages((await runTool(tool, [fixture('ventas.xls')])).files[0].bytes)[0];
  assert.ok(xls.includes('Córdoba') && xls.includes('15/01/2024') && xls.includes('15/02/2024 12:00'), xls);
  const typed = pdfPages((await runTool(tool, [await typedTitles()])).files[0].bytes)[0];
  assert.match(typed, /Zona\s+2024\s+01\/01\/2024/);
});

test('excel-to-pdf: over many pages, the titles repeat at the top of each page, the title and "page n of m" on each', async () => {
  const out = await runTool(tool, [listing(300)]);
  const pages = pdfPages(out.files[0].bytes);
  assert.equal(pdfInfo(out.files[0].bytes).pages, pages.length);
  assert.ok(pages.length >= 3, `${pages.length} pages`);
  pages.forEach((page, i) => {
    const lines = page.split('\n').map((l) => l.trim()).filter(Boolean);
    assert.equal(lines[0], 'listado', `header of page ${i + 1}`);
    assert.match(lines[1], /^Identificador\s+Nombre\s+Importe$/, `titles on page ${i + 1}`);
    assert.equal(countOf(page, 'Identificador'), 1);
    assert.equal(lines.at(-1), `Página ${i + 1} de ${pages.length}`);
  });
  // Every row is printed once, in order, none lost between pages.
  const ids = pages.join('\n').match(/\bid-\d+\b/g)!;
  assert.deepEqual(ids, Array.from({ length: 300 }, (_, i) => `id-${i + 1}`));
  assert.match(out.messages.at(-1)!.text, new RegExp(`^PDF de ${pages.length} página\\(s\\) A4 .*300 fila\\(s\\) de datos y 3 columna\\(s\\)`));
});

test('excel-to-pdf: has-header false repeats no title row and prints the first row as data', async () => {
  const out = await runTool(tool, [listing(300)], { 'has-header': false, language: 'en' });
  const pages = pdfPages(out.files[0].bytes);
  assert.ok(pages.length >= 3);
  assert.equal(countOf(pages.join(''), 'Identificador'), 1);
  const secondPage = pages[1].split('\n').map((l) => l.trim()).filter(Boolean);
  assert.equal(secondPage[0], 'listado');
  assert.match(secondPage[1], /^id-\d+\s+Nombre \d+\s+\d+$/);
  assert.equal(secondPage.at(-1), `Page 2 of ${pages.length}`);
});

test('excel-to-pdf: orientation auto is portrait up to 6 columns and landscape from 7; explicit values win', async () => {
  const table = (n: number) => csv('t.csv', [titles(n), titles(n).map((t) => t.toLowerCase())]);
  const sizeOf = async (n: number, opts: Record<string, unknown> = {}) => {
    const { width, height } = pdfInfo((await runTool(tool, [table(n)], opts)).files[0].bytes);
    return width < height ? 'portrait' : 'landscape';
  };
  assert.equal(await sizeOf(6), 'portrait');
  assert.equal(await sizeOf(7), 'landscape');
  assert.equal(await sizeOf(2, { orientation: 'landscape' }), 'landscape');
  assert.equal(await sizeOf(7, { orientation: 'portrait' }), 'portrait');
  const landscape = await runTool(tool, [table(7)], { language: 'en' });
  assert.match(landscape.messages.at(-1)!.text, /A4 landscape/);
});

test('excel-to-pdf: page sizes a4, letter and a3, in points', async () => {
  const sizes: Record<string, [number, number]> = { a4: [595.28, 841.89], letter: [612, 792], a3: [841.89, 1190.55] };
  for (const [size, [w, h]] of Object.entries(sizes)) {
    const info = pdfInfo((await runTool(tool, [listing(3)], { 'page-size': size })).files[0].bytes);
    assert.deepEqual([info.width, info.height], [w, h], size);
    const landscape = pdfInfo((await runTool(tool, [listing(3)], { 'page-size': size, orientation: 'landscape' })).files[0].bytes);
    assert.deepEqual([landscape.width, landscape.height], [h, w], `${size} landscape`);
  }
});

test('excel-to-pdf: a larger font-size takes more pages', async () => {
  const pagesAt = async (size: number) => pdfInfo((await runTool(tool, [listing(300)], { 'font-size': size })).files[0].bytes).pages;
  const [small, normal, large] = [await pagesAt(6), await pagesAt(9), await pagesAt(14)];
  assert.ok(small < normal && normal < large, `${small} < ${normal} < ${large}`);
});

test('excel-to-pdf: Spanish, Polish, Hungarian, Greek and Cyrillic text comes out exactly', async () => {
  const text = 'ñ á ¿ € ł ő Ωμέγα Привет';
  const out = await runTool(tool, [csv('idiomas.csv', [['Idioma', 'Texto'], ['varios', text], ['polaco', 'Łódź źdźbło'], ['húngaro', 'Győr tűzoltó']])]);
  const page = pdfPages(out.files[0].bytes)[0];
  for (const s of [text, 'Łódź źdźbło', 'Győr tűzoltó']) assert.ok(page.includes(s), `${s} in\n${page}`);
  assert.deepEqual(out.messages.map((m) => m.level), ['info']);
});

test('excel-to-pdf: long text wraps inside its column, long unbreakable strings too, and nothing is cut', async () => {
  const words = Array.from({ length: 200 }, (_, i) => `palabra${i + 1}`);
  const token = 'abcdefghij'.repeat(40);
  const out = await runTool(tool, [csv('largo.csv', [['Id', 'Texto', 'Código'], ['1', words.join(' '), token], ['2', 'corto', 'x']])]);
  const { pageWidths, words: boxes } = pdfWords(out.files[0].bytes);
  for (const b of boxes) assert.ok(b.xMin >= 27 && b.xMax <= pageWidths[b.page - 1] - 27, `"${b.text}" from ${b.xMin} to ${b.xMax}`);
  const found = new Set(boxes.map((b) => b.text));
  assert.deepEqual(words.filter((w) => !found.has(w)), []);
  const plain = pdfPages(out.files[0].bytes, { layout: false }).join('');
  assert.ok(plain.replace(/\s+/g, '').includes(token), 'the unbreakable string, in pieces, in order');
  const lines = pdfPages(out.files[0].bytes)[0].split('\n').filter((l) => /palabra|abcdefghij/.test(l));
  assert.ok(lines.length > 5, 'wrapped over several lines');
});

test('excel-to-pdf: title sets the header of every page and the document title; empty means the sheet name', async () => {
  const out = await runTool(tool, [listing(300)], { title: 'Informe de señales 2024' });
  const pages = pdfPages(out.files[0].bytes);
  for (const page of pages) assert.equal(page.split('\n')[0].trim(), 'Informe de señales 2024');
  assert.equal(pdfInfo(out.files[0].bytes).fields.Title, 'Informe de señales 2024');
  const untitled = await runTool(tool, [fixture('ventas.xlsx')], { title: '' });
  assert.equal(pdfInfo(untitled.files[0].bytes).fields.Title, 'Ventas');
});

test('excel-to-pdf: the metadata name no author, host or user', async () => {
  const { fields } = pdfInfo((await runTool(tool, [listing(2)])).files[0].bytes);
  assert.equal(fields.Author, undefined);
  const meta = JSON.stringify(fields).toLowerCase();
  for (const name of [hostname(), userInfo().username]) assert.ok(!meta.includes(name.toLowerCase()), `${name} in ${meta}`);
  assert.equal(fields.Creator, 'spreadsheet-tools');
});

test('excel-to-pdf: characters no font has (CJK, emoji) show as U+FFFD, counted in a warning with the first cell', async () => {
  const out = await runTool(tool, [csv('cjk.csv', [['Nombre', 'Nota'], ['Ana', 'bien'], ['Li', '中文 😀 ok']])]);
  const page = pdfPages(out.files[0].bytes)[0];
  assert.ok(page.includes('\uFFFD\uFFFD \uFFFD ok'), page);
  const warnings = out.messages.filter((m) => m.level === 'warning');
  assert.equal(warnings.length, 1);
  assert.match(warnings[0].text, /^3 carácter\(es\) .* en la fila 3, columna «Nota»\.$/);
  const inTitle = await runTool(tool, [listing(1)], { title: '報告', language: 'en' });
  assert.match(inTitle.messages.find((m) => m.level === 'warning')!.text, /^2 character\(s\) .* in the title\.$/);
});

test('excel-to-pdf: cells that look like paths, URLs or images stay text, and nothing is fetched or read', async () => {
  await runTool(tool, [listing(1)]); // fonts are loaded once per worker, before the watch starts
  const hostile = ['file:///etc/passwd', '/etc/passwd', 'https://example.com/x.png', 'data:image/png;base64,iVBORw0KGgo=', '{"image":"/etc/hostname"}'];
  const touched: string[] = [];
  const cjsFs = fs as unknown as Record<string, unknown>;
  const watched = ['readFileSync', 'readFile', 'openSync', 'open', 'createReadStream', 'existsSync', 'statSync'];
  const saved = watched.map((k) => cjsFs[k]);
  const savedFetch = globalThis.fetch;
  watched.forEach((k, i) => {
    cjsFs[k] = (...args: unknown[]) => {
      touched.push(`${k} ${String(args[0])}`);
      return (saved[i] as (...a: unknown[]) => unknown)(...args);
    };
  });
  globalThis.fetch = (async (url: unknown) => {
    touched.push(`fetch ${String(url)}`);
    throw new Error('no network in this test');
  }) as typeof fetch;
  let bytes: Uint8Array;
  try {
    const out = await runTool(tool, [inputFile('h.csv', 'Qué,Valor\n' + hostile.map((h, i) => `${i},"${h.replaceAll('"', '""')}"`).join('\n') + '\n')], { title: 'https://example.com/t.png' });
    bytes = out.files[0].bytes;
  } finally {
    watched.forEach((k, i) => (cjsFs[k] = saved[i]));
    globalThis.fetch = savedFetch;
  }
  assert.deepEqual(touched, []);
  const page = pdfPages(bytes)[0];
  for (const h of hostile) assert.ok(page.includes(h), `${h} in\n${page}`);
});

test('excel-to-pdf: pdfmake refuses every URL and local path, even in a document definition', async () => {
  const { pdfmake } = pdfSetup();
  for (const src of ['/etc/passwd', 'file:///etc/passwd', 'https://example.com/x.png']) {
    await assert.rejects(pdfmake.createPdf({ content: [{ image: 'x' }], images: { x: src } }).getBuffer(), /denied by resource access policy/, src);
  }
});

test('excel-to-pdf: a table wider than the page prints in bands of columns, every column present', async () => {
  const n = 60;
  const out = await runTool(tool, [csv('ancha.csv', [titles(n).map((t) => `Título${t}`), titles(n).map((_, i) => `valor${i + 1}`)])]);
  const info = out.messages.find((m) => m.text.includes('bloques de columnas'));
  assert.ok(info && info.level === 'info', JSON.stringify(out.messages));
  const pages = pdfPages(out.files[0].bytes);
  assert.ok(pages.length > 1);
  assert.match(pages[0], /Columnas 1 a \d+ de 60/);
  const all = pages.join('\n');
  for (let i = 1; i <= n; i++) {
    assert.equal(countOf(all, `TítuloColumna${i} `) + countOf(all, `TítuloColumna${i}\n`), 1, `title ${i}`);
    assert.match(all, new RegExp(`\\bvalor${i}\\b`));
  }
  const { pageWidths, words } = pdfWords(out.files[0].bytes);
  for (const b of words) assert.ok(b.xMax <= pageWidths[b.page - 1] - 27, `"${b.text}" ends at ${b.xMax}`);
});

test('excel-to-pdf: an empty sheet gives a page with its title and a warning', async () => {
  const wb = new ExcelJS.Workbook();
  wb.addWorksheet('Vacía');
  const out = await runTool(tool, [inputFile('vacio.xlsx', new Uint8Array(await wb.xlsx.writeBuffer()))]);
  assert.equal(pdfInfo(out.files[0].bytes).pages, 1);
  assert.match(pdfPages(out.files[0].bytes)[0], /^Vacía/);
  assert.ok(out.messages.some((m) => m.level === 'warning' && m.text.includes('«Vacía»')), JSON.stringify(out.messages));
});

async function runWith(files: ReturnType<typeof inputFile>[], options: Record<string, unknown>, o: { pdfMaxRows?: number; signal?: AbortSignal } = {}) {
  const any = tool as unknown as AnyTool;
  return execute(any, files, parseOptions(optionsSchema(any), options), {
    lang: 'es',
    download: false,
    signal: o.signal,
    limits: { maxCells: 2_000_000, pdfMaxRows: o.pdfMaxRows ?? 20_000 },
  });
}

/** Runs `fn` counting the documents pdfmake is asked to lay out (`layouts()`). */
async function countingLayouts(fn: (layouts: () => number) => Promise<void>): Promise<void> {
  const { pdfmake } = pdfSetup();
  const createPdf = pdfmake.createPdf;
  let layouts = 0;
  pdfmake.createPdf = (doc) => {
    layouts++;
    return createPdf.call(pdfmake, doc);
  };
  try {
    await fn(() => layouts);
  } finally {
    pdfmake.createPdf = createPdf;
  }
}

test('excel-to-pdf: a table beyond PDF_MAX_ROWS is refused with too_complex before any layout', async () => {
  await countingLayouts(async (layouts) => {
    await rejectsWith(runWith([listing(30)], {}, { pdfMaxRows: 29 }), 'too_complex', { params: { rows: 30, max: 29 } });
    assert.equal(layouts(), 0);
    const ok = await runWith([listing(30)], {}, { pdfMaxRows: 30 });
    assert.equal(pdfPages(ok.files[0].bytes).join('').match(/\bid-\d+\b/g)!.length, 30);
    assert.equal(layouts(), 1);
  });
  // Bands count: 60 short columns laid out in several bands take one row per band.
  const wide = csv('ancha.csv', [titles(60), titles(60)]);
  await rejectsWith(runWith([wide], {}, { pdfMaxRows: 1 }), 'too_complex');
});

test('excel-to-pdf: a stopped run stops with too_complex', async () => {
  await rejectsWith(runWith([listing(5)], {}, { signal: AbortSignal.abort() }), 'too_complex', { params: { reason: 'time' } });
});

test('excel-to-pdf: option errors name their option', async () => {
  const f = listing(2);
  for (const bad of [5, 15, 9.5, '9', null]) await rejectsWith(runTool(tool, [f], { 'font-size': bad }), 'invalid_option', { option: 'font-size' });
  for (const ok of [6, 14]) assert.equal((await runTool(tool, [f], { 'font-size': ok })).files.length, 1);
  await rejectsWith(runTool(tool, [f], { orientation: 'horizontal' }), 'invalid_option', { option: 'orientation' });
  await rejectsWith(runTool(tool, [f], { 'page-size': 'A4' }), 'invalid_option', { option: 'page-size' });
  await rejectsWith(runTool(tool, [f], { 'page-size': 'legal' }), 'invalid_option', { option: 'page-size' });
  await rejectsWith(runTool(tool, [f], { title: 'x'.repeat(256) }), 'invalid_option', { option: 'title' });
  await rejectsWith(runTool(tool, [f], { 'has-header': 'yes' }), 'invalid_option', { option: 'has-header' });
  await rejectsWith(runTool(tool, [f], { margins: 10 }), 'unknown_option', { option: 'margins' });
  await rejectsWith(runTool(tool, [inputFile('datos.json', '[{"a":1}]')]), 'unsupported_format', { option: 'file' });
  await rejectsWith(runTool(tool, [inputFile('datos.ods', 'x')]), 'unsupported_format', { option: 'file' });
});

// One text cell of 1 MB took the whole time limit to lay out (each page wrapped the whole cell again, and a
// long word looked for a hyphen back to its start): cells print at most PDF_CELL_CHARS characters, cut with a
// warning, and a table whose rows take more lines than a run lays out is refused before anything is drawn.
test('excel-to-pdf: a 1 MB text cell is cut to 10,000 characters with a warning, in es and en; the PDF shows its start', async () => {
  const words = Array.from({ length: 100_000 }, (_, i) => `palabra${i}`).join(' ');
  const file = inputFile('largo.csv', `Nota,Importe\n"${words}",5\n`);
  for (const [lang, warning] of [
    ['es', 'Se han acortado 1 celda(s) de más de 10000 caracteres, que el PDF imprime como máximo (terminan en «…»); la primera, en la fila 2, columna «Nota».'],
    ['en', '1 cell(s) longer than 10000 characters, the most a PDF cell prints, were cut (they end in "…"); the first in row 2, column "Nota".'],
  ] as const) {
    const out = await runTool(tool, [file], { language: lang });
    assert.deepEqual(out.messages.filter((m) => m.level === 'warning').map((m) => m.text), [warning]);
    const text = pdfPages(out.files[0].bytes).join('\n');
    assert.ok(pdfInfo(out.files[0].bytes).pages <= 4, `${pdfInfo(out.files[0].bytes).pages} pages`);
    assert.match(text, /palabra0 palabra1 palabra2/);
    const cut = words.slice(0, 10_000);
    // The last whole word kept, then the ellipsis.
    assert.ok(text.includes(cut.slice(cut.lastIndexOf(' ', cut.length - 12) + 1, cut.lastIndexOf(' '))), 'the end of what is kept is printed');
    assert.ok(text.includes('…'));
    assert.ok(!text.includes('palabra9999 '), 'nothing past the cut');
  }
});

test('excel-to-pdf: rows that take more lines than twice PDF_MAX_ROWS are refused before drawing; a zero-width flood wraps', async () => {
  await countingLayouts(async (layouts) => {
    // 20 rows of about 40 lines each: 800 lines against 2 × 100.
    const tall = Array.from({ length: 20 }, (_, i) => `"${Array.from({ length: 400 }, (_, k) => `w${i}-${k}`).join(' ')}"`).join('\n');
    await rejectsWith(runWith([inputFile('alto.csv', `Texto\n${tall}\n`)], {}, { pdfMaxRows: 100 }), 'too_complex', { params: { reason: 'pdf_lines', max: 200 } });
    assert.equal(layouts(), 0);
  });
  // Characters that draw nothing still take room when lines break: 9,000 combining accents (no advance in the
  // font) on one letter make several lines, never one line of 9,000 characters.
  const out = await runTool(tool, [inputFile('marcas.csv', `a\nx${'\u0301'.repeat(9_000)}\n`)]);
  const lines = pdfPages(out.files[0].bytes).join('\n').split('\n').filter((l) => l.includes('\u0301'));
  assert.ok(lines.length > 5 && Math.max(...lines.map((l) => l.length)) < 2_000, `${lines.length} lines`);
});

// excel-to-pdf across page boundaries and at length, read back with poppler (pdfinfo, pdftotext -bbox), never
// with the pdfmake/pdfkit that wrote it: tall rows at the bottom of a page, rows taller than a page, a title row
// too tall to repeat, and a 20,000-row document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tool from '../../../tools/convert/excel-to-pdf.ts';
import { fixture, inputFile, runTool } from '../../helpers/run-tool.ts';
import { countOf, pdfInfo, pdfPages } from '../../helpers/pdf.ts';
import { settledHeap } from '../../helpers/heap.ts';
import { planColumns, renderPdf, type PdfTable } from '../../../tools/formats/index.ts';

const quote = (f: string) => `"${f.replaceAll('"', '""')}"`;
const csv = (name: string, rows: string[][]) => inputFile(name, rows.map((r) => r.map(quote).join(',')).join('\n') + '\n');

interface Box {
  page: number;
  text: string;
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

/** Every word with its box (pdftotext -bbox), and each page's size. */
function boxes(bytes: Uint8Array): { pages: { width: number; height: number }[]; words: Box[] } {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-test-'));
  try {
    writeFileSync(join(dir, 'r.pdf'), bytes);
    const html = execFileSync('pdftotext', ['-enc', 'UTF-8', '-bbox', join(dir, 'r.pdf'), '-'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    const pages: { width: number; height: number }[] = [];
    const words: Box[] = [];
    for (const m of html.matchAll(/<page width="([\d.]+)" height="([\d.]+)"|<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)) {
      if (m[1]) pages.push({ width: Number(m[1]), height: Number(m[2]) });
      else words.push({ page: pages.length, text: m[7], xMin: Number(m[3]), yMin: Number(m[4]), xMax: Number(m[5]), yMax: Number(m[6]) });
    }
    return { pages, words };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Words of the table (not the page's title at the top nor its number at the bottom) stay inside the page's margins. */
function assertInsideMargins({ pages, words }: ReturnType<typeof boxes>, title: string) {
  for (const w of words) {
    const { width, height } = pages[w.page - 1];
    if (w.text === title || /^(Página|\d+|de)$/.test(w.text)) continue;
    assert.ok(w.xMin >= 27 && w.xMax <= width - 27, `"${w.text}" from x ${w.xMin} to ${w.xMax} on page ${w.page}`);
    assert.ok(w.yMin >= 35 && w.yMax <= height - 34, `"${w.text}" from y ${w.yMin} to ${w.yMax} on page ${w.page}`);
  }
}

/** Pages (1-based) each word of `words` is on. */
const pagesOf = (all: Box[], words: Set<string>) => new Set(all.filter((w) => words.has(w.text)).map((w) => w.page));

test('excel-to-pdf: a tall row that does not fit at the bottom of a page moves whole to the next one, under the repeated titles', async () => {
  // Every 13th row takes about 12 lines; with 400 rows some of them meet the bottom of a page.
  const tall = (r: number) => r % 13 === 0;
  const text = (r: number) => (tall(r) ? Array.from({ length: 60 }, (_, k) => `t${r}w${k}`).join(' ') : `corto ${r}`);
  const rows = Array.from({ length: 400 }, (_, i) => [`id-${i + 1}`, text(i + 1), String(i)]);
  const out = await runTool(tool, [csv('altas.csv', [['Identificador', 'Texto', 'Importe'], ...rows])], { 'font-size': 9 });
  const bytes = out.files[0].bytes;
  const layout = boxes(bytes);
  const pages = pdfPages(bytes);
  assert.equal(pdfInfo(bytes).pages, pages.length);
  assert.ok(pages.length >= 4, `${pages.length} pages`);
  pages.forEach((page, i) => {
    const lines = page.split('\n').map((l) => l.trim()).filter(Boolean);
    assert.equal(lines[0], 'altas');
    assert.match(lines[1], /^Identificador\s+Texto\s+Importe$/, `titles on page ${i + 1}`);
    assert.equal(lines.at(-1), `Página ${i + 1} de ${pages.length}`);
  });
  let moved = 0;
  for (let r = 13; r <= 400; r += 13) {
    const words = new Set(Array.from({ length: 60 }, (_, k) => `t${r}w${k}`));
    const on = pagesOf(layout.words, words);
    assert.equal(on.size, 1, `row ${r} on pages ${[...on]}`);
    assert.equal(layout.words.filter((w) => words.has(w.text)).length, 60, `every word of row ${r}, once`);
    // A tall row first on its page (right under the titles) was moved there.
    const [page] = on;
    const first = layout.words.find((w) => w.page === page && /^id-\d+$/.test(w.text));
    if (first?.text === `id-${r}` && page > 1) moved++;
  }
  assert.ok(moved > 0, 'some tall row met the bottom of a page');
  assert.deepEqual(pages.join('\n').match(/\bid-\d+\b/g), Array.from({ length: 400 }, (_, i) => `id-${i + 1}`));
  assertInsideMargins(layout, 'altas');
});

test('excel-to-pdf: a row taller than a page goes on over the next pages, titles repeated, every word once and in order', async () => {
  // Under the 10,000 characters a cell prints, at the largest font: several pages of one cell.
  const words = Array.from({ length: 850 }, (_, k) => `palabra${k + 1}`);
  assert.ok(words.join(' ').length < 10_000);
  const out = await runTool(tool, [csv('enorme.csv', [['Id', 'Texto', 'Otro'], ['1', 'antes', 'x'], ['2', words.join(' '), 'y'], ['3', 'después', 'z']])], { 'font-size': 14 });
  const bytes = out.files[0].bytes;
  const pages = pdfPages(bytes);
  assert.ok(pages.length >= 3, `${pages.length} pages`);
  for (const page of pages) assert.match(page.split('\n').map((l) => l.trim()).filter(Boolean)[1], /^Id\s+Texto\s+Otro$/);
  const layout = boxes(bytes);
  assert.deepEqual(
    layout.words.filter((w) => w.text.startsWith('palabra')).map((w) => w.text),
    words,
  );
  const all = pages.join('\n');
  for (const s of ['antes', 'después']) assert.equal(countOf(all, s), 1);
  assertInsideMargins(layout, 'enorme');
});

test('excel-to-pdf: a title row too tall to repeat on every page is printed once, then the rows', async () => {
  const longTitle = Array.from({ length: 900 }, (_, k) => `título${k + 1}`).join(' ');
  const rows = Array.from({ length: 200 }, (_, i) => [`id-${i + 1}`, `valor ${i + 1}`]);
  const out = await runTool(tool, [csv('titulos.csv', [['Id', longTitle], ...rows])]);
  const bytes = out.files[0].bytes;
  const all = pdfPages(bytes).join('\n');
  assert.equal(countOf(all, 'título900'), 1);
  assert.equal(countOf(all, 'Id'), 1);
  assert.deepEqual(all.match(/\bid-\d+\b/g), Array.from({ length: 200 }, (_, i) => `id-${i + 1}`));
  assertInsideMargins(boxes(bytes), 'titulos');
});

test('excel-to-pdf: numbers are right-aligned in their column, text left-aligned', async () => {
  const { words } = boxes((await runTool(tool, [fixture('ventas.xlsx')])).files[0].bytes);
  const right = ['1250,5', '-3', '0,1', '2501'].map((t) => words.find((w) => w.text === t)!.xMax);
  for (const x of right) assert.ok(Math.abs(x - right[0]) < 0.5, `right edges ${right}`);
  const left = ['Muñoz', 'Ángela', 'Çedille'].map((t) => words.find((w) => w.text === t)!.xMin);
  for (const x of left) assert.ok(Math.abs(x - left[0]) < 0.5, `left edges ${left}`);
});

test('excel-to-pdf: 20,000 rows give as many pages as pdfinfo counts, every row once and in order', async () => {
  const n = 20_000;
  const rows = Array.from({ length: n }, (_, i) => [`id-${i + 1}`, `Nombre ${i + 1}`, String(i * 3), i % 50 === 0 ? 'línea uno\nlínea dos' : 'ok']);
  const out = await runTool(tool, [csv('largo.csv', [['Identificador', 'Nombre', 'Importe', 'Nota'], ...rows])]);
  const bytes = out.files[0].bytes;
  const pages = pdfPages(bytes);
  assert.equal(pdfInfo(bytes).pages, pages.length);
  assert.match(out.messages.at(-1)!.text, new RegExp(`^PDF de ${pages.length} página\\(s\\) A4 .*20000 fila\\(s\\) de datos y 4 columna\\(s\\)`));
  assert.equal(pages.at(-1)!.trim().split('\n').at(-1)!.trim(), `Página ${pages.length} de ${pages.length}`);
  const ids = pages.join('\n').match(/\bid-\d+\b/g)!;
  assert.equal(ids.length, n);
  ids.forEach((id, i) => assert.equal(id, `id-${i + 1}`));
});

test('excel-to-pdf: each page is written out once drawn, so a run never holds the drawing of all its pages', async () => {
  const rows = Array.from({ length: 5000 }, (_, i) => [`id-${i + 1}`, `Nombre ${i + 1}`, i * 3, `texto de relleno ${i}`]);
  const table: PdfTable = { header: ['Id', 'Nombre', 'Importe', 'Nota'], rows, width: 4 };
  const layout = { pageSize: 'a4', orientation: 'portrait', fontSize: 9, lang: 'es', words: { true: 'VERDADERO', false: 'FALSO' } } as const;
  const plan = planColumns(table, layout);
  const buffers = () => (settledHeap(), process.memoryUsage().arrayBuffers);
  const base = buffers();
  // The run reads its signal every 16 pages it draws: each read takes the buffers still held then.
  let [reads, held] = [0, 0];
  const signal = {
    get aborted() {
      reads++;
      held = Math.max(held, buffers() - base);
      return false;
    },
  } as AbortSignal;
  const pdf = await renderPdf(table, plan, { ...layout, title: 'Largo', pageLabel: (p, n) => `Página ${p} de ${n}`, bandLabel: () => '', signal, maxLines: 1e6 });
  const pages = pdfPages(pdf.bytes);
  assert.equal(pages.length, pdf.pages);
  assert.ok(pdf.pages > 80 && reads > 5, `${pdf.pages} pages, ${reads} reads`);
  assert.equal(pages.join('\n').match(/\bid-\d+\b/g)!.length, rows.length);
  // Drawn after the layout and held until the end, the pages passed three times the file's size; written out
  // page by page, what is held is the file so far.
  assert.ok(held < 2 * pdf.bytes.length, `${held} bytes held, the file has ${pdf.bytes.length}`);
});

test('excel-to-pdf: a title longer than the page wraps over lines above the table on every page, every word once per page', async () => {
  const words = Array.from({ length: 22 }, (_, i) => `palabra${i + 1}`);
  const title = words.join(' ');
  const rows = Array.from({ length: 120 }, (_, i) => [`fila-${i + 1}`, `dato ${i + 1}`]);
  const out = await runTool(tool, [csv('titulo.csv', [['Clave', 'Dato'], ...rows])], { title, orientation: 'portrait' });
  const got = boxes(out.files[0].bytes);
  assert.ok(got.pages.length >= 2, `${got.pages.length} pages`);
  for (let page = 1; page <= got.pages.length; page++) {
    const on = got.words.filter((w) => w.page === page);
    const inTitle = on.filter((w) => w.text.startsWith('palabra'));
    assert.deepEqual(inTitle.map((w) => w.text), words, `title on page ${page}`);
    const lines = new Set(inTitle.map((w) => Math.round(w.yMin)));
    assert.ok(lines.size >= 2, `the title on ${lines.size} line(s) on page ${page}`);
    for (const w of inTitle) assert.ok(w.xMin >= 27 && w.xMax <= got.pages[page - 1].width - 27, `${w.text} at x ${w.xMin}-${w.xMax}`);
    const table = on.find((w) => w.text === 'Clave')!;
    assert.ok(Math.max(...inTitle.map((w) => w.yMax)) < table.yMin, `the title above the table on page ${page}`);
  }
});

test('excel-to-pdf: a path or URL longer than its column breaks after its slashes and reads back whole', async () => {
  const url = 'https://example.com/' + Array.from({ length: 30 }, (_, i) => `carpeta${i + 1}`).join('/') + '/fichero.pdf';
  const rows = [['Id', 'Enlace', 'Nota', 'Otra', 'Más', 'Y más'], ['1', url, 'nota larga '.repeat(20), 'x'.repeat(10), 'y', 'z']];
  const bytes = (await runTool(tool, [csv('enlaces.csv', rows)])).files[0].bytes;
  const plain = pdfPages(bytes, { layout: false }).join('');
  assert.ok(plain.replace(/\s+/g, '').includes(url), 'the URL, in pieces, in order');
  const pieces = boxes(bytes).words.filter((w) => w.text.includes('carpeta'));
  assert.ok(pieces.length > 2, `${pieces.length} lines`);
  for (const p of pieces.slice(0, -1)) assert.match(p.text, /\/$/, 'each line but the last ends after a slash');
});

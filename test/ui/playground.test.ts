// The playground at `/`, used as a person uses it, in headless Chromium: find a tool, drop or pick files,
// change an option, run, read the preview and the messages, download the results (each file and the ZIP)
// and re-read them with independent readers (exceljs; Python's zipfile for the ZIP), switch the language.
// No console error on the page, nothing serious for axe-core, a screenshot of each state.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startServer, type TestServer } from '../helpers/http.ts';
import { readXlsx } from '../helpers/read-xlsx.ts';
import { assertAccessible, isExpectedRefusal, openBrowser, screenshotDir, type Browser } from './browser.ts';

const TIMEOUT = { timeout: 240_000 };

/** Saves the download that `click` starts; its suggested name and bytes. */
async function download(page: Page, click: () => Promise<void>): Promise<{ name: string; bytes: Buffer }> {
  const [dl] = await Promise.all([page.waitForEvent('download'), click()]);
  const dir = mkdtempSync(join(tmpdir(), 'st-dl-'));
  try {
    const path = join(dir, 'file');
    await dl.saveAs(path);
    return { name: dl.suggestedFilename(), bytes: readFileSync(path) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Drops files on the drop zone as a drag from the desktop does (a DataTransfer holding Files). */
async function dropFiles(page: Page, files: Array<{ name: string; text: string }>): Promise<void> {
  const transfer = await page.evaluateHandle(
    `(() => { const dt = new DataTransfer(); for (const f of ${JSON.stringify(files)}) dt.items.add(new File([f.text], f.name, { type: 'text/csv' })); return dt; })()`,
  );
  await page.dispatchEvent('#drop', 'drop', { dataTransfer: transfer });
}

/** The tools the list shows now, by id. */
const listed = (page: Page) => page.locator('#tool-list a').evaluateAll((as) => as.map((a) => a.getAttribute('data-tool')));

function noProblems(browser: Browser) {
  assert.deepEqual(browser.problems, [], 'no console errors or warnings, no page errors');
}

/** Runs `use` on the playground page of a fresh server in a fresh headless browser; both are closed whatever happens. */
async function onPlayground(env: Record<string, string>, path: string, use: (page: Page, srv: TestServer, browser: Browser) => Promise<void>): Promise<void> {
  const srv = await startServer(env);
  let browser: Browser | undefined;
  try {
    browser = await openBrowser();
    const page = await browser.page('playground');
    await page.goto(`${srv.url}${path}`);
    await use(page, srv, browser);
  } finally {
    await browser?.close();
    await srv.close();
  }
}

after(() => {
  // Where this run's screenshots are (kept as artifacts, outside the repository).
  console.log(`screenshots in ${screenshotDir()}`);
});

test('playground: csv-to-excel found by search, a dropped file, an option changed, preview, warning, download re-read', TIMEOUT, async (t) => {
  await onPlayground({}, '/', async (page, srv, browser) => {
    await page.locator('#tool-list a').first().waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'es', 'a Spanish browser gets the Spanish page');

    const catalogue = (await (await fetch(`${srv.url}/api/v1/tools`)).json()) as Array<{ description: string }>;
    assert.equal(await page.locator('#overview-list .card').count(), catalogue.length, 'the landing shows every tool');
    assert.ok((await page.locator('#overview-list').innerText()).includes(catalogue[0].description), 'with its description');
    await page.fill('#search', 'csv a excel');
    await page.waitForFunction(`document.querySelectorAll('#tool-list a').length === 1`);
    assert.deepEqual(await listed(page), ['csv-to-excel']);
    assert.equal(await page.locator('#overview-list .card').count(), 1, 'the search filters the landing too');
    await page.click('a[data-tool="csv-to-excel"]');
    await page.locator('#tool-title').filter({ hasText: 'CSV a Excel' }).waitFor();

    // Codes with leading zeros and a short row: the row is padded (a warning); with detect-types off,
    // every cell stays text.
    await dropFiles(page, [{ name: 'ventas.csv', text: 'Código,Cliente,Importe\n000123,Íñigo,12.5\n000456,Ana\n000789,Luis,7\n' }]);
    await page.locator('#chosen').filter({ hasText: 'ventas.csv' }).waitFor();
    await page.uncheck('#opt-csv-to-excel-detect-types');
    assert.match(await page.locator('#curl').innerText(), /-F 'detect-types=false'/, 'the curl example follows the form');
    assert.match(await page.locator('#mcp').innerText(), /"detect-types": false/);

    await page.click('#run');
    await page.locator('#preview-box').waitFor({ state: 'visible' });
    const header = await page.locator('#preview thead th').allInnerTexts();
    assert.deepEqual(header, ['Código', 'Cliente', 'Importe']);
    const firstRow = await page.locator('#preview tbody tr').first().locator('td').allInnerTexts();
    assert.deepEqual(firstRow, ['000123', 'Íñigo', '12.5']);
    assert.equal(await page.locator('#preview tbody tr').count(), 3);
    const warning = page.locator('#messages li.warning');
    assert.equal(await warning.count(), 1, 'the padded row is reported as a warning');
    assert.match(await warning.innerText(), /^Aviso:.*ventas\.csv/s);
    assert.match(await page.locator('#quota').innerText(), /99999 de 100000/, 'the quota left, from the RateLimit headers');
    await browser.shot(page, 'playground-csv-to-excel');
    t.diagnostic(await assertAccessible(page, 'playground with a result'));

    const file = await download(page, () => page.click('#downloads a'));
    assert.equal(file.name, 'ventas.xlsx');
    const [sheet] = await readXlsx(file.bytes);
    assert.deepEqual(sheet.rows, [
      ['Código', 'Cliente', 'Importe'],
      ['000123', 'Íñigo', '12.5'],
      ['000456', 'Ana', null],
      ['000789', 'Luis', '7'],
    ]);
    noProblems(browser);
  });
});

test('playground: merge-stack of three picked files, then split-rows and the ZIP of its parts', TIMEOUT, async (t) => {
  await onPlayground({}, '/', async (page, srv, browser) => {
    await page.click('a[data-tool="merge-stack"]');
    await page.locator('#tool-title').filter({ hasText: 'Combinar apilando filas' }).waitFor();
    const months = ['enero', 'febrero', 'marzo'].map((m, i) => ({ name: `${m}.csv`, mimeType: 'text/csv', buffer: Buffer.from(`Mes,Importe\n${m},${i + 1}\n`) }));
    await page.setInputFiles('#file-input', months);
    await page.waitForFunction(`document.querySelectorAll('#chosen .file-name').length === 3`);
    await page.click('#run');
    await page.locator('#downloads a').first().waitFor();
    assert.equal(await page.locator('#downloads a').count(), 1);
    assert.equal(await page.locator('#zip').isVisible(), false, 'one result file: no ZIP offered');
    const merged = await download(page, () => page.click('#downloads a'));
    const [stack] = await readXlsx(merged.bytes);
    assert.deepEqual(stack.rows.slice(1).map((r) => r.slice(0, 2)), [['enero', 1], ['febrero', 2], ['marzo', 3]]);
    assert.deepEqual(stack.rows.slice(1).map((r) => r[2]), ['enero.csv', 'febrero.csv', 'marzo.csv'], 'the source column names each file');
    await browser.shot(page, 'playground-merge-stack');

    await page.click('a[data-tool="split-rows"]');
    await page.locator('#tool-title').filter({ hasText: 'Dividir por número de filas' }).waitFor();
    assert.equal(await page.locator('#chosen .file-name').count(), 0, 'another tool starts with no files');
    const rows = Array.from({ length: 25 }, (_, i) => `${i + 1},fila ${i + 1}`).join('\n');
    await page.setInputFiles('#file-input', { name: 'filas.csv', mimeType: 'text/csv', buffer: Buffer.from(`n,texto\n${rows}\n`) });
    await page.fill('#opt-split-rows-rows-per-file', '10');
    await page.click('#run');
    await page.locator('#zip').waitFor({ state: 'visible' });
    assert.equal(await page.locator('#downloads a').count(), 3);
    const zip = await download(page, () => page.click('#zip'));
    assert.equal(zip.name, 'resultado.zip');
    // Python's zipfile, not the library that made it, lists and extracts the parts.
    const dir = mkdtempSync(join(tmpdir(), 'st-zip-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'r.zip'), zip.bytes);
    const names = JSON.parse(
      execFileSync('python3', ['-c', 'import json,sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); z.testzip(); z.extractall(sys.argv[2]); print(json.dumps(z.namelist()))', join(dir, 'r.zip'), dir], { encoding: 'utf8' }),
    ) as string[];
    assert.equal(names.length, 3);
    const sizes = [];
    for (const n of names.sort()) {
      const [part] = await readXlsx(readFileSync(join(dir, n)));
      assert.deepEqual(part.rows[0], ['n', 'texto'], `${n} repeats the header`);
      sizes.push(part.rows.length - 1);
    }
    assert.deepEqual(sizes, [10, 10, 5]);
    await browser.shot(page, 'playground-split-rows');
    t.diagnostic(await assertAccessible(page, 'playground with three result files'));
    noProblems(browser);
  });
});

test('playground: switching to English changes the page and the catalogue, and is remembered', TIMEOUT, async (t) => {
  await onPlayground({}, '/#excel-to-json', async (page, srv, browser) => {
    await page.locator('#tool-title').filter({ hasText: 'Excel a JSON' }).waitFor();
    assert.equal(await page.locator('h1').innerText(), 'Herramientas de hojas de cálculo');
    await page.selectOption('#opt-excel-to-json-shape', 'arrays');

    await page.click('button[data-lang="en"]');
    await page.locator('#tool-title').filter({ hasText: 'Excel to JSON' }).waitFor();
    assert.equal(await page.locator('h1').innerText(), 'Spreadsheet tools');
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    assert.equal(await page.locator('button[data-lang="en"]').getAttribute('aria-pressed'), 'true');
    assert.ok((await page.locator('#tool-list').innerText()).includes('CSV to Excel'), 'the catalogue is fetched again in English');
    assert.equal(await page.inputValue('#opt-excel-to-json-shape'), 'arrays', 'a value chosen before the switch is kept');
    assert.match(await page.locator('#curl').innerText(), /-F 'language=en'/, 'runs ask for English results');
    await browser.shot(page, 'playground-english');
    t.diagnostic(await assertAccessible(page, 'playground in English'));

    await page.reload();
    await page.locator('#tool-title').filter({ hasText: 'Excel to JSON' }).waitFor();
    assert.equal(await page.locator('h1').innerText(), 'Spreadsheet tools', 'the choice is remembered');
    // On a phone-sized screen the page still fits its width.
    await page.setViewportSize({ width: 375, height: 740 });
    const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
    assert.ok(overflow <= 0, `no sideways scrolling on a phone (${overflow} px too wide)`);
    await browser.shot(page, 'playground-phone');
    noProblems(browser);
  });
});

test('playground: a result too large to show is refused with its reason, and offered as a direct download', TIMEOUT, async () => {
  await onPlayground({ MAX_INLINE_RESULT_MB: '0.001' }, '/#excel-to-json', async (page, srv, browser) => {
    await page.locator('#tool-title').filter({ hasText: 'Excel a JSON' }).waitFor();
    const rows = Array.from({ length: 200 }, (_, i) => `${i},cliente número ${i}`).join('\n');
    await page.setInputFiles('#file-input', { name: 'grande.csv', mimeType: 'text/csv', buffer: Buffer.from(`n,cliente\n${rows}\n`) });
    await page.click('#run');
    const offer = page.locator('#refusal button');
    await offer.waitFor();
    assert.match(await page.locator('#refusal').innerText(), /result_too_large/);
    const file = await download(page, () => offer.click());
    assert.equal(file.name, 'grande.json');
    const json = JSON.parse(file.bytes.toString('utf8')) as Array<{ n: number; cliente: string }>;
    assert.equal(json.length, 200);
    assert.deepEqual(json[199], { n: 199, cliente: 'cliente número 199' });
    await page.locator('#status').filter({ hasText: 'Hecho' }).waitFor();
    assert.match(await page.locator('#messages li.info').first().innerText(), /grande/, 'the download\'s messages (X-Tool-Messages) are shown');
    // The one console error allowed is the browser's own report of the refused answer (413).
    assert.deepEqual(browser.problems.filter((p) => !isExpectedRefusal(p, 413, '/api/v1/tools/excel-to-json/run')), []);
  });
});

/** Presses Tab until the focused element matches `selector` (at most `max` presses); fails if it never does. */
async function tabTo(page: Page, selector: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`)) return;
  }
  assert.fail(`Tab never reached ${selector}`);
}

test('playground: usable with the keyboard alone, from the search box to the downloaded result (the file picker aside)', TIMEOUT, async () => {
  await onPlayground({}, '/', async (page, srv, browser) => {
    await page.locator('#tool-list a').first().waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.className'), 'skip', 'the first stop skips to the tool');
    await tabTo(page, '#search');
    await page.keyboard.type('json a excel');
    await page.waitForFunction(`document.querySelectorAll('#tool-list a').length === 1`);
    await tabTo(page, 'a[data-tool="json-to-excel"]');
    await page.keyboard.press('Enter');
    await page.locator('#tool-title').filter({ hasText: 'JSON a Excel' }).waitFor();
    assert.equal(await page.evaluate('document.activeElement.id'), 'tool', 'choosing a tool moves the focus to it');

    await tabTo(page, '#file-input');
    assert.notEqual(await page.evaluate(`getComputedStyle(document.getElementById('drop')).outlineStyle`), 'none', 'the drop zone shows the focus');
    // The file picker itself is the browser's own dialog (opening it from the keyboard raced with Playwright's
    // interception once in a loaded full run): the file is given to the focused input directly.
    await page.setInputFiles('#file-input', { name: 'clientes.json', mimeType: 'application/json', buffer: Buffer.from('[{"nombre":"Ana","alta":"2024-01-02"}]') });
    await page.locator('#chosen .file-name').filter({ hasText: 'clientes.json' }).waitFor();
    await tabTo(page, '#opt-json-to-excel-format');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.inputValue('#opt-json-to-excel-format'), 'csv');
    await tabTo(page, '#run');
    await page.keyboard.press('Enter');
    await page.locator('#downloads a').waitFor();
    assert.equal(await page.evaluate('document.activeElement.id'), 'result-heading', 'the focus goes to the result');
    await tabTo(page, '#downloads a');
    const file = await download(page, () => page.keyboard.press('Enter'));
    assert.equal(file.name, 'clientes.csv');
    assert.match(file.bytes.toString('utf8'), /nombre,alta\r\nAna,2024-01-02/);
    noProblems(browser);
  });
});

test('playground: merge-by-key takes its lookup-file in a picker of its own, asks for it when missing, and runs the join', TIMEOUT, async (t) => {
  await onPlayground({}, '/#merge-by-key', async (page, srv, browser) => {
    await page.locator('#tool-title').filter({ hasText: 'BUSCARV' }).waitFor();
    assert.equal(await page.locator('#opt-merge-by-key-lookup-file').count(), 0, 'the second file is no text option');
    await page.setInputFiles('#file-input', { name: 'pedidos.csv', mimeType: 'text/csv', buffer: Buffer.from('Pedido,Cliente\nP1,7\nP2,8\n') });
    await page.fill('#opt-merge-by-key-key', 'Cliente');
    await page.click('#run');
    await page.locator('#more-lookup-file-error').filter({ hasText: /archivo/ }).waitFor();
    await page.setInputFiles('#more-lookup-file', { name: 'clientes.csv', mimeType: 'text/csv', buffer: Buffer.from('Cliente,Nombre\n8,Bea\n7,Ana\n') });
    assert.match(await page.locator('#curl').textContent() ?? '', /lookup-file=@clientes\.csv/);
    await page.click('#run');
    await page.locator('#downloads a').first().waitFor();
    const merged = await download(page, () => page.click('#downloads a'));
    assert.equal(merged.name, 'pedidos-combinado.csv');
    assert.equal(merged.bytes.toString('utf8'), '\uFEFFPedido,Cliente,Nombre\r\nP1,7,Ana\r\nP2,8,Bea\r\n');
    await browser.shot(page, 'playground-merge-by-key');
    t.diagnostic(await assertAccessible(page, 'playground with a second file picker'));
    noProblems(browser);
  });
});

// The admin page at /admin (and /admin/), used with the playground as an operator and a key holder use them,
// in headless Chromium: sign in, create a key, use it from the playground, see its use rise, edit its quota,
// revoke it, and see the playground refused with it. No console error but the refusal the scenario asks for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startServer } from '../helpers/http.ts';
import { assertAccessible, isExpectedRefusal, openBrowser, screenshotDir } from './browser.ts';

const TOKEN = 'admin-token-for-the-browser-test-0123456789';

/** The cells of the key's row in the admin table, by column header. */
async function keyRow(admin: Page, label: string): Promise<Record<string, string>> {
  const headers = await admin.locator('#keys-table thead th').allInnerTexts();
  const cells = await admin.locator('#keys tr', { has: admin.locator('td', { hasText: label }) }).first().locator('td').allInnerTexts();
  return Object.fromEntries(headers.map((h, i) => [h, cells[i]]));
}

const exactly = (s: string) => new RegExp(`^${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

/** Refreshes the list and waits until the key's row shows `value` in `column`; the row's cells then. */
async function waitForCell(admin: Page, label: string, column: string, value: string): Promise<Record<string, string>> {
  const index = (await admin.locator('#keys-table thead th').allInnerTexts()).indexOf(column);
  assert.ok(index >= 0, `no column ${column}`);
  await admin.click('#refresh');
  const row = admin.locator('#keys tr').filter({ has: admin.locator('td', { hasText: exactly(label) }) });
  await row.locator(`td:nth-child(${index + 1})`).filter({ hasText: exactly(value) }).waitFor();
  return keyRow(admin, label);
}

/** Runs split-rows in the playground with the file already chosen, until it has answered (a result or a refusal). */
async function runOnce(play: Page): Promise<void> {
  await play.click('#run');
  await play.locator('#run:not([disabled])').waitFor();
  await play.locator('#result:not([hidden])').waitFor();
}

test('admin and playground: sign in, create a key, use it, see its use rise, edit its quota, revoke it, refused after', { timeout: 240_000 }, async (t) => {
  const srv = await startServer({ ADMIN_TOKEN: TOKEN });
  const browser = await openBrowser();
  try {
    const admin = await browser.page('admin');
    await admin.goto(`${srv.url}/admin`);
    await admin.locator('#token').waitFor();
    t.diagnostic(await assertAccessible(admin, 'admin sign-in'));
    await admin.fill('#token', TOKEN);
    await admin.click('#sign-in button[type="submit"]');
    await admin.locator('#signed-in').waitFor({ state: 'visible' });
    assert.equal(await admin.locator('#sign-out').isVisible(), true);
    assert.match(await admin.locator('#keys-caption').innerText(), /Todavía no hay claves/);

    await admin.fill('#new-label', 'equipo de datos');
    await admin.click('#create button[type="submit"]');
    await admin.locator('#secret').waitFor({ state: 'visible' });
    const secret = await admin.locator('#secret-value').innerText();
    assert.match(secret, /^sk_[A-Za-z0-9_-]{40,}$/);
    let row = await keyRow(admin, 'equipo de datos');
    assert.match(row['Ejecuciones por hora'], /^1\.?000 \(predeterminada\)$/, 'a key without its own quota shows the default');
    assert.equal(row['Ejecuciones en esta hora'], '0');
    assert.equal(row['Último uso'], 'nunca');
    assert.equal(row.Estado, 'activa');
    assert.equal(row.Id.length, 8, 'a short id');
    assert.ok(!(await admin.locator('#keys').innerText()).includes(secret), 'the secret is not in the list');
    await browser.shot(admin, 'admin-key-created');
    t.diagnostic(await assertAccessible(admin, 'admin with a new key'));

    const play = await browser.page('playground');
    await play.goto(`${srv.url}/#split-rows`);
    await play.locator('#tool-title').filter({ hasText: 'Dividir por número de filas' }).waitFor();
    await play.click('#key-box summary');
    await play.fill('#api-key', secret);
    assert.match(await play.locator('#curl').innerText(), /Authorization: Bearer \$API_KEY/, 'the example names the key without showing it');
    assert.ok(!(await play.locator('#curl').innerText()).includes(secret));
    await play.setInputFiles('#file-input', { name: 'x.csv', mimeType: 'text/csv', buffer: Buffer.from('a\n1\n2\n') });
    await runOnce(play);
    assert.match(await play.locator('#quota').innerText(), /999 de 1000/, 'the key quota, not the anonymous one');
    row = await waitForCell(admin, 'equipo de datos', 'Ejecuciones en esta hora', '1');
    assert.notEqual(row['Último uso'], 'nunca');
    await runOnce(play);
    await runOnce(play);
    await waitForCell(admin, 'equipo de datos', 'Ejecuciones en esta hora', '3');

    await admin.click('#keys button:has-text("Editar")');
    await admin.locator('#edit-dialog').waitFor({ state: 'visible' });
    await admin.fill('#edit-quota', '5');
    await admin.click('#edit button[type="submit"]');
    await admin.locator('#edit-dialog').waitFor({ state: 'hidden' });
    await waitForCell(admin, 'equipo de datos', 'Ejecuciones por hora', '5');
    await runOnce(play);
    assert.match(await play.locator('#quota').innerText(), / de 5 /, 'the new quota applies at once');

    await admin.click('#keys button:has-text("Revocar")');
    await admin.locator('#revoke-dialog').waitFor({ state: 'visible' });
    assert.match(await admin.locator('#revoke-text').innerText(), /equipo de datos/);
    await browser.shot(admin, 'admin-revoke-confirmation');
    await admin.click('#revoke-confirm');
    await admin.locator('#revoke-dialog').waitFor({ state: 'hidden' });
    row = await waitForCell(admin, 'equipo de datos', 'Estado', 'revocada');
    assert.equal(await admin.locator('#keys button').count(), 0, 'a revoked key offers no actions');
    await browser.shot(admin, 'admin-key-revoked');

    await runOnce(play);
    assert.match(await play.locator('#refusal').innerText(), /invalid_api_key/);
    assert.equal(await play.locator('#quota').isVisible(), false, 'the quota of the revoked key is no longer shown');
    await browser.shot(play, 'playground-refused-key');

    await admin.click('#sign-out');
    await admin.locator('#sign-in-section').waitFor({ state: 'visible' });
    assert.equal(await admin.evaluate('sessionStorage.length'), 0, 'signing out forgets the token');

    // The same page at /admin/ (a trailing slash must not change where its script sends the token).
    const slash = await browser.page('admin-slash');
    await slash.goto(`${srv.url}/admin/`);
    await slash.fill('#token', TOKEN);
    await slash.click('#sign-in button[type="submit"]');
    await slash.locator('#keys tr').first().waitFor();
    assert.equal((await keyRow(slash, 'equipo de datos')).Estado, 'revocada');

    // The one console error allowed is the browser's own report of the refused run (401).
    const unexpected = browser.problems.filter((p) => !(p.page === 'playground' && isExpectedRefusal(p, 401, '/api/v1/tools/split-rows/run')));
    assert.deepEqual(unexpected, []);
    t.diagnostic(`screenshots in ${screenshotDir()}`);
  } finally {
    await browser.close();
    await srv.close();
  }
});

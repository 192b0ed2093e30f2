// Headless Chromium (Debian's, at /usr/bin/chromium) driven by playwright-core, for tests that use the pages
// as a person does. Each test gets a fresh profile; every console error and page error is kept so the test
// can assert there were none; screenshots go to one temporary folder per process (kept as artifacts).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

// Without the background-networking flags Chromium tries to reach Google's hosts at start, and this closed
// network refuses it (many connections at a time).
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

/** Generous: this machine is shared and often loaded. Conditions are awaited, never fixed times. */
export const STEP_MS = 60_000;

let shots: string | undefined;
/** The folder of this run's screenshots (created on first use, never committed). */
export function screenshotDir(): string {
  shots ??= mkdtempSync(join(tmpdir(), 'spreadsheet-tools-ui-'));
  return shots;
}

export interface Problem {
  page: string;
  kind: 'console' | 'pageerror';
  text: string;
  url: string;
}

export interface Browser {
  context: BrowserContext;
  /** Console errors and uncaught page errors of every page opened so far. */
  problems: Problem[];
  /** A new tab that records its problems; `name` labels them. */
  page(name: string): Promise<Page>;
  /** A screenshot of `page` saved as `<name>.png` in the screenshot folder; its path. */
  shot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

export async function openBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'st-chromium-'));
  const downloads = join(profile, 'downloads');
  mkdirSync(downloads);
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      acceptDownloads: true,
      downloadsPath: downloads,
      locale: 'es-ES',
      timeout: STEP_MS,
      viewport: { width: 1280, height: 900 },
    });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
  const problems: Problem[] = [];
  return {
    context,
    problems,
    async page(name) {
      const page = await context.newPage();
      page.setDefaultTimeout(STEP_MS);
      page.on('console', (m: ConsoleMessage) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push({ page: name, kind: 'console', text: `${m.type()}: ${m.text()}`, url: m.location().url });
      });
      page.on('pageerror', (e) => problems.push({ page: name, kind: 'pageerror', text: e.message, url: '' }));
      return page;
    },
    async shot(page, name) {
      const path = join(screenshotDir(), `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      try {
        await context.close();
      } finally {
        rmSync(profile, { recursive: true, force: true });
      }
    },
  };
}

/**
 * The browser's own report of an answer it was expecting to be refused (it logs every 4xx of a fetch or XHR
 * as a console error): allowed only for `status` on a URL ending in `path`.
 */
export function isExpectedRefusal(p: Problem, status: number, path: string): boolean {
  return p.kind === 'console' && p.text.includes(`status of ${status}`) && new URL(p.url || 'http://x/').pathname.endsWith(path);
}

const AXE_SOURCE: string = createRequire(import.meta.url)('axe-core').source;

export interface AxeResult {
  /** Violations by impact, e.g. { serious: 0, moderate: 1 }. */
  counts: Record<string, number>;
  /** Every violation's rule id and impact. */
  rules: string[];
  /** The serious and critical ones, with the nodes that have them. */
  serious: Array<{ id: string; impact: string; help: string; nodes: string[] }>;
}

/**
 * axe-core run on the page as it is now (WCAG 2.1 A and AA, and best practices). It is evaluated through the
 * DevTools protocol: the page's own CSP, which allows no script but its own, stays in force for the page.
 */
export async function axe(page: Page): Promise<AxeResult> {
  // Expressions as text: these run in the page, whose types (DOM) this project's type check does not load.
  if (!(await page.evaluate('"axe" in window'))) await page.evaluate(AXE_SOURCE);
  const options = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } };
  const violations = (await page.evaluate(
    `axe.run(document, ${JSON.stringify(options)}).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) })))`,
  )) as Array<{ id: string; impact: string; help: string; nodes: string[] }>;
  const counts: Record<string, number> = {};
  for (const v of violations) counts[v.impact] = (counts[v.impact] ?? 0) + 1;
  return { counts, rules: violations.map((v) => `${v.id} (${v.impact}: ${v.nodes.join(', ')})`), serious: violations.filter((v) => v.impact === 'serious' || v.impact === 'critical') };
}

/** Asserts axe finds nothing serious; returns the counts of the rest for the test's diagnostics. */
export async function assertAccessible(page: Page, where: string): Promise<string> {
  const r = await axe(page);
  assert.deepEqual(r.serious, [], `${where}: serious accessibility violations`);
  return `${where}: axe violations by impact ${JSON.stringify(r.counts)}${r.rules.length ? ` — ${r.rules.join('; ')}` : ''}`;
}

// The pages' files as the server sends them: a CSP that forbids inline code and HTML that needs none, every
// file a page refers to served with its type, every text key the pages use present in both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'parse5';
import { startServer } from '../helpers/http.ts';

const PUBLIC = new URL('../../web/public/', import.meta.url).pathname;

interface Node {
  nodeName: string;
  attrs?: Array<{ name: string; value: string }>;
  childNodes?: Node[];
  content?: Node;
  value?: string;
}

function* walk(node: Node): Generator<Node> {
  yield node;
  for (const c of node.childNodes ?? []) yield* walk(c);
  if (node.content) yield* walk(node.content);
}

const attr = (n: Node, name: string) => n.attrs?.find((a) => a.name === name)?.value;

test('pages: / and /admin come with a CSP that allows only this origin\'s scripts and styles, and hold no inline code', async () => {
  const srv = await startServer({ ADMIN_TOKEN: 'x'.repeat(40) });
  try {
    for (const path of ['/', '/admin']) {
      const res = await fetch(`${srv.url}${path}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      const csp = res.headers.get('content-security-policy') ?? '';
      for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) assert.ok(csp.includes(directive), `${path}: ${directive}`);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');

      const refs: string[] = [];
      for (const n of walk(parse(await res.text()) as unknown as Node)) {
        for (const a of n.attrs ?? []) {
          assert.ok(!/^on/i.test(a.name), `${path}: inline handler ${a.name} on <${n.nodeName}>`);
          assert.notEqual(a.name, 'style', `${path}: inline style on <${n.nodeName}>`);
          assert.ok(!/^\s*javascript:/i.test(a.value), `${path}: javascript: URL`);
        }
        if (n.nodeName === 'script') {
          assert.ok(attr(n, 'src'), `${path}: a script without src`);
          assert.equal((n.childNodes ?? []).length, 0, `${path}: inline script text`);
        }
        assert.notEqual(n.nodeName, 'style', `${path}: a <style> element`);
        const ref = attr(n, 'src') ?? (n.nodeName === 'link' ? attr(n, 'href') : undefined);
        if (ref) refs.push(ref);
      }
      assert.ok(refs.length >= 3, `${path} refers to its script, style and icon`);
      for (const ref of refs) {
        const asset = await fetch(`${srv.url}${ref}`);
        assert.equal(asset.status, 200, `${path} -> ${ref}`);
        await asset.arrayBuffer();
      }
    }
  } finally {
    await srv.close();
  }
});

test('pages: modules import only files the server has, types are right, answers revalidate with ETag, unknown assets fall through', async () => {
  const srv = await startServer();
  try {
    const seen = new Set<string>();
    const queue = ['/assets/js/playground.js', '/assets/js/admin.js'];
    while (queue.length) {
      const url = queue.pop()!;
      if (seen.has(url)) continue;
      seen.add(url);
      const res = await fetch(`${srv.url}${url}`);
      assert.equal(res.status, 200, url);
      assert.equal(res.headers.get('content-type'), 'text/javascript; charset=utf-8', url);
      for (const m of (await res.text()).matchAll(/^import\s[^'"]*['"]([^'"]+)['"]/gm)) queue.push(new URL(m[1], `http://x${url}`).pathname);
    }
    assert.ok(seen.has('/assets/vendor/fflate.js'), 'the ZIP library is served from the installed package');

    const first = await fetch(`${srv.url}/assets/style.css`);
    assert.equal(first.headers.get('content-type'), 'text/css; charset=utf-8');
    const etag = first.headers.get('etag')!;
    await first.text();
    assert.equal((await fetch(`${srv.url}/assets/style.css`, { headers: { 'if-none-match': etag } })).status, 304);
    const head = await fetch(`${srv.url}/`, { method: 'HEAD' });
    assert.deepEqual([head.status, await head.text()], [200, '']);
    for (const missing of ['/assets/nope.js', '/assets/index.html', '/assets/../package.json', '/assets/%2e%2e/package.json', '/assets/js']) {
      const res = await fetch(`${srv.url}${missing}`);
      assert.notEqual(res.status, 200, missing);
      await res.arrayBuffer();
    }
  } finally {
    await srv.close();
  }
});

test('pages: every text key the pages use exists in Spanish and in English', async () => {
  const srv = await startServer();
  try {
    const texts = {
      es: (await (await fetch(`${srv.url}/assets/i18n/es.json`)).json()) as Record<string, string>,
      en: (await (await fetch(`${srv.url}/assets/i18n/en.json`)).json()) as Record<string, string>,
    };
    assert.deepEqual(Object.keys(texts.es).sort(), Object.keys(texts.en).sort());
    const used = new Set<string>();
    for (const name of readdirSync(PUBLIC)) {
      if (!name.endsWith('.html')) continue;
      for (const m of readFileSync(join(PUBLIC, name), 'utf8').matchAll(/data-i18n(?:-[a-z-]+)?="([^"]+)"/g)) used.add(m[1]);
    }
    for (const name of readdirSync(join(PUBLIC, 'js'))) {
      for (const m of readFileSync(join(PUBLIC, 'js', name), 'utf8').matchAll(/\bt\('([^']+)'/g)) used.add(m[1]);
    }
    // Keys built at run time: one per message level.
    for (const level of ['info', 'warning', 'error']) used.add(`web.level-${level}`);
    assert.ok(used.size > 80, `${used.size} keys found: the scan is reading the pages`);
    const missing = [...used].filter((k) => texts.es[k] === undefined || texts.en[k] === undefined);
    assert.deepEqual(missing, []);
  } finally {
    await srv.close();
  }
});

// Text that hides or breaks itself: Unicode format characters (a right-to-left override makes
// `inv\u202Egpj.csv` display as `invvsc.jpg`; zero-width spaces and isolates hide inside a name), lone
// surrogates (no character at all: encodeURIComponent throws on them), and CR/LF and control characters in
// sheet names and titles. Result names, ZIP entries, Content-Disposition and MCP resource URIs carry none of
// the first two; no message, over any door or in the download's X-Tool-Messages header, repeats the third.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { safeName } from '../../tools/core/output.ts';
import { contentDisposition, MESSAGES_HEADER } from '../../bridge/run.ts';
import { resultUri } from '../../mcp/to-call-result.ts';
import type { InputFile } from '../../tools/core/files.ts';
import { inputFile } from '../helpers/run-tool.ts';
import { EVERY_DOOR, send, sendDownload, startHostile, type HostileServer } from './harness.ts';
import { workbookParts, xlsxOf, zipEntryNames, zipParts } from './packages.ts';

let srv: HostileServer;
before(async () => {
  srv = await startHostile({ MAX_JOBS: '2' });
});
after(() => srv.close());

const FORMAT = /\p{Cf}/u;
const LONE = /\p{Cs}/u;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const FORMAT_CHARS = ['\u202e', '\u202d', '\u200b', '\u200c', '\u200d', '\u2060', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c', '\ufeff', '\u00ad'];

/** A name shows as what it is: no format character, no lone surrogate, no control character. */
function assertPlain(name: string, where: string) {
  assert.ok(!FORMAT.test(name), `${where}: format character in ${JSON.stringify(name)}`);
  assert.ok(!LONE.test(name), `${where}: lone surrogate in ${JSON.stringify(name)}`);
  assert.ok(!CONTROL.test(name), `${where}: control character in ${JSON.stringify(name)}`);
}

test('names: safeName strips every format character and replaces lone surrogates', () => {
  assert.equal(safeName('inv\u202egpj.csv'), 'invgpj.csv', 'the override is gone, so the name reads as it is');
  for (const c of FORMAT_CHARS) assertPlain(safeName(`a${c}b${c}.csv`), `U+${c.charCodeAt(0).toString(16)}`);
  assert.equal(safeName('a\u200bb.csv'), 'ab.csv');
  assert.equal(safeName('\u2066\u2069.csv', 'archivo'), 'archivo.csv', 'a name of format characters only falls back');
  assert.equal(safeName('.\u200b.', 'archivo'), 'archivo', 'stripping cannot make a parent folder');
  assert.equal(safeName('x\ud800y.csv'), 'x_y.csv');
  assert.equal(safeName('x\udfff.c\ud800sv'), 'x_.csv');
  assert.equal(safeName('😀.csv'), '😀.csv', 'a surrogate pair is a character and stays');
  // Encoders that throw on lone surrogates hold whatever they are given.
  assert.doesNotThrow(() => contentDisposition('a\ud800.csv'));
  assert.doesNotThrow(() => resultUri('split-rows', 'a\udc00.csv'));
  assert.ok(!contentDisposition('inv\u202egpj.csv').includes('%E2%80%AE'));
});

// `_xHHHH_` is how OOXML writes a code unit in text: `_xD800_` is a lone surrogate once read.
const GROUPS = ['inv\u202egpj', 'cero\u200bancho', '\u2066aislado\u2069', 'solo_xD800_', 'par_xD83D__xDE00_', 'normal'];

test('names: split-by-column with format characters and lone surrogates in the values: plain names in the ZIP and the header, never a 500', async () => {
  const file = inputFile('grupos.xlsx', xlsxOf([{ name: 'Hoja1', rows: [['grupo', 'n'], ...GROUPS.map((g, i) => [g, i])] }]));
  for (const via of ['json', 'multipart'] as const) {
    const res = await sendDownload(srv, via, 'split-by-column', [file], { column: 'grupo', format: 'csv' });
    assert.equal(res.status, 200, `${via}: ${Buffer.from(res.bytes).toString().slice(0, 300)}`);
    const names = zipEntryNames(res.bytes);
    assert.equal(names.length, GROUPS.length, 'one file per group');
    for (const n of names) assertPlain(n, `${via} ZIP entry`);
    assert.ok(names.includes('invgpj.csv'), names.join(' | '));
    assert.ok(names.includes('par😀.csv'), 'a pair written as two escapes is one character');
    assertPlain(res.headers.get('content-disposition') ?? '', `${via} Content-Disposition`);
  }
  for (const via of EVERY_DOOR) {
    const a = await send(srv, via, 'split-by-column', [file], { column: 'grupo', format: 'csv' });
    assert.equal(a.status, 200, `${via}: ${JSON.stringify(a.body).slice(0, 300)}`);
    for (const f of a.body.files) assertPlain(f.name, `${via} file name`);
    if (via === 'mcp') {
      assert.equal(a.resources!.length, GROUPS.length);
      for (const r of a.resources!) {
        assert.doesNotThrow(() => decodeURIComponent(r.uri), r.uri);
        assertPlain(decodeURIComponent(r.uri), 'MCP resource URI');
      }
    }
  }
});

test('names: an input name with an override or a lone surrogate names its result plainly through every door and the download', async () => {
  for (const name of ['inv\u202egpj.csv', 'mal\ud800.csv']) {
    const file = inputFile(name, 'a,b\n1,2\n');
    for (const via of EVERY_DOOR) {
      // busboy reads part headers as UTF-8: a lone surrogate cannot travel in a multipart file name.
      if (via === 'multipart' && LONE.test(name)) continue;
      const a = await send(srv, via, 'csv-to-excel', [file]);
      assert.equal(a.status, 200, `${via} ${JSON.stringify(name)}: ${JSON.stringify(a.body).slice(0, 300)}`);
      assertPlain(a.body.files[0].name, `${via} result name`);
      if (via === 'mcp') assertPlain(decodeURIComponent(a.resources![0].uri), 'MCP resource URI');
    }
    const res = await sendDownload(srv, 'json', 'csv-to-excel', [file]);
    assert.equal(res.status, 200, `download of ${JSON.stringify(name)}: ${Buffer.from(res.bytes).toString().slice(0, 300)}`);
    const disposition = res.headers.get('content-disposition') ?? '';
    assertPlain(decodeURIComponent(disposition.split("''")[1] ?? ''), 'Content-Disposition filename*');
  }
  const override = await send(srv, 'json', 'csv-to-excel', [inputFile('inv\u202egpj.csv', 'a\n1\n')]);
  assert.equal(override.body.files[0].name, 'invgpj.xlsx');
});

/**
 * A workbook whose sheet names and titles try to break the line of whatever shows a message: CR/LF as
 * character references in the sheet names (a raw line break in an attribute reads as a space), controls
 * XML cannot hold as OOXML `_xHHHH_` escapes in the titles, and a right-to-left override.
 */
function hostileBook() {
  const parts = workbookParts([
    { name: 'Hoja@@X-Inyectada: 1\t\u202e', rows: [['id\r\nSet-Cookie: x=1', 'nombre_x0000__x001B_[2J', 'línea 1\nlínea 2'], [1, 'Ana', 'x']] },
    { name: 'Otra@@hoja', rows: [['a'], [1]] },
  ]);
  parts['xl/workbook.xml'] = (parts['xl/workbook.xml'] as string).replaceAll('@@', '&#13;&#10;').replace('\t', '&#9;');
  return inputFile('hojas.xlsx', zipParts(parts));
}

test('messages: sheet names and titles with CR/LF and control characters never reach a message raw, over every door and the download header', async () => {
  const book = hostileBook();
  const cases: Array<[string, Record<string, unknown>, InputFile[]]> = [
    ['excel-to-csv', {}, [book]],
    ['excel-to-xml', {}, [book]],
    ['excel-to-json', {}, [book]],
    // Excel refuses these sheet names: the message says what each became, and from what.
    ['merge-sheets', { 'keep-original-sheet-names': true }, [book, { ...book, name: 'otro.xlsx' }]],
  ];
  for (const [tool, options, files] of cases) {
    for (const via of EVERY_DOOR) {
      const a = await send(srv, via, tool, files, options);
      assert.equal(a.status, 200, `${tool} ${via}: ${JSON.stringify(a.body).slice(0, 300)}`);
      assert.ok(a.body.messages.length > 0, `${tool}: the case has messages to check`);
      for (const m of a.body.messages) {
        assert.ok(!CONTROL.test(m.text), `${tool} ${via}: control character in ${JSON.stringify(m.text)}`);
        assert.ok(!/[\u202a-\u202e\u2066-\u2069]/.test(m.text), `${tool} ${via}: bidi control in ${JSON.stringify(m.text)}`);
      }
      if (via === 'mcp') {
        // The text block is the summary, the messages one per line, then the text preview (file content, as it is).
        const lines = a.text!.split('\n');
        assert.deepEqual(lines.slice(1, 1 + a.body.messages.length), a.body.messages.map((m: { level: string; text: string }) => `[${m.level}] ${m.text}`), `${tool}: one line per message`);
      }
    }
    const res = await sendDownload(srv, 'multipart', tool, files, options);
    assert.equal(res.status, 200);
    const header = res.headers.get(MESSAGES_HEADER);
    assert.ok(header, `${tool}: messages in the download header`);
    for (const m of JSON.parse(header!) as Array<{ text: string }>) assert.ok(!CONTROL.test(m.text), `${tool} header: ${JSON.stringify(m.text)}`);
  }
  // The sheet is still named in what it was: only the unprintable characters were replaced.
  const csv = await send(srv, 'json', 'excel-to-csv', [book]);
  assert.ok(csv.body.messages.some((m: { text: string }) => m.text.includes('X-Inyectada: 1') && m.text.includes('\ufffd')), JSON.stringify(csv.body.messages));
});

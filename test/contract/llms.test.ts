// /llms.txt through the real HTTP server: llms.txt shape, every tool and option, limits from Config, errors.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { LANGS, t, type Lang } from '../../locales/index.ts';
import { ERROR_CODES, ERROR_STATUS } from '../../tools/core/errors.ts';
import { listTools } from '../../tools/core/registry.ts';
import { jsonSchemaOf } from '../../tools/core/schema.ts';
import { describeProperty } from '../../bridge/llms-txt.ts';
import { startServer, type TestServer } from '../helpers/http.ts';

let srv: TestServer;
const texts = {} as Record<Lang, string>;
before(async () => {
  srv = await startServer({ MAX_INPUT_MB: '7', MAX_FILE_PARTS: '9', ANON_RUNS_PER_HOUR: '42' }, { jobs: 'inline' });
  for (const lang of LANGS) {
    const res = await fetch(`${srv.url}/llms.txt?lang=${lang}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    texts[lang] = await res.text();
  }
});
after(() => srv.close());

/** The lines of one tool's section. */
function sectionOf(text: string, id: string): string {
  const start = text.indexOf(`### \`${id}\``);
  assert.ok(start >= 0, `section of ${id}`);
  const end = text.indexOf('\n#', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

test('llms.txt has the llms.txt shape: H1, summary quote, then sections; Spanish by default', async () => {
  const text = texts.es;
  const lines = text.split('\n');
  assert.equal(lines[0], '# spreadsheet-tools');
  assert.equal(lines[1], '');
  assert.ok(lines[2].startsWith('> '));
  assert.equal(lines.filter((l) => l.startsWith('# ')).length, 1, 'one H1');
  assert.ok(lines.filter((l) => l.startsWith('## ')).length >= 6);
  assert.equal(await (await fetch(`${srv.url}/llms.txt`)).text(), text);
  assert.notEqual(texts.en, text);
});

for (const lang of LANGS) {
  test(`[${lang}] how to call: MCP URL, REST examples in JSON and multipart, download`, () => {
    const text = texts[lang];
    assert.ok(text.includes(`${srv.url}/mcp`), 'MCP URL with the base');
    assert.ok(text.includes(`${srv.url}/mcp?toolsets=merge-split`) && text.includes(`${srv.url}/mcp?tools=excel-to-csv,csv-to-excel`), 'how to choose tools');
    assert.match(text, /Streamable HTTP/);
    assert.match(text, /contentBase64/);
    assert.match(text, /curl .*-H 'Content-Type: application\/json'/);
    assert.match(text, /curl .*\?download=true' -F '(file|files)=@/);
    assert.ok(text.includes(`${srv.url}/api/v1/openapi.json`));
    assert.ok(text.includes(`## ${t(lang, 'llms.mcp.title')}`));
    assert.ok(text.includes(`## ${t(lang, 'llms.rest.title')}`));
  });

  test(`[${lang}] limits come from Config and every error code is listed with its status`, () => {
    const text = texts[lang];
    assert.match(text, /\b7 MB\b/);
    assert.match(text, /\b9\b/);
    assert.match(text, /\b42\b/);
    for (const code of ERROR_CODES) assert.ok(text.includes(`- \`${code}\` (${ERROR_STATUS[code]}): ${t(lang, `llms.errorCodes.${code}`)}`), code);
  });

  test(`[${lang}] every tool with title, description, input formats and every option with its rules`, () => {
    const text = texts[lang];
    assert.ok(text.includes(`## ${t(lang, 'llms.tools.title', { count: listTools().length })}`));
    for (const tool of listTools()) {
      const section = sectionOf(text, tool.id);
      assert.ok(section.includes(t(lang, `tools.${tool.id}.title`)), `${tool.id} title`);
      assert.ok(section.includes(t(lang, `tools.${tool.id}.description`)), `${tool.id} description`);
      for (const f of tool.input.formats) assert.ok(section.includes(`.${f}`), `${tool.id} format ${f}`);
      const schema = jsonSchemaOf(tool, lang);
      for (const [name, prop] of Object.entries(schema.properties!)) {
        if (name === tool.input.kind) continue;
        const line = `  - \`${name}\` (${describeProperty(prop, (schema.required ?? []).includes(name), lang)}): ${prop.description}`;
        assert.ok(section.includes(line), `${tool.id}: ${line}`);
        if (prop.default !== undefined && prop.default !== '') assert.ok(line.includes(JSON.stringify(prop.default).replace(/^"|"$/g, '')), `${tool.id}.${name} default`);
        for (const v of (prop.enum as unknown[] | undefined) ?? []) assert.ok(line.includes(`\`${v}\``), `${tool.id}.${name} value ${v}`);
        if (prop.maximum !== undefined) assert.ok(line.includes(String(prop.maximum)), `${tool.id}.${name} maximum`);
      }
    }
  });
}

test('describeProperty renders enums, ranges, lengths, unions, defaults and required', () => {
  assert.equal(describeProperty({ type: 'boolean', default: true }, false, 'en'), 'boolean; default: `true`');
  assert.equal(describeProperty({ type: 'integer', minimum: 1, maximum: 1000, default: 100 }, true, 'en'), 'integer, 1 to 1000; default: `100`; required');
  assert.equal(describeProperty({ type: 'string', enum: ['a', 'b'], default: 'a' }, false, 'es'), 'string, uno de `a`, `b`; predeterminado: `a`');
  assert.equal(describeProperty({ type: 'string', maxLength: 255, default: '' }, false, 'en'), 'string, up to 255 characters; default: empty');
  assert.equal(
    describeProperty({ anyOf: [{ type: 'string', enum: ['comma', 'tab'] }, { type: 'string', minLength: 1, maxLength: 1 }], default: 'comma' }, false, 'en'),
    'string, one of `comma`, `tab` or string, exactly 1 character(s); default: `comma`',
  );
});

// The MCP view (tools/list) is the full request schema made lean without loss of meaning: every option keeps
// its type, values, range and default with one short line; every tool a summary of at most two sentences
// naming the formats it reads; one lean output schema that admits every real answer and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { LANGS, t } from '../../locales/index.ts';
import { OUTPUT_SCHEMA } from '../../mcp/output-schema.ts';
import { toCallResult, toErrorResult } from '../../mcp/to-call-result.ts';
import { MAX_PATTERN_CHARS, mcpToolList, shortTextKey } from '../../mcp/tool-list.ts';
import { ToolError } from '../../tools/core/errors.ts';
import { listTools } from '../../tools/core/registry.ts';
import { jsonSchemaOf } from '../../tools/core/schema.ts';

type Schema = { [k: string]: unknown };

/** Longest summary and option line, in characters: a line a model reads at a glance. */
const MAX_SUMMARY_CHARS = 130;
const MAX_OPTION_CHARS = 60;

/** What a property means, descriptions aside (and patterns too long for the view, which its text states). */
function meaning(prop: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(prop)) {
    if (k === 'description' || (k === 'pattern' && typeof v === 'string' && v.length > MAX_PATTERN_CHARS)) continue;
    // A closed set of strings: the view leaves out `"type":"string"`, which the values say (mcp/tool-list.ts).
    if (k === 'type' && v === 'string' && Array.isArray(prop.enum) && prop.enum.every((x) => typeof x === 'string')) continue;
    out[k] = k === 'anyOf' ? (v as Schema[]).map(meaning) : v;
  }
  return out;
}

/**
 * A reference-like union (a column by title or position, a list of them) as the view shows it: the types its
 * alternatives admit, their bounds left to the kernel (mcp/tool-list.ts leanUnion). Closed sets and patterns
 * are never in such a union, so nothing a caller must choose from is lost.
 */
function admitted(prop: Schema): Schema | null {
  const alts = prop.anyOf as Schema[] | undefined;
  const types = Array.isArray(prop.type) ? (prop.type as string[]) : null;
  if (!alts && !types) return null;
  const kinds = (alt: Schema): string[] => (alt.type === 'array' ? [`array of ${(admitted(alt.items as Schema) ?? { types: [alt.items && (alt.items as Schema).type] }).types}`] : [String(alt.type)]);
  if (alts && (alts.some((a) => 'enum' in a || 'pattern' in a) || !alts.some((a) => a.type === 'integer' || a.type === 'array'))) return null;
  const list = alts ? alts.flatMap(kinds) : types!;
  const { anyOf: _a, type: _t, description: _d, ...rest } = prop;
  return { types: list.join('|'), ...rest };
}

const sentences = (text: string) => text.split(/(?<=[.!?])\s+(?=\S)/).length;

for (const lang of LANGS) {
  test(`[${lang}] mcp view: every tool, in catalogue order, with its title, summary and meaningful annotations`, () => {
    const { tools } = mcpToolList(lang);
    assert.deepEqual(tools.map((x) => x.name), listTools().map((x) => x.id));
    for (const tool of listTools()) {
      const entry = tools.find((x) => x.name === tool.id)!;
      assert.equal(entry.title, t(lang, `tools.${tool.id}.title`));
      assert.equal(entry.description, t(lang, `tools.${tool.id}.summary`));
      assert.deepEqual(entry.outputSchema, OUTPUT_SCHEMA);
      assert.deepEqual(entry.annotations, { readOnlyHint: true, openWorldHint: false }, 'read-only tools: the hints MCP defines for them');
      assert.equal(tool.annotations.destructiveHint, false, 'the registry keeps all four hints');
      assert.equal(tool.annotations.idempotentHint, true);
    }
  });

  test(`[${lang}] mcp view: a summary is at most two sentences and ${MAX_SUMMARY_CHARS} characters, and names every format the tool reads`, () => {
    for (const tool of listTools()) {
      const summary = t(lang, `tools.${tool.id}.summary`);
      assert.ok(summary.length <= MAX_SUMMARY_CHARS, `${tool.id}: ${summary.length} characters`);
      assert.ok(sentences(summary) <= 2, `${tool.id}: ${summary}`);
      assert.ok(!summary.includes('\n'), tool.id);
      for (const format of tool.input.formats) assert.match(summary, new RegExp(`\\.${format}(?![a-z])`), `${tool.id} names .${format}`);
      assert.notEqual(summary, t(lang, `tools.${tool.id}.description`), `${tool.id}: the summary is not the full description`);
    }
  });

  test(`[${lang}] mcp view: every option keeps its type, values, range and default, with one line of at most ${MAX_OPTION_CHARS} characters`, () => {
    for (const tool of listTools()) {
      const full = jsonSchemaOf(tool, lang);
      const lean = mcpToolList(lang).tools.find((x) => x.name === tool.id)!.inputSchema as Schema & { properties: Record<string, Schema> };
      assert.deepEqual(Object.keys(lean.properties), Object.keys(full.properties!), `${tool.id}: the same options, in order`);
      assert.deepEqual(lean.required, full.required, tool.id);
      assert.equal(lean.type, 'object');
      for (const [name, prop] of Object.entries(full.properties!)) {
        const shown = lean.properties[name];
        const where = `${tool.id}.${name}`;
        const moreFile = tool.input.more?.some((m) => m.field === name) === true;
        if (name === 'file' || name === 'files' || moreFile) {
          const object = name === 'files' ? (shown.items as Schema) : shown;
          assert.deepEqual(object, { type: 'object', properties: { name: { type: 'string' }, contentBase64: { type: 'string' } }, required: ['name', 'contentBase64'] }, where);
          if (name === 'files') assert.deepEqual([shown.type, shown.minItems, shown.maxItems], ['array', prop.minItems, prop.maxItems], where);
          continue;
        }
        const expected = name === 'language' ? { ...meaning(prop), default: lang } : meaning(prop);
        if (admitted(prop)) assert.deepEqual(admitted(shown), admitted(prop), where);
        else assert.deepEqual(meaning(shown), expected, where);
        const line = shown.description as string;
        assert.equal(line, t(lang, shortTextKey(tool, name)!), where);
        assert.ok(line.length > 0 && line.length <= MAX_OPTION_CHARS && !line.includes('\n'), `${where}: "${line}" (${line.length})`);
        assert.notEqual(line, prop.description, `${where}: the short line is not the full text`);
      }
    }
  });
}

test('mcp view: a pattern is left out only when longer than the limit, and the option then says its rule in words', () => {
  let dropped = 0;
  for (const tool of listTools()) {
    const lean = mcpToolList('en').tools.find((x) => x.name === tool.id)!.inputSchema.properties as Record<string, Schema>;
    for (const [name, prop] of Object.entries(jsonSchemaOf(tool, 'en').properties!)) {
      const pattern = JSON.stringify(prop).match(/"pattern":("(?:[^"\\]|\\.)*")/)?.[1];
      if (pattern === undefined) continue;
      const long = (JSON.parse(pattern) as string).length > MAX_PATTERN_CHARS;
      assert.equal(JSON.stringify(lean[name]).includes('"pattern"'), !long, `${tool.id}.${name}`);
      if (long) dropped++;
    }
  }
  assert.ok(dropped > 0, 'the XML names of excel-to-xml are the case this rule is for');
});

test('mcp view: the shared output schema admits every real success and Error body, and nothing without ok and its shape', () => {
  const validate = new AjvJsonSchemaValidator().getValidator(OUTPUT_SCHEMA as never);
  const success = toCallResult({
    tool: 'split-rows',
    lang: 'en',
    files: [{ name: 'part-001.csv', contentType: 'text/csv', bytes: new Uint8Array([97]) }],
    preview: { columns: ['a'], rows: [['1']], totalRows: 1, truncated: false, sheet: null },
    textPreview: 'a',
    messages: [{ level: 'info', text: 'ok' }],
  } as never).structuredContent;
  assert.equal(validate(success).valid, true, 'a success');
  for (const code of ['invalid_option', 'busy', 'internal_error'] as const) {
    assert.equal(validate(toErrorResult(new ToolError(code, { option: 'x' }), 'es').structuredContent).valid, true, code);
  }
  for (const wrong of [{}, { ok: true }, { ok: false }, { files: [] }, { ok: true, message: 'x' }, []]) {
    assert.equal(validate(wrong).valid, false, JSON.stringify(wrong));
  }
});

test('mcp view: lists are built once per language and selection, and shared frozen', () => {
  assert.equal(mcpToolList('es'), mcpToolList('es'));
  assert.notEqual(mcpToolList('es'), mcpToolList('en'));
  const some = listTools().slice(2, 4);
  assert.equal(mcpToolList('en', some), mcpToolList('en', some));
  assert.deepEqual(mcpToolList('en', some).tools.map((x) => x.name), some.map((x) => x.id));
  assert.equal(mcpToolList('en', some).tools[0], mcpToolList('en').tools[2], 'one entry object per tool and language');
  assert.ok(Object.isFrozen(mcpToolList('es').tools[0].inputSchema.properties));
  assert.throws(() => {
    (mcpToolList('es').tools as unknown as unknown[]).push({});
  });
});

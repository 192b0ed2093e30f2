// The MCP view of the registry: what tools/list shows. Clients put every entry into the model's context on
// every turn, so this view is budgeted in bytes (test/contract/mcp-size.test.ts) and says each thing once:
// a summary of at most two sentences, one short line per option (the schema carries type, values, range and
// default), the shared lean output schema. The catalogue, OpenAPI and llms.txt keep the full texts.
// Entries are built once per language and lists once per language and selection, then shared, frozen.
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { t, type Lang } from '../locales/index.ts';
import { BoundedMap } from '../tools/formats/index.ts';
import type { AnyTool, ToolAnnotations } from '../tools/core/define.ts';
import { listTools } from '../tools/core/registry.ts';
import { jsonSchemaOf, type JsonSchema } from '../tools/core/schema.ts';
import { OUTPUT_SCHEMA } from './output-schema.ts';

type Schema = { [k: string]: unknown };

/**
 * A `pattern` longer than this is left out of the MCP view (an XML name's is 480 characters of Unicode
 * ranges: a model reads the rule in words better, and pays for the regex on every turn). The option's short
 * text states the rule; the kernel still enforces the pattern and names the option when a value breaks it.
 */
export const MAX_PATTERN_CHARS = 100;

/**
 * Locale key of an option's short text, its one line in tools/list. `language` has a common one; the file
 * inputs have none: the object names its fields, and the summary says which formats the tool reads.
 */
export function shortTextKey(tool: AnyTool, option: string): string | undefined {
  if (option === 'file' || option === 'files' || tool.input.more?.some((m) => m.field === option)) return undefined;
  if (option === 'language') return 'common.short.language';
  return `tools.${tool.id}.short.${option}`;
}

/**
 * A file as tools/list shows it: its two fields and their types. The name's length bounds and the refusal of
 * other fields stay in the kernel (a call breaking them gets `invalid_option` naming the field).
 */
const FILE_OBJECT: Schema = { type: 'object', properties: { name: { type: 'string' }, contentBase64: { type: 'string' } }, required: ['name', 'contentBase64'] };

/** A closed set of strings says its type already: `"type":"string"` beside it adds nothing a client can use. */
const typedByEnum = (schema: Schema) => Array.isArray(schema.enum) && schema.type === 'string' && schema.enum.every((x) => typeof x === 'string');

function withoutLongPatterns(schema: Schema): Schema {
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'pattern' && typeof v === 'string' && v.length > MAX_PATTERN_CHARS) continue;
    if (k === 'type' && typedByEnum(schema)) continue;
    out[k] = k === 'anyOf' && Array.isArray(v) ? v.map((alt: Schema) => withoutLongPatterns(alt)) : v;
  }
  return out;
}

/**
 * A reference-like union (a column by title or position, a list of them: tools/core/columns.ts) as tools/list
 * shows it: its alternatives' bounds left out, and alternatives that are then a bare type merged into one
 * `type` list (`{"type":["string","integer"]}` instead of 90 bytes). Unions with a closed set or a pattern
 * (excel-to-csv's delimiter) are shown whole. The kernel enforces the bounds and names the option.
 */
function leanUnion(prop: Schema): Schema {
  const alts = prop.anyOf as Schema[];
  if (!alts.some((a) => a.type === 'integer' || a.type === 'array') || alts.some((a) => 'enum' in a || 'pattern' in a || 'const' in a)) return prop;
  const bare = alts.map((a): Schema => {
    const { maxLength: _a, minLength: _b, minimum: _c, maxItems: _d, minItems: _e, ...rest } = a;
    return rest.type === 'array' && rest.items && (rest.items as Schema).anyOf ? { ...rest, items: leanUnion(rest.items as Schema) } : rest;
  });
  const { anyOf: _alts, ...others } = prop;
  if (bare.every((a) => Object.keys(a).length === 1 && typeof a.type === 'string')) return { type: bare.map((a) => a.type), ...others };
  return { anyOf: bare, ...others };
}

/** The request schema of `tool` as MCP shows it: the full one with short texts and without long patterns. */
export function leanInputSchema(tool: AnyTool, lang: Lang): JsonSchema {
  const full = jsonSchemaOf(tool, lang);
  const properties: Record<string, Schema> = {};
  for (const [name, prop] of Object.entries(full.properties ?? {})) {
    if (name === 'file') properties[name] = FILE_OBJECT;
    // A further file (`lookup-file`): the tool's summary says what it is.
    else if (tool.input.more?.some((m) => m.field === name)) properties[name] = FILE_OBJECT;
    else if (name === 'files') properties[name] = { type: 'array', items: FILE_OBJECT, minItems: prop.minItems, maxItems: prop.maxItems };
    else {
      const { description: _full, ...rest } = withoutLongPatterns(Array.isArray(prop.anyOf) ? leanUnion(prop) : prop);
      // Calls through /mcp?lang=en default to English (decisions.md), so the default is the URL's language.
      if (name === 'language') rest.default = lang;
      properties[name] = { ...rest, description: t(lang, shortTextKey(tool, name)!) };
    }
  }
  // additionalProperties is left out: the list of properties is every option there is, and a call naming
  // another gets `unknown_option` naming it.
  const { additionalProperties: _closed, ...schema } = full;
  return { ...schema, properties };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * The tool's annotations that carry meaning. MCP defines destructiveHint and idempotentHint as meaningful only
 * when readOnlyHint is false, so a read-only tool shows readOnlyHint and openWorldHint alone (the registry
 * keeps all four, tools.md §2.10). The title is the entry's own: annotations.title was its place before MCP
 * 2025-06-18.
 */
function meaningfulHints(hints: ToolAnnotations): ToolAnnotations {
  const { readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = hints;
  return readOnlyHint ? { readOnlyHint, openWorldHint } : { readOnlyHint, destructiveHint, idempotentHint, openWorldHint };
}

/** One tools/list entry. */
export function mcpTool(tool: AnyTool, lang: Lang): McpTool {
  return {
    name: tool.id,
    title: t(lang, `tools.${tool.id}.title`),
    description: t(lang, `tools.${tool.id}.summary`),
    inputSchema: leanInputSchema(tool, lang) as McpTool['inputSchema'],
    outputSchema: OUTPUT_SCHEMA as unknown as McpTool['outputSchema'],
    annotations: meaningfulHints(tool.annotations),
  };
}

const entries = new Map<Lang, ReadonlyMap<string, McpTool>>();
/** Lists by language and selection; a URL may name any subset, so the map forgets everything when full. */
const lists = new BoundedMap<string, { tools: McpTool[] }>(64);

function entriesOf(lang: Lang): ReadonlyMap<string, McpTool> {
  let byId = entries.get(lang);
  if (!byId) {
    byId = new Map(listTools().map((tool) => [tool.id, deepFreeze(mcpTool(tool, lang))]));
    entries.set(lang, byId);
  }
  return byId;
}

/** The tools/list result in `lang` for `selected` (every tool when undefined), in catalogue order. Shared and frozen. */
export function mcpToolList(lang: Lang, selected?: readonly AnyTool[]): { tools: McpTool[] } {
  const ids = (selected ?? listTools()).map((tool) => tool.id);
  const key = `${lang}:${selected ? ids.join(',') : '*'}`;
  const cached = lists.get(key);
  if (cached) return cached;
  const byId = entriesOf(lang);
  return lists.set(key, deepFreeze({ tools: ids.map((id) => byId.get(id)!) }));
}

/**
 * The byte budget of tools/list (issue 20): at most 40,000 bytes in either language once the 35 tools of the
 * specification are in, which between them have 156 options besides their file inputs and `language` (50 for
 * the 14 of interface.md, 106 for the 21 of tools.md). Each tool brings an allowance of `perTool` bytes plus
 * `perOption` per option, and 35 × perTool + 156 × perOption ≤ 40,000: while the listed tools stay within
 * the sum of their allowances, the 35 will fit, whatever order they come in (test/contract/mcp-size.test.ts).
 */
export const LIST_BUDGET = { bytes: 40_000, tools: 35, options: 156, perTool: 652, perOption: 110 } as const;

/**
 * Options of `tool` in the budget's sense: its properties besides the main file input and `language`. A
 * further file (merge-by-key's `lookup-file`) is one of the 156: the 106 of tools.md count it.
 */
export function budgetedOptions(tool: AnyTool): string[] {
  return [...(tool.input.more ?? []).map((m) => m.field), ...Object.keys(tool.options.entries)];
}

/** Bytes of the tools/list answer as the server sends it (a JSON-RPC response with a one-digit id). */
export function listBytes(lang: Lang, selected?: readonly AnyTool[]): number {
  return Buffer.byteLength(JSON.stringify({ result: mcpToolList(lang, selected), jsonrpc: '2.0', id: 1 }));
}

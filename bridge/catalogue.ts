// GET /api/v1/tools?lang=: one entry per registry tool, in registry order, with the same JSON Schema that MCP
// tools/list and OpenAPI show. GET /api/v1/tools/:tool gives one entry (404 unknown_tool otherwise).
import type { Request, Response } from 'express';
import { resolveLang, t, type Lang } from '../locales/index.ts';
import type { AnyTool } from '../tools/core/define.ts';
import { extensionsOf } from '../tools/core/files.ts';
import { getTool, listTools } from '../tools/core/registry.ts';
import { jsonSchemaOf, type JsonSchema } from '../tools/core/schema.ts';

export interface CatalogueEntry {
  id: string;
  name: string;
  title: string;
  description: string;
  category: { id: string; label: string };
  /** `more`: further files in fields of their own (merge-by-key's `lookup-file`), each one required file. */
  input: { field: 'file' | 'files'; formats: string[]; min?: number; max?: number; more?: { field: string; formats: string[] }[] };
  options: JsonSchema;
  endpoints: { rest: string; mcp: string };
}

export const MCP_PATH = '/mcp';

export function runPath(toolId: string): string {
  return `/api/v1/tools/${toolId}/run`;
}

/** The catalogue entry of one tool in `lang`. */
export function catalogueEntry(tool: AnyTool, lang: Lang): CatalogueEntry {
  const spec = tool.input;
  const input: CatalogueEntry['input'] = { field: spec.kind, formats: extensionsOf(spec.formats) };
  if (spec.kind === 'files') {
    input.min = spec.min;
    input.max = spec.max;
  }
  if (spec.more) input.more = spec.more.map((m) => ({ field: m.field, formats: m.formats.map((f) => `.${f}`) }));
  return {
    id: tool.id,
    name: tool.id,
    title: t(lang, `tools.${tool.id}.title`),
    description: t(lang, `tools.${tool.id}.description`),
    category: { id: tool.category, label: t(lang, `categories.${tool.category}`) },
    input,
    options: jsonSchemaOf(tool, lang),
    endpoints: { rest: runPath(tool.id), mcp: MCP_PATH },
  };
}

const cache = new Map<Lang, string>();

/** The whole catalogue as JSON text; the registry is fixed for the life of the process, so it is built once per language. */
function catalogueJson(lang: Lang): string {
  let json = cache.get(lang);
  if (json === undefined) {
    json = JSON.stringify(listTools().map((tool) => catalogueEntry(tool, lang)));
    cache.set(lang, json);
  }
  return json;
}

export function getCatalogue(req: Request, res: Response): void {
  res.type('application/json').set('Cache-Control', 'public, max-age=300').send(catalogueJson(resolveLang(req.query.lang)));
}

export function getCatalogueEntry(req: Request, res: Response): void {
  const tool = getTool(String(req.params.tool));
  res.set('Cache-Control', 'public, max-age=300').json(catalogueEntry(tool, resolveLang(req.query.lang)));
}

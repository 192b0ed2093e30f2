// Toolsets by URL: /mcp?toolsets=merge-split,convert and /mcp?tools=excel-to-csv,csv-to-excel (both may be
// given: the union). A client that loads only what it needs pays for fewer tool definitions on every turn.
// A name that is neither a toolset nor a tool refuses the connection with a message naming it and the valid
// names: a typo must never leave a client with a silently short list.
import { t, type Lang } from '../locales/index.ts';
import { CATEGORIES, type AnyTool } from '../tools/core/define.ts';
import { listTools, selectTools } from '../tools/core/registry.ts';

export type ToolSelection =
  /** `tools` undefined: the URL chose nothing, every tool is served. */
  | { ok: true; tools?: readonly AnyTool[]; ids?: ReadonlySet<string>; asked?: string }
  | { ok: false; message: string };

const SHOWN_NAMES = 5;
const SHOWN_CHARS = 60;

/** A name as the client sent it, safe to put in a message: no control or format characters, short, quoted. */
function shown(name: string): string {
  const clean = name.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '\ufffd');
  return JSON.stringify(clean.length > SHOWN_CHARS ? `${clean.slice(0, SHOWN_CHARS)}…` : clean);
}

function listed(names: readonly string[]): string {
  const more = names.length - SHOWN_NAMES;
  return names.slice(0, SHOWN_NAMES).map(shown).join(', ') + (more > 0 ? ` (+${more})` : '');
}

/** The names of one query parameter: comma lists, the parameter possibly repeated; undefined when absent. */
function namesOf(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(','));
  return parts.map((s) => s.trim()).filter((s) => s !== '');
}

/** The selection a request's URL makes, or why it is refused (in `lang`, the URL's language). */
export function selectionFromQuery(query: Record<string, unknown>, lang: Lang): ToolSelection {
  const toolsets = namesOf(query.toolsets);
  const tools = namesOf(query.tools);
  if (toolsets === undefined && tools === undefined) return { ok: true };
  const known = { toolsets: CATEGORIES.join(', '), tools: listTools().map((tool) => tool.id).join(', ') };
  if (toolsets?.length === 0) return { ok: false, message: t(lang, 'mcp.selection.noToolset', known) };
  if (tools?.length === 0) return { ok: false, message: t(lang, 'mcp.selection.noTool', known) };
  const chosen = selectTools({ toolsets: toolsets ?? [], tools: tools ?? [] });
  if (chosen.unknownToolsets.length > 0) return { ok: false, message: t(lang, 'mcp.selection.unknownToolsets', { ...known, names: listed(chosen.unknownToolsets) }) };
  if (chosen.unknownTools.length > 0) return { ok: false, message: t(lang, 'mcp.selection.unknownTools', { ...known, names: listed(chosen.unknownTools) }) };
  const asked = [toolsets && `toolsets=${toolsets.join(',')}`, tools && `tools=${tools.join(',')}`].filter(Boolean).join('&');
  return { ok: true, tools: chosen.tools, ids: new Set(chosen.tools.map((tool) => tool.id)), asked };
}

// Lookups over the one explicit list of tools in tools/index.ts.
import { tools } from '../index.ts';
import { CATEGORIES, type AnyTool } from './define.ts';
import { ToolError } from './errors.ts';

const BY_ID = new Map<string, AnyTool>(tools.map((tool) => [tool.id, tool as AnyTool]));

export function listTools(): readonly AnyTool[] {
  return tools as readonly AnyTool[];
}

export function hasTool(id: string): boolean {
  return BY_ID.has(id);
}

export function getTool(id: string): AnyTool {
  const tool = BY_ID.get(id);
  if (!tool) throw new ToolError('unknown_tool', { params: { tool: id.slice(0, 100) } });
  return tool;
}

/** A choice of tools by toolset (a category id) and by tool id, as an MCP URL makes it. */
export interface ToolChoice {
  toolsets: readonly string[];
  tools: readonly string[];
}

/**
 * The tools of the named toolsets and the named tools, each once, in catalogue order; names that are neither
 * are returned apart so that the caller can refuse them (a wrong name must never give a silently short list).
 */
export function selectTools(choice: ToolChoice): { tools: AnyTool[]; unknownToolsets: string[]; unknownTools: string[] } {
  const known = new Set<string>(CATEGORIES);
  const unknownToolsets = choice.toolsets.filter((name) => !known.has(name));
  const unknownTools = choice.tools.filter((id) => !BY_ID.has(id));
  const toolsets = new Set(choice.toolsets);
  const ids = new Set(choice.tools);
  return { tools: listTools().filter((tool) => toolsets.has(tool.category) || ids.has(tool.id)), unknownToolsets, unknownTools };
}

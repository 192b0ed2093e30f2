// Lookups over the one explicit list of tools in tools/index.ts.
import { tools } from '../index.ts';
import type { AnyTool } from './define.ts';
import { ToolError } from './errors.ts';

const BY_ID = new Map<string, AnyTool>(tools.map((tool) => [tool.id, tool as AnyTool]));

export function listTools(): readonly AnyTool[] {
  return tools as readonly AnyTool[];
}

export function getTool(id: string): AnyTool {
  const tool = BY_ID.get(id);
  if (!tool) throw new ToolError('unknown_tool', { params: { tool: id.slice(0, 100) } });
  return tool;
}

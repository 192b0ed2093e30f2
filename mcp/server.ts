// MCP server built from the registry. It uses the SDK's low-level Server, not McpServer.registerTool,
// because registerTool takes only Zod schemas and ours are valibot (JSON Schema via @valibot/to-json-schema).
// SDK v2's Standard Schema support (toStandardJsonSchema) is the path to the high-level API later.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, InitializeRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { resolveLang, t } from '../locales/index.ts';
import { asToolError, ToolError } from '../tools/core/errors.ts';
import type { Caller } from '../tools/core/invoke.ts';
import type { Kernel } from '../tools/core/kernel.ts';
import { hasTool } from '../tools/core/registry.ts';
import type { ToolSelection } from './selection.ts';
import { toCallResult, toErrorResult } from './to-call-result.ts';
import { mcpToolList } from './tool-list.ts';

const VERSION = '1.0.0';

/** Hook for the HTTP layer to see each call's quota state (for RateLimit-* headers). */
export type OnRate = (rate: { limit: number; remaining: number; reset: number } | undefined, retryAfter?: number) => void;

/** The arguments of a tools/call as the client sent them, by JSON-RPC request id (see router.ts). */
export type RawArguments = (id: string | number) => Record<string, unknown> | undefined;

/**
 * A server for one request (stateless): `caller.lang` is the default language of this URL, `selection` the
 * tools its query chose. A selection naming an unknown tool or toolset refuses initialize, tools/list and
 * tools/call with a JSON-RPC error, so a client learns of the typo when it connects.
 */
export function buildMcpServer(kernel: Kernel, caller: Caller, onRate: OnRate = () => {}, rawArguments: RawArguments = () => undefined, selection: ToolSelection = { ok: true }): Server {
  const lang = caller.lang ?? 'es';
  const server = new Server({ name: 'spreadsheet-tools', title: 'Spreadsheet Tools', version: VERSION }, { capabilities: { tools: {} }, instructions: t(lang, 'mcp.instructions') });
  if (!selection.ok) {
    const refuse = () => {
      throw new McpError(ErrorCode.InvalidParams, selection.message);
    };
    server.setRequestHandler(InitializeRequestSchema, refuse);
    server.setRequestHandler(ListToolsRequestSchema, refuse);
    server.setRequestHandler(CallToolRequestSchema, refuse);
    return server;
  }
  server.setRequestHandler(ListToolsRequestSchema, async () => mcpToolList(lang, selection.tools));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = rawArguments(extra.requestId) ?? ((request.params.arguments ?? {}) as Record<string, unknown>);
    const name = request.params.name;
    try {
      // A tool left out of the selection is refused as the kernel refuses an unknown one, without a run.
      if (selection.ids && !selection.ids.has(name) && hasTool(name)) {
        throw new ToolError('unknown_tool', { messageKey: 'error-details.not-selected', params: { tool: name, selection: selection.asked ?? '' } });
      }
      const result = await kernel.invoke(name, { args }, caller);
      onRate(result.rate);
      return toCallResult(result);
    } catch (err) {
      const e = asToolError(err);
      onRate(e.detail.rate, e.detail.retryAfter);
      return toErrorResult(e, resolveLang(args.language, lang));
    }
  });
  return server;
}

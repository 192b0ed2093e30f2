// MCP server built from the registry. It uses the SDK's low-level Server, not McpServer.registerTool,
// because registerTool takes only Zod schemas and ours are valibot (JSON Schema via @valibot/to-json-schema).
// SDK v2's Standard Schema support (toStandardJsonSchema) is the path to the high-level API later.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { resolveLang, t, type Lang } from '../locales/index.ts';
import { asToolError } from '../tools/core/errors.ts';
import type { Caller } from '../tools/core/invoke.ts';
import type { Kernel } from '../tools/core/kernel.ts';
import { listTools } from '../tools/core/registry.ts';
import { jsonSchemaOf } from '../tools/core/schema.ts';
import { OUTPUT_SCHEMA } from './output-schema.ts';
import { toCallResult, toErrorResult } from './to-call-result.ts';

const VERSION = '1.0.0';

/** Hook for the HTTP layer to see each call's quota state (for RateLimit-* headers). */
export type OnRate = (rate: { limit: number; remaining: number; reset: number } | undefined, retryAfter?: number) => void;

/** The tools/list entries in `lang`. */
export function mcpToolList(lang: Lang) {
  return listTools().map((tool) => ({
    name: tool.id,
    title: t(lang, `tools.${tool.id}.title`),
    description: t(lang, `tools.${tool.id}.description`),
    inputSchema: jsonSchemaOf(tool, lang) as { type: 'object'; [k: string]: unknown },
    outputSchema: OUTPUT_SCHEMA as unknown as { type: 'object'; [k: string]: unknown },
    annotations: { title: t(lang, `tools.${tool.id}.title`), ...tool.annotations },
  }));
}

/** The arguments of a tools/call as the client sent them, by JSON-RPC request id (see router.ts). */
export type RawArguments = (id: string | number) => Record<string, unknown> | undefined;

/** A server for one request (stateless): `caller.lang` is the default language of this URL. */
export function buildMcpServer(kernel: Kernel, caller: Caller, onRate: OnRate = () => {}, rawArguments: RawArguments = () => undefined): Server {
  const lang = caller.lang ?? 'es';
  const server = new Server({ name: 'spreadsheet-tools', title: 'Spreadsheet Tools', version: VERSION }, { capabilities: { tools: {} }, instructions: t(lang, 'mcp.instructions') });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: mcpToolList(lang) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = rawArguments(extra.requestId) ?? ((request.params.arguments ?? {}) as Record<string, unknown>);
    try {
      const result = await kernel.invoke(request.params.name, { args }, caller);
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

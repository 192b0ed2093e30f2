// `spreadsheet-tools mcp --stdio`: the same tools over MCP on standard input and output, for assistants that
// launch local servers. The server is the service's own (buildMcpServer) on a local kernel; what changes is
// where files come from: besides `{ name, contentBase64 }`, a file may be given as a path, read from the
// working folder and never from outside it (symbolic links are followed, then checked).
import { realpathSync, statSync, readFileSync } from 'node:fs';
import { basename, isAbsolute, relative, resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { t, type Lang } from '../locales/index.ts';
import { buildMcpServer } from '../mcp/server.ts';
import { mcpToolList } from '../mcp/tool-list.ts';
import { toCallResult, toErrorResult } from '../mcp/to-call-result.ts';
import { MB } from '../tools/core/config.ts';
import { asToolError, ToolError } from '../tools/core/errors.ts';
import { decodeBase64, fileFields, type InputFile } from '../tools/core/files.ts';
import type { Kernel } from '../tools/core/kernel.ts';
import { getTool } from '../tools/core/registry.ts';
import { LOCAL_CALLER, localKernel } from './local.ts';

type Schema = Record<string, unknown>;

/** The tool list, each file property also admitting a path in the working folder. */
export function stdioToolList(lang: Lang, root: string) {
  const path: Schema = { type: 'string', minLength: 1, description: t(lang, 'cli.mcp.path', { root }) };
  return mcpToolList(lang).tools.map((tool) => {
    const props = { ...(tool.inputSchema.properties as Record<string, Schema>) };
    if (props.file) props.file = { description: props.file.description, anyOf: [path, withoutDescription(props.file)] };
    for (const { field } of getTool(tool.name).input.more ?? []) {
      if (props[field]) props[field] = { description: props[field].description, anyOf: [path, withoutDescription(props[field])] };
    }
    if (props.files) {
      const files = props.files as Schema;
      props.files = { ...files, items: { anyOf: [path, files.items as Schema] } };
    }
    return { ...tool, inputSchema: { ...tool.inputSchema, properties: props } };
  });
}

function withoutDescription({ description: _d, ...rest }: Schema): Schema {
  return rest;
}

/** Reads one file given by path, refusing a path that leads outside `root` (the real working folder). */
function readConfined(given: string, field: string, root: string, budget: { left: number; maxMb: number }): InputFile {
  let real: string;
  try {
    real = realpathSync(resolve(root, given));
  } catch {
    throw new ToolError('invalid_option', { option: field, messageKey: 'cli.errors.path-missing', params: { path: given.slice(0, 200), root } });
  }
  const rel = relative(root, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new ToolError('invalid_option', { option: field, messageKey: 'cli.errors.path-outside', params: { path: given.slice(0, 200), root } });
  }
  const st = statSync(real);
  if (!st.isFile()) throw new ToolError('invalid_option', { option: field, messageKey: 'cli.errors.path-missing', params: { path: given.slice(0, 200), root } });
  budget.left -= st.size;
  if (budget.left < 0) throw new ToolError('input_too_large', { option: field, params: { max: budget.maxMb } });
  return { name: basename(real), bytes: new Uint8Array(readFileSync(real)) };
}

/**
 * The files of a call when some are given by path: all of them read (paths) or decoded (base64 objects) here,
 * in their order; undefined when none is a path, and the kernel takes the arguments as they are.
 */
function filesByPath(toolId: string, args: Record<string, unknown>, root: string, maxMb: number): InputFile[] | undefined {
  const spec = getTool(toolId).input;
  const value = args[spec.kind];
  const list = spec.kind === 'files' && Array.isArray(value) ? value : [value];
  // Further files (`lookup-file`) given in the call, each its own field.
  const more = (spec.more ?? []).filter((m) => args[m.field] !== undefined && args[m.field] !== null).map((m) => ({ field: m.field, value: args[m.field] }));
  if (!list.some((f) => typeof f === 'string') && !more.some((m) => typeof m.value === 'string')) return undefined;
  const budget = { left: maxMb * MB, maxMb };
  const main = value === undefined || value === null ? [] : list.map((f) => fileOf(f, spec.kind, root, budget));
  return [...main, ...more.map((m) => ({ ...fileOf(m.value, m.field, root, budget), field: m.field }))];
}

/** One file of a call: a path read here, or a base64 object decoded. */
function fileOf(f: unknown, field: string, root: string, budget: { left: number; maxMb: number }): InputFile {
  if (typeof f === 'string') return readConfined(f, field, root, budget);
  const o = f as { name?: unknown; contentBase64?: unknown } | null;
  if (!o || typeof o !== 'object' || typeof o.name !== 'string' || typeof o.contentBase64 !== 'string') {
    throw new ToolError('invalid_option', { option: field, params: { option: field, expected: 'path or { name, contentBase64 }', received: typeof f } });
  }
  const bytes = decodeBase64(o.contentBase64, field);
  budget.left -= bytes.byteLength;
  if (budget.left < 0) throw new ToolError('input_too_large', { option: field, params: { max: budget.maxMb } });
  return { name: o.name, bytes };
}

export async function serveStdio(lang: Lang): Promise<void> {
  // Standard output carries the protocol: anything logged goes to standard error.
  console.log = console.error;
  console.info = console.error;
  const root = realpathSync(process.cwd());
  const kernel: Kernel = localKernel();
  const caller = { ...LOCAL_CALLER, lang };
  const server = buildMcpServer(kernel, caller);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: stdioToolList(lang, root) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    try {
      const files = filesByPath(request.params.name, args, root, kernel.config.MAX_INPUT_MB);
      const fields = files ? fileFields(getTool(request.params.name).input) : [];
      const rest = files ? Object.fromEntries(Object.entries(args).filter(([k]) => !fields.includes(k))) : args;
      return toCallResult(await kernel.invoke(request.params.name, { args: rest, files }, caller));
    } catch (err) {
      return toErrorResult(asToolError(err), typeof args.language === 'string' && (args.language === 'es' || args.language === 'en') ? args.language : lang);
    }
  });
  const closed = new Promise<void>((done) => (server.onclose = done));
  await server.connect(new StdioServerTransport());
  process.stdin.on('end', () => void server.close());
  await closed;
  await kernel.close(0);
}

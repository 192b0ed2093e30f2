// InvokeResult | ToolError → MCP CallToolResult, shaped as decisions.md says: a text block, one embedded
// resource per file, structuredContent = RunResponse without the base64 (or the Error body, isError).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { t, type Lang } from '../locales/index.ts';
import type { ToolError } from '../tools/core/errors.ts';
import type { InvokeResult } from '../tools/core/invoke.ts';
import { plainName } from '../tools/core/output.ts';
import { errorBody, type RunResponse } from '../tools/core/wire.ts';

/** Resource URI of a result file: it ends in the file name, as clients use it to name what they save. */
export function resultUri(tool: string, name: string): string {
  // Result names are safe names already; encodeURIComponent throws on a lone surrogate whatever it is given.
  return `spreadsheet-tools://results/${tool}/${encodeURIComponent(plainName(name))}`;
}

export function toCallResult(r: InvokeResult): CallToolResult {
  const structured: RunResponse = {
    ok: true,
    tool: r.tool,
    files: r.files.map((f) => ({ name: f.name, contentType: f.contentType, size: f.bytes.byteLength, uri: resultUri(r.tool, f.name) })),
    preview: r.preview,
    textPreview: r.textPreview,
    messages: r.messages,
  };
  const summary = t(r.lang, 'messages.summary', { tool: r.tool, count: r.files.length, names: r.files.map((f) => f.name).join(', ') });
  const lines = [summary, ...r.messages.map((m) => `[${m.level}] ${m.text}`)];
  if (r.textPreview !== null) lines.push('', r.textPreview);
  return {
    content: [
      { type: 'text', text: lines.join('\n') },
      ...r.files.map((f) => ({
        type: 'resource' as const,
        resource: { uri: resultUri(r.tool, f.name), mimeType: f.contentType, blob: Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength).toString('base64') },
      })),
    ],
    structuredContent: structured as unknown as Record<string, unknown>,
  };
}

export function toErrorResult(err: ToolError, lang: Lang): CallToolResult {
  const body = errorBody(err, lang);
  return { isError: true, content: [{ type: 'text', text: `${body.error}: ${body.message}` }], structuredContent: body as unknown as Record<string, unknown> };
}

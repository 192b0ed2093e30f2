// JSON Schemas of the wire shapes in wire.ts (Error body, RunResponse and its parts), written once: the MCP
// outputSchema inlines them, the OpenAPI document names them as components and adds descriptions.
import { ERROR_CODES } from './errors.ts';

type Schema = Record<string, unknown>;

export const ERROR_BODY_SCHEMA = {
  type: 'object',
  required: ['ok', 'error', 'message', 'option'],
  additionalProperties: false,
  properties: {
    ok: { type: 'boolean', const: false },
    error: { type: 'string', enum: [...ERROR_CODES] },
    message: { type: 'string' },
    option: { type: ['string', 'null'] },
  },
};

export const MESSAGE_SCHEMA = {
  type: 'object',
  required: ['level', 'text'],
  properties: { level: { type: 'string', enum: ['info', 'warning', 'error'] }, text: { type: 'string' } },
};

export const PREVIEW_SCHEMA = {
  type: 'object',
  required: ['columns', 'rows', 'totalRows', 'truncated', 'sheet'],
  properties: {
    columns: { type: 'array', items: { type: 'string' } },
    rows: { type: 'array', items: { type: 'array', items: { type: ['string', 'number', 'boolean', 'null'] } } },
    totalRows: { type: 'integer', minimum: 0 },
    truncated: { type: 'boolean' },
    sheet: { type: ['string', 'null'] },
  },
};

/** A result file: its bytes inline (`base64`, REST JSON) or in an embedded resource named by `uri` (MCP). */
export function resultFileSchema(bytes: 'base64' | 'uri'): Schema {
  const carrier = bytes === 'base64' ? { contentBase64: { type: 'string', contentEncoding: 'base64' } } : { uri: { type: 'string' } };
  return {
    type: 'object',
    required: ['name', 'contentType', 'size', bytes === 'base64' ? 'contentBase64' : 'uri'],
    properties: { name: { type: 'string' }, contentType: { type: 'string' }, size: { type: 'integer', minimum: 0 }, ...carrier },
  };
}

/** RunResponse, with its parts given as schemas (inline) or as references to them. */
export function runResponseSchema(parts: { file: Schema; preview: Schema; message: Schema }): Schema {
  return {
    type: 'object',
    required: ['ok', 'tool', 'files', 'preview', 'textPreview', 'messages'],
    properties: {
      ok: { type: 'boolean', const: true },
      tool: { type: 'string' },
      files: { type: 'array', items: parts.file },
      preview: { anyOf: [parts.preview, { type: 'null' }] },
      textPreview: { type: ['string', 'null'] },
      messages: { type: 'array', items: parts.message },
    },
  };
}

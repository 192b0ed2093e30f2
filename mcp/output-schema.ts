// The outputSchema every tool advertises. SDK clients validate structuredContent against it even when
// isError is true, so it admits both the success shape and the Error body (decisions.md).
import { ERROR_CODES } from '../tools/core/errors.ts';

const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });
const cell = { type: ['string', 'number', 'boolean', 'null'] };

export const SUCCESS_SCHEMA = {
  type: 'object',
  required: ['ok', 'tool', 'files', 'preview', 'textPreview', 'messages'],
  properties: {
    ok: { const: true },
    tool: { type: 'string' },
    files: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'contentType', 'size'],
        properties: { name: { type: 'string' }, contentType: { type: 'string' }, size: { type: 'integer' }, uri: { type: 'string' }, contentBase64: { type: 'string' } },
      },
    },
    preview: nullable({
      type: 'object',
      required: ['columns', 'rows', 'totalRows', 'truncated', 'sheet'],
      properties: {
        columns: { type: 'array', items: { type: 'string' } },
        rows: { type: 'array', items: { type: 'array', items: cell } },
        totalRows: { type: 'integer' },
        truncated: { type: 'boolean' },
        sheet: { type: ['string', 'null'] },
      },
    }),
    textPreview: { type: ['string', 'null'] },
    messages: {
      type: 'array',
      items: { type: 'object', required: ['level', 'text'], properties: { level: { enum: ['info', 'warning', 'error'] }, text: { type: 'string' } } },
    },
  },
} as const;

export const ERROR_SCHEMA = {
  type: 'object',
  required: ['ok', 'error', 'message', 'option'],
  properties: {
    ok: { const: false },
    error: { enum: ERROR_CODES },
    message: { type: 'string' },
    option: { type: ['string', 'null'] },
  },
} as const;

export const OUTPUT_SCHEMA = { type: 'object', required: ['ok'], anyOf: [SUCCESS_SCHEMA, ERROR_SCHEMA] } as const;

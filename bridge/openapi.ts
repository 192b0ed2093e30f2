// GET /api/v1/openapi.json: the OpenAPI 3.1 document, generated from the registry, ERROR_STATUS and the
// locales (`?lang=en` for English; Spanish by default). Nothing in it is written by hand per tool.
import type { Request, Response } from 'express';
import { LANGS, resolveLang, t, type Lang } from '../locales/index.ts';
import type { Config } from '../tools/core/config.ts';
import type { AnyTool } from '../tools/core/define.ts';
import { extensionsOf, fileFields } from '../tools/core/files.ts';
import { ERROR_CODES, ERROR_STATUS } from '../tools/core/errors.ts';
import { listTools } from '../tools/core/registry.ts';
import { jsonSchemaOf, type JsonSchema } from '../tools/core/schema.ts';
import { ERROR_BODY_SCHEMA, MESSAGE_SCHEMA, PREVIEW_SCHEMA, resultFileSchema, runResponseSchema } from '../tools/core/wire-schema.ts';
import { runPath } from './catalogue.ts';
import { MAX_FIELDS } from './multipart.ts';
import { MESSAGES_HEADER } from './run.ts';

export const OPENAPI_VERSION = '3.1.0';
/** The interface version (spec "Versioning"); it changes only with a new /api/vN. */
export const API_VERSION = '1.0.0';

type Obj = Record<string, unknown>;
const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Error responses of a run, by status; each names the codes that share it. */
const ERROR_RESPONSES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  413: 'PayloadTooLarge',
  429: 'TooManyRequests',
  503: 'ServiceUnavailable',
  500: 'InternalError',
};

function codesWithStatus(status: number): string {
  return ERROR_CODES.filter((c) => ERROR_STATUS[c] === status)
    .map((c) => `\`${c}\``)
    .join(', ');
}

/** The multipart form of a tool's request: the same properties, with the file field as binary parts. */
export function multipartSchemaOf(tool: AnyTool, lang: Lang): JsonSchema {
  const schema = jsonSchemaOf(tool, lang);
  const props = schema.properties ?? {};
  const field = tool.input.kind;
  const description = t(lang, 'openapi.multipart.file');
  const binary = { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' };
  props[field] =
    tool.input.kind === 'file'
      ? { ...binary, description }
      : { type: 'array', items: binary, minItems: tool.input.min, maxItems: tool.input.max, description };
  // A further file (`lookup-file`) is one binary part of its own name; its text is the option's.
  for (const { field: more } of tool.input.more ?? []) props[more] = { ...binary, description: props[more]?.description };
  schema.description = t(lang, 'openapi.multipart.description');
  return schema;
}

function runOperation(tool: AnyTool, lang: Lang, config: Config): Obj {
  const formats = extensionsOf(tool.input.formats).join(', ');
  const errors = Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([status, name]) => [status, ref('responses', name)]));
  return {
    operationId: tool.id,
    tags: [t(lang, `categories.${tool.category}`)],
    summary: t(lang, `tools.${tool.id}.title`),
    description: [t(lang, `tools.${tool.id}.description`), '', t(lang, 'openapi.run.input', { field: tool.input.kind, formats }), ...(tool.input.more ?? []).map((m) => t(lang, 'openapi.run.input', { field: m.field, formats: m.formats.map((f) => `.${f}`).join(', ') }))].join('\n'),
    'x-mcp-tool': tool.id,
    parameters: [ref('parameters', 'download'), ref('parameters', 'lang')],
    requestBody: {
      required: true,
      description: t(lang, 'openapi.run.body'),
      content: {
        'application/json': { schema: jsonSchemaOf(tool, lang) },
        'multipart/form-data': {
          schema: multipartSchemaOf(tool, lang),
          encoding: Object.fromEntries(fileFields(tool.input).map((field) => [field, { contentType: 'application/octet-stream' }])),
        },
      },
    },
    responses: {
      200: {
        description: t(lang, 'openapi.run.ok', { inline: config.MAX_INLINE_RESULT_MB, download: config.MAX_RESULT_MB }),
        headers: {
          'RateLimit-Limit': ref('headers', 'RateLimit-Limit'),
          'RateLimit-Remaining': ref('headers', 'RateLimit-Remaining'),
          'RateLimit-Reset': ref('headers', 'RateLimit-Reset'),
          'Content-Disposition': ref('headers', 'Content-Disposition'),
          [MESSAGES_HEADER]: ref('headers', MESSAGES_HEADER),
        },
        content: {
          'application/json': { schema: ref('schemas', 'RunResponse') },
          'application/octet-stream': { schema: { type: 'string', format: 'binary', description: t(lang, 'openapi.run.binary') } },
        },
      },
      ...errors,
    },
  };
}

/** A plain GET of the service's own documents: no credentials, no quota. */
function getOperation(id: string, lang: Lang, content: Obj, parameters: Obj[] = [], extra: Obj = {}): Obj {
  return {
    get: {
      operationId: id,
      tags: [t(lang, 'openapi.tags.service')],
      summary: t(lang, `openapi.operations.${id}.summary`),
      description: t(lang, `openapi.operations.${id}.description`),
      security: [],
      parameters,
      responses: { 200: { description: t(lang, `openapi.operations.${id}.ok`), content }, ...extra },
    },
  };
}

/** A shared wire schema with this document's descriptions: on the schema, and on some of its properties. */
function described(schema: Obj, description: string, properties: Record<string, string> = {}): Obj {
  const props = { ...(schema.properties as Record<string, Obj>) };
  for (const [name, text] of Object.entries(properties)) props[name] = { ...props[name], description: text };
  return { ...schema, description, properties: props };
}

function schemas(lang: Lang): Obj {
  const d = (key: string) => t(lang, `openapi.schemas.${key}`);
  const runResponse = runResponseSchema({ file: ref('schemas', 'ResultFile'), preview: ref('schemas', 'Preview'), message: ref('schemas', 'Message') });
  return {
    Error: described(ERROR_BODY_SCHEMA, d('error'), { error: d('errorCode'), message: d('errorMessage'), option: d('errorOption') }),
    FileObject: {
      type: 'object',
      description: d('fileObject'),
      required: ['name', 'contentBase64'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 255, description: d('fileObjectName') },
        contentBase64: { type: 'string', contentEncoding: 'base64', description: d('fileObjectContent') },
      },
    },
    ResultFile: described(resultFileSchema('base64'), d('resultFile'), { size: d('resultFileSize') }),
    Message: described(MESSAGE_SCHEMA, d('message')),
    Preview: described(PREVIEW_SCHEMA, d('preview')),
    RunResponse: described(runResponse, d('runResponse'), { textPreview: d('runResponseTextPreview') }),
    CatalogueEntry: {
      type: 'object',
      description: d('catalogueEntry'),
      required: ['id', 'name', 'title', 'description', 'category', 'input', 'options', 'endpoints'],
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        title: { type: 'string' },
        description: { type: 'string' },
        category: { type: 'object', required: ['id', 'label'], properties: { id: { type: 'string' }, label: { type: 'string' } } },
        input: {
          type: 'object',
          required: ['field', 'formats'],
          properties: {
            field: { type: 'string', enum: ['file', 'files'] },
            formats: { type: 'array', items: { type: 'string' } },
            min: { type: 'integer' },
            max: { type: 'integer' },
          },
        },
        options: { type: 'object', description: d('catalogueEntryOptions') },
        endpoints: { type: 'object', required: ['rest', 'mcp'], properties: { rest: { type: 'string' }, mcp: { type: 'string' } } },
      },
    },
  };
}

function components(lang: Lang, config: Config): Obj {
  const header = (key: string, schema: Obj) => ({ description: t(lang, `openapi.headers.${key}`), schema });
  const errorResponse = (status: number, headers?: Obj) => ({
    description: t(lang, `openapi.responses.${status}`, { codes: codesWithStatus(status), maxInput: config.MAX_INPUT_MB, maxParts: config.MAX_FILE_PARTS }),
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: ref('schemas', 'Error') } },
  });
  const rate = {
    'RateLimit-Limit': ref('headers', 'RateLimit-Limit'),
    'RateLimit-Remaining': ref('headers', 'RateLimit-Remaining'),
    'RateLimit-Reset': ref('headers', 'RateLimit-Reset'),
  };
  return {
    schemas: schemas(lang),
    parameters: {
      download: { name: 'download', in: 'query', required: false, description: t(lang, 'openapi.parameters.download'), schema: { type: 'boolean', default: false } },
      lang: { name: 'lang', in: 'query', required: false, description: t(lang, 'openapi.parameters.lang'), schema: { type: 'string', enum: [...LANGS], default: 'es' } },
      tool: { name: 'tool', in: 'path', required: true, description: t(lang, 'openapi.parameters.tool'), schema: { type: 'string', enum: listTools().map((x) => x.id) } },
    },
    headers: {
      'RateLimit-Limit': header('RateLimit-Limit', { type: 'integer' }),
      'RateLimit-Remaining': header('RateLimit-Remaining', { type: 'integer' }),
      'RateLimit-Reset': header('RateLimit-Reset', { type: 'integer' }),
      'Retry-After': header('Retry-After', { type: 'integer', minimum: 1 }),
      'Content-Disposition': header('Content-Disposition', { type: 'string' }),
      [MESSAGES_HEADER]: header(MESSAGES_HEADER, { type: 'string' }),
    },
    responses: {
      BadRequest: errorResponse(400),
      Unauthorized: errorResponse(401),
      Forbidden: errorResponse(403),
      NotFound: errorResponse(404),
      PayloadTooLarge: errorResponse(413),
      TooManyRequests: errorResponse(429, { 'Retry-After': ref('headers', 'Retry-After'), ...rate }),
      ServiceUnavailable: errorResponse(503, { 'Retry-After': ref('headers', 'Retry-After') }),
      InternalError: errorResponse(500),
    },
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: t(lang, 'openapi.security.bearer') },
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: t(lang, 'openapi.security.header') },
    },
  };
}

/** The whole document in `lang`. */
export function openApiDocument(config: Config, lang: Lang): Obj {
  const tools = listTools();
  const categories = [...new Set(tools.map((x) => x.category))];
  const paths: Obj = {};
  for (const tool of tools) paths[runPath(tool.id)] = { post: runOperation(tool, lang, config) };
  const json = (schema: Obj) => ({ 'application/json': { schema } });
  const text = { 'text/plain': { schema: { type: 'string' } } };
  Object.assign(paths, {
    '/api/v1/tools': getOperation('listTools', lang, json({ type: 'array', items: ref('schemas', 'CatalogueEntry') }), [ref('parameters', 'lang')]),
    '/api/v1/tools/{tool}': getOperation('getTool', lang, json(ref('schemas', 'CatalogueEntry')), [ref('parameters', 'tool'), ref('parameters', 'lang')], {
      404: ref('responses', 'NotFound'),
    }),
    '/api/v1/openapi.json': getOperation('getOpenApi', lang, json({ type: 'object' }), [ref('parameters', 'lang')]),
    '/llms.txt': getOperation('getLlmsTxt', lang, text, [ref('parameters', 'lang')]),
    '/health': getOperation(
      'getHealth',
      lang,
      json({ type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' }, jobs: { type: 'integer' }, maxJobs: { type: 'integer' } } }),
    ),
  });
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: t(lang, 'openapi.title'),
      version: API_VERSION,
      description: t(lang, 'openapi.description', {
        maxInput: config.MAX_INPUT_MB,
        inline: config.MAX_INLINE_RESULT_MB,
        download: config.MAX_RESULT_MB,
        anon: config.ANON_RUNS_PER_HOUR,
        keyed: config.KEY_RUNS_PER_HOUR,
        parts: config.MAX_FILE_PARTS,
        fields: MAX_FIELDS,
      }),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    security: [{}, { bearerAuth: [] }, { apiKeyHeader: [] }],
    tags: [
      ...categories.map((c) => ({ name: t(lang, `categories.${c}`), 'x-category': c })),
      { name: t(lang, 'openapi.tags.service'), description: t(lang, 'openapi.tags.serviceDescription') },
    ],
    paths,
    components: components(lang, config),
    'x-error-codes': { ...ERROR_STATUS },
  };
}

/** Serves the document; it depends only on the registry, the config and the language, so it is built once each. */
export function openApiHandler(config: Config) {
  const cache = new Map<Lang, string>();
  return function getOpenApi(req: Request, res: Response): void {
    const lang = resolveLang(req.query.lang);
    let json = cache.get(lang);
    if (json === undefined) {
      json = JSON.stringify(openApiDocument(config, lang));
      cache.set(lang, json);
    }
    res.type('application/json').set('Cache-Control', 'public, max-age=300').send(json);
  };
}

// The OpenAPI document through the real HTTP server: one POST per registry tool with the kernel's schemas,
// every $ref resolving, every response described, error tables from ERROR_STATUS, and a validator's word.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import SwaggerParser from '@apidevtools/swagger-parser';
import { LANGS, t, type Lang } from '../../locales/index.ts';
import { ERROR_CODES, ERROR_STATUS } from '../../tools/core/errors.ts';
import { listTools } from '../../tools/core/registry.ts';
import { jsonSchemaOf } from '../../tools/core/schema.ts';
import { startServer, type TestServer } from '../helpers/http.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

let srv: TestServer;
const docs = {} as Record<Lang, Json>;
before(async () => {
  srv = await startServer({}, { jobs: 'inline' });
  for (const lang of LANGS) {
    const res = await fetch(`${srv.url}/api/v1/openapi.json?lang=${lang}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    docs[lang] = await res.json();
  }
});
after(() => srv.close());

/** Follows a local `#/...` reference. */
function resolve(doc: Json, ref: string): Json {
  assert.ok(ref.startsWith('#/'), `local ref: ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((node: Json, key) => (node === undefined ? undefined : node[key]), doc);
}

const deref = (doc: Json, node: Json) => (node && typeof node.$ref === 'string' ? resolve(doc, node.$ref) : node);

function refsIn(node: Json, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((x) => refsIn(x, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsIn(v, out);
    }
  }
  return out;
}

test('the document is OpenAPI 3.1.0, version 1.0.0, Spanish by default', async () => {
  const doc = docs.es;
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.0.0');
  assert.equal(doc.info.title, t('es', 'openapi.title'));
  assert.ok(doc.info.description.length > 0);
  assert.deepEqual(doc.servers, [{ url: '/' }]);
  assert.deepEqual(await (await fetch(`${srv.url}/api/v1/openapi.json`)).json(), docs.es);
  assert.equal(docs.en.info.title, t('en', 'openapi.title'));
});

for (const lang of LANGS) {
  test(`[${lang}] one POST operation per registry tool, with the kernel's schema and localized texts`, () => {
    const doc = docs[lang];
    const runPaths = Object.keys(doc.paths).filter((p) => p.endsWith('/run'));
    assert.deepEqual(runPaths, listTools().map((x) => `/api/v1/tools/${x.id}/run`));
    for (const tool of listTools()) {
      const item = doc.paths[`/api/v1/tools/${tool.id}/run`];
      assert.deepEqual(Object.keys(item), ['post']);
      const op = item.post;
      assert.equal(op.operationId, tool.id);
      assert.deepEqual(op.tags, [t(lang, `categories.${tool.category}`)]);
      assert.equal(op.summary, t(lang, `tools.${tool.id}.title`));
      assert.ok(op.description.startsWith(t(lang, `tools.${tool.id}.description`)));

      const params = op.parameters.map((p: Json) => deref(doc, p));
      const download = params.find((p: Json) => p.name === 'download');
      assert.deepEqual([download.in, download.schema], ['query', { type: 'boolean', default: false }]);

      const content = op.requestBody.content;
      assert.deepEqual(content['application/json'].schema, jsonSchemaOf(tool, lang));
      const form = content['multipart/form-data'].schema;
      const json = jsonSchemaOf(tool, lang);
      assert.deepEqual(Object.keys(form.properties), Object.keys(json.properties!));
      assert.deepEqual(form.required, json.required);
      const field = tool.input.kind;
      if (field === 'file') assert.deepEqual([form.properties.file.type, form.properties.file.format], ['string', 'binary']);
      else {
        assert.equal(form.properties.files.type, 'array');
        assert.deepEqual([form.properties.files.items.type, form.properties.files.items.format], ['string', 'binary']);
        assert.deepEqual([form.properties.files.minItems, form.properties.files.maxItems], [tool.input.min, tool.input.max]);
      }
      // A further file (merge-by-key's lookup-file) is a binary part of its own in multipart.
      const more = (tool.input.more ?? []).map((m) => m.field);
      for (const name of more) assert.deepEqual([form.properties[name].type, form.properties[name].format, content['multipart/form-data'].encoding[name]?.contentType], ['string', 'binary', 'application/octet-stream'], `${tool.id}.${name}`);
      for (const [name, prop] of Object.entries(json.properties!)) {
        if (name !== field && !more.includes(name)) assert.deepEqual(form.properties[name], prop, `${tool.id}.${name} is the same in multipart`);
      }

      assert.deepEqual(Object.keys(op.responses).sort(), ['200', '400', '401', '403', '404', '413', '429', '500', '503']);
      const ok = op.responses['200'];
      assert.deepEqual(ok.content['application/json'].schema, { $ref: '#/components/schemas/RunResponse' });
      assert.deepEqual(ok.content['application/octet-stream'].schema.format, 'binary');
      for (const h of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Content-Disposition']) assert.ok(ok.headers[h], h);
      for (const status of ['400', '401', '403', '404', '413', '429', '500', '503']) {
        const res = deref(doc, op.responses[status]);
        assert.deepEqual(res.content['application/json'].schema, { $ref: '#/components/schemas/Error' }, status);
        for (const code of ERROR_CODES.filter((c) => String(ERROR_STATUS[c]) === status)) assert.match(res.description, new RegExp(`\`${code}\``));
      }
      for (const status of ['429', '503']) assert.ok(deref(doc, op.responses[status]).headers['Retry-After'], `Retry-After on ${status}`);
    }
  });

  test(`[${lang}] structure: unique operationIds, every $ref resolves, every response has a description`, () => {
    const doc = docs[lang];
    for (const ref of refsIn(doc)) assert.notEqual(resolve(doc, ref), undefined, `unresolved ${ref}`);
    const ids: string[] = [];
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        ids.push(op.operationId);
        assert.ok(op.summary, `${method} ${path} summary`);
        for (const [status, res] of Object.entries<Json>(op.responses)) {
          assert.ok(typeof deref(doc, res).description === 'string' && deref(doc, res).description.length > 0, `${method} ${path} ${status}`);
        }
      }
    }
    assert.equal(new Set(ids).size, ids.length);
    for (const get of ['/api/v1/tools', '/api/v1/openapi.json', '/llms.txt', '/health']) {
      assert.ok(doc.paths[get]?.get, `GET ${get}`);
      assert.deepEqual(doc.paths[get].get.security, [], `${get} needs no credentials`);
    }
  });
}

test('errors: x-error-codes is ERROR_STATUS and the Error schema enumerates every code', () => {
  const doc = docs.es;
  assert.deepEqual(doc['x-error-codes'], { ...ERROR_STATUS });
  const error = doc.components.schemas.Error;
  assert.deepEqual(error.properties.error.enum, ERROR_CODES);
  assert.deepEqual(error.required, ['ok', 'error', 'message', 'option']);
  assert.deepEqual(error.properties.option.type, ['string', 'null']);
});

test('components: schemas, security schemes and optional security', () => {
  const doc = docs.en;
  for (const name of ['Error', 'RunResponse', 'Preview', 'Message', 'FileObject', 'ResultFile', 'CatalogueEntry']) assert.ok(doc.components.schemas[name], name);
  assert.deepEqual(doc.components.schemas.RunResponse.required, ['ok', 'tool', 'files', 'preview', 'textPreview', 'messages']);
  assert.deepEqual(doc.components.schemas.Message.properties.level.enum, ['info', 'warning', 'error']);
  assert.deepEqual(Object.keys(doc.components.schemas.FileObject.properties), ['name', 'contentBase64']);
  const { bearerAuth, apiKeyHeader } = doc.components.securitySchemes;
  assert.deepEqual([bearerAuth.type, bearerAuth.scheme], ['http', 'bearer']);
  assert.deepEqual([apiKeyHeader.type, apiKeyHeader.in, apiKeyHeader.name], ['apiKey', 'header', 'X-Api-Key']);
  assert.deepEqual(doc.security, [{}, { bearerAuth: [] }, { apiKeyHeader: [] }]);
});

for (const lang of LANGS) {
  test(`[${lang}] @apidevtools/swagger-parser validates the document`, async () => {
    await SwaggerParser.validate(structuredClone(docs[lang]));
  });
}

// GET /llms.txt: a plain-text guide for agents in the llms.txt style (H1, summary quote, sections), built from
// the registry, each tool's JSON Schema, ERROR_STATUS, Config and the locales (`?lang=en` for English).
import type { Request, Response } from 'express';
import { t, type Lang } from '../locales/index.ts';
import type { Config } from '../tools/core/config.ts';
import type { AnyTool } from '../tools/core/define.ts';
import { extensionsOf } from '../tools/core/files.ts';
import { ERROR_CODES, ERROR_STATUS } from '../tools/core/errors.ts';
import { listTools } from '../tools/core/registry.ts';
import { jsonSchemaOf, type JsonSchema } from '../tools/core/schema.ts';
import { MCP_PATH, runPath } from './catalogue.ts';
import { requestLang } from '../tools/core/http-answer.ts';
import { RequestError } from './http-error.ts';

type Prop = { [k: string]: unknown };

const code = (x: unknown) => `\`${typeof x === 'string' ? x : JSON.stringify(x)}\``;

/** Type, allowed values or range, default and whether it is required, for one JSON Schema property. */
export function describeProperty(prop: Prop, required: boolean, lang: Lang): string {
  const parts = [describeType(prop, lang)];
  if (prop.default !== undefined) {
    parts.push(t(lang, 'llms.schema.default', { value: prop.default === '' ? t(lang, 'llms.schema.empty') : code(prop.default) }));
  }
  if (required) parts.push(t(lang, 'llms.schema.required'));
  return parts.join('; ');
}

function describeType(prop: Prop, lang: Lang): string {
  if (Array.isArray(prop.anyOf)) return (prop.anyOf as Prop[]).map((alt) => describeType(alt, lang)).join(` ${t(lang, 'llms.schema.or')} `);
  const type = Array.isArray(prop.type) ? prop.type.join('|') : String(prop.type ?? 'any');
  const rules: string[] = [];
  if (Array.isArray(prop.enum)) rules.push(t(lang, 'llms.schema.oneOf', { values: prop.enum.map(code).join(', ') }));
  const range = (min: unknown, max: unknown, key: string) => {
    if (min !== undefined && max !== undefined) rules.push(min === max ? t(lang, `llms.schema.${key}Exactly`, { n: min as number }) : t(lang, `llms.schema.${key}Range`, { min: min as number, max: max as number }));
    else if (min !== undefined) rules.push(t(lang, `llms.schema.${key}Min`, { min: min as number }));
    else if (max !== undefined) rules.push(t(lang, `llms.schema.${key}Max`, { max: max as number }));
  };
  range(prop.minimum, prop.maximum, 'value');
  range(prop.minLength, prop.maxLength, 'length');
  return rules.length ? `${type}, ${rules.join(', ')}` : type;
}

function toolSection(tool: AnyTool, lang: Lang): string {
  const schema: JsonSchema = jsonSchemaOf(tool, lang);
  const required = new Set(schema.required ?? []);
  const spec = tool.input;
  const formats = extensionsOf(spec.formats).join(', ');
  const input =
    spec.kind === 'file'
      ? t(lang, 'llms.tool.inputFile', { formats })
      : t(lang, 'llms.tool.inputFiles', { formats, min: spec.min, max: spec.max });
  // Further files (merge-by-key's `lookup-file`) are inputs too: named on the input line, and listed with the options.
  const more = (spec.more ?? []).map((m) => `; ${t(lang, 'llms.tool.inputMore', { field: m.field, formats: m.formats.map((f) => `.${f}`).join(', ') })}`).join('');
  const options = Object.entries(schema.properties ?? {})
    .filter(([name]) => name !== spec.kind)
    .map(([name, prop]) => `  - \`${name}\` (${describeProperty(prop, required.has(name), lang)}): ${String(prop.description ?? '')}`);
  return [
    `### \`${tool.id}\`: ${t(lang, `tools.${tool.id}.title`)}`,
    '',
    t(lang, `tools.${tool.id}.description`),
    '',
    `- ${t(lang, 'llms.tool.category')}: ${t(lang, `categories.${tool.category}`)}`,
    `- ${t(lang, 'llms.tool.input')}: ${input}${more}`,
    `- REST: \`POST ${runPath(tool.id)}\`; MCP: \`${tool.id}\``,
    `- ${t(lang, 'llms.tool.options')}:`,
    ...options,
  ].join('\n');
}

/** A curl example for the first tool of the registry, with one of its boolean options flipped. */
function examples(base: string, lang: Lang): string {
  const tool = listTools()[0];
  if (!tool) return '';
  const schema = jsonSchemaOf(tool, lang);
  const flag = Object.entries(schema.properties ?? {}).find(([, p]) => p.type === 'boolean' && typeof p.default === 'boolean');
  const ext = tool.input.formats[0];
  const names = tool.input.kind === 'files' ? Array.from({ length: Math.max(2, tool.input.min) }, (_, i) => `${t(lang, 'llms.rest.exampleName')}-${i + 1}.${ext}`) : [`${t(lang, 'llms.rest.exampleName')}.${ext}`];
  const fileObjects = names.map((n) => `{"name": "${n}", "contentBase64": "<base64>"}`);
  const fileJson = tool.input.kind === 'files' ? `"files": [${fileObjects.join(', ')}]` : `"file": ${fileObjects[0]}`;
  const optionJson = flag ? `, "${flag[0]}": ${!flag[1].default}` : '';
  const url = `${base}${runPath(tool.id)}`;
  const parts = names.map((n) => `-F '${tool.input.kind}=@${n}'`).join(' ');
  const optionForm = flag ? ` -F '${flag[0]}=${!flag[1].default}'` : '';
  return [
    t(lang, 'llms.rest.exampleJson'),
    '',
    '```sh',
    `curl -sS -X POST '${url}' -H 'Content-Type: application/json' \\`,
    `  -d '{${fileJson}${optionJson}, "language": "${lang}"}'`,
    '```',
    '',
    t(lang, 'llms.rest.exampleMultipart'),
    '',
    '```sh',
    `curl -sS -X POST '${url}?download=true' ${parts}${optionForm} -OJ`,
    '```',
  ].join('\n');
}

/** The whole document for one language and base URL. */
export function llmsTxt(config: Config, lang: Lang, base: string): string {
  const tools = listTools();
  const errorLines = ERROR_CODES.map((c) => `- \`${c}\` (${ERROR_STATUS[c]}): ${t(lang, `llms.errorCodes.${c}`)}`);
  const limits = {
    maxInput: config.MAX_INPUT_MB,
    inline: config.MAX_INLINE_RESULT_MB,
    download: config.MAX_RESULT_MB,
    parts: config.MAX_FILE_PARTS,
    anon: config.ANON_RUNS_PER_HOUR,
    keyed: config.KEY_RUNS_PER_HOUR,
    timeout: config.JOB_TIMEOUT_S,
    jobs: config.MAX_JOBS,
  };
  const sections = [
    '# spreadsheet-tools',
    `> ${t(lang, 'llms.summary', { count: tools.length })}`,
    t(lang, 'llms.intro'),
    `## ${t(lang, 'llms.mcp.title')}`,
    t(lang, 'llms.mcp.body', { url: `${base}${MCP_PATH}`, urlEn: `${base}${MCP_PATH}?lang=en` }),
    `## ${t(lang, 'llms.rest.title')}`,
    t(lang, 'llms.rest.body', { base }),
    examples(base, lang),
    `## ${t(lang, 'llms.auth.title')}`,
    t(lang, 'llms.auth.body'),
    `## ${t(lang, 'llms.limits.title')}`,
    t(lang, 'llms.limits.body', limits),
    `## ${t(lang, 'llms.errors.title')}`,
    [t(lang, 'llms.errors.intro'), '', ...errorLines].join('\n'),
    `## ${t(lang, 'llms.tools.title', { count: tools.length })}`,
    ...tools.map((tool) => toolSection(tool, lang)),
    `## ${t(lang, 'llms.optional.title')}`,
    t(lang, 'llms.optional.body', { base, lang }),
  ];
  return sections.filter(Boolean).join('\n\n') + '\n';
}

// A Host (or X-Forwarded-Host) the text may carry: a DNS name or IPv4 address, or an IPv6 address in
// brackets, and a port. Anything else (spaces, quotes, paths, credentials) would be written into the URLs of
// a cacheable document.
const HOST = /^(?:\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*)(?::\d{1,5})?$/i;

/**
 * The base URL as the client reached us: the scheme (X-Forwarded-Proto only when TRUST_PROXY trusts the
 * sender, and only http or https) and the host (X-Forwarded-Host likewise), checked; `bad_request` when the
 * host is not one.
 */
export function baseUrlOf(req: Request): string {
  const said = req.protocol.toLowerCase();
  const proto = said === 'http' || said === 'https' ? said : (req.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  const host = req.host ?? '';
  let url: URL | null = null;
  if (HOST.test(host)) {
    try {
      url = new URL(`${proto}://${host}`);
    } catch {
      url = null;
    }
  }
  if (!url) throw new RequestError('bad_request', 'rest.errors.host', { params: { host: host.slice(0, 200) } });
  return url.origin;
}

export function llmsTxtHandler(config: Config) {
  const trustsProxy = config.TRUST_PROXY !== 'false' && config.TRUST_PROXY !== '';
  // Caches must keep one text per value of whatever it was built from (the query is in the URL already).
  const vary = config.PUBLIC_BASE_URL ? 'Accept-Language' : trustsProxy ? 'Host, X-Forwarded-Host, X-Forwarded-Proto, Accept-Language' : 'Host, Accept-Language';
  return function getLlmsTxt(req: Request, res: Response): void {
    const lang = requestLang(req);
    const base = config.PUBLIC_BASE_URL || baseUrlOf(req);
    res.type('text/plain; charset=utf-8').set({ 'Cache-Control': 'public, max-age=300', Vary: vary, 'Content-Language': lang }).send(llmsTxt(config, lang, base));
  };
}

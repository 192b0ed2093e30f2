// Option schemas: shared fragments, the request schema the kernel builds around a tool's options,
// its JSON Schema (with localized descriptions), and the one mapping of valibot issues to ToolError.
import * as v from 'valibot';
import { toJsonSchema } from '@valibot/to-json-schema';
import { LANGS, t, type Lang } from '../../locales/index.ts';
import type { AnyTool } from './define.ts';
import { ToolError } from './errors.ts';
import { baseNameOf, extensionOf, fileFields } from './files.ts';
import { safeName } from './output.ts';

export const hasHeader = v.optional(v.boolean(), true);
export const outputFormat = v.optional(v.picklist(['xlsx', 'csv']), 'xlsx');
/** `format` of the editing tools (tools.md §2.5): `auto` gives back the input's type (an .xls gives xlsx). */
export const editFormat = v.optional(v.picklist(['auto', 'xlsx', 'csv']), 'auto');

/** The result format an editing tool writes for `file` (editFormat). */
export function editedFormat(choice: 'auto' | 'xlsx' | 'csv', file: { name: string }): 'xlsx' | 'csv' {
  if (choice !== 'auto') return choice;
  return extensionOf(file.name) === 'csv' ? 'csv' : 'xlsx';
}

/** An editing tool's result name: `<base>-<suffix>.<ext>`, `<base>` from the input (its localized `file` when empty). */
export function editedName(file: { name: string }, suffix: string, ext: string, ctx: { name(key: string): string }): string {
  // Cut so that the suffix survives the 100 characters a result name may have (output.ts safeName).
  const stem = [...safeName(baseNameOf(file.name), '')].slice(0, 98 - suffix.length - ext.length).join('');
  return `${stem || ctx.name('file')}-${suffix}.${ext}`;
}
/** Free text such as a column title; empty means "use the default". */
export const optionalText = v.optional(v.pipe(v.string(), v.maxLength(255)), '');
export const language = v.optional(v.picklist(LANGS));
/** Page options of the document tools (excel-to-pdf, excel-to-docx): `auto` is landscape from 7 columns. */
export const orientation = v.optional(v.picklist(['auto', 'portrait', 'landscape']), 'auto');
export const pageSize = v.optional(v.picklist(['a4', 'letter', 'a3']), 'a4');
/** Each page size as the documents' messages name it. */
export const PAPER_NAMES = { a4: 'A4', letter: 'Letter', a3: 'A3' } as const;
export const fontSize = v.optional(v.pipe(v.number(), v.integer(), v.minValue(6), v.maxValue(14)), 9);

const fileObject = v.strictObject({
  name: v.pipe(v.string(), v.minLength(1), v.maxLength(255)),
  contentBase64: v.string(),
});

/** The options a caller may send, `language` included, files excluded. */
export function optionsSchema(tool: AnyTool) {
  return v.strictObject({ ...tool.options.entries, language });
}

/** The whole JSON request: the file field, the tool's options and `language`. */
export function requestSchema(tool: AnyTool) {
  const files =
    tool.input.kind === 'file'
      ? fileObject
      : v.pipe(v.array(fileObject), v.minLength(tool.input.min), v.maxLength(tool.input.max));
  const more = Object.fromEntries((tool.input.more ?? []).map((m) => [m.field, fileObject]));
  return v.strictObject({ [tool.input.kind]: files, ...more, ...tool.options.entries, language });
}

export type JsonSchema = { [k: string]: unknown; properties?: Record<string, { [k: string]: unknown }>; required?: string[] };

const schemaCache = new Map<string, JsonSchema>();

/** JSON Schema (draft 2020-12) of a tool's request, with descriptions in `lang`. */
export function jsonSchemaOf(tool: AnyTool, lang: Lang): JsonSchema {
  const cacheKey = `${tool.id}:${lang}`;
  const cached = schemaCache.get(cacheKey);
  if (cached) return structuredClone(cached);
  const schema = toJsonSchema(requestSchema(tool), { target: 'draft-2020-12', typeMode: 'input', errorMode: 'throw' }) as JsonSchema;
  delete schema.$schema;
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    prop.description = t(lang, optionTextKey(tool, name));
    const localized = tool.localizedDefaults?.[name];
    if (localized) prop.default = t(lang, localized);
  }
  const fields = fileFields(tool.input);
  schema.required = [...fields, ...(schema.required ?? []).filter((x) => !fields.includes(x))];
  schemaCache.set(cacheKey, schema);
  return structuredClone(schema);
}

/** Locale key of an option's description: shared options have common texts. */
export function optionTextKey(tool: AnyTool, option: string): string {
  if (option === 'file' || option === 'files' || option === 'language') return `common.options.${option}`;
  return `tools.${tool.id}.options.${option}`;
}

const clip = (s: string | undefined) => (s === undefined ? '' : s.length > 120 ? s.slice(0, 117) + '...' : s);

/** Parses options strictly; the first issue becomes `unknown_option` or `invalid_option`, naming the option. */
export function parseOptions<S extends v.GenericSchema>(schema: S, raw: unknown): v.InferOutput<S> {
  const res = v.safeParse(schema, raw);
  if (res.success) return res.output;
  const issue = res.issues[0];
  const option = issue.path?.map((p) => String(p.key)).join('.') || undefined;
  if (issue.type === 'strict_object' && issue.expected === 'never') {
    throw new ToolError('unknown_option', { option, params: { option: option ?? '' } });
  }
  if (!option) throw new ToolError('invalid_option', { params: { option: '', expected: 'object', received: clip(issue.received) } });
  throw new ToolError('invalid_option', { option: issue.path![0].key as string, params: { option, expected: clip(issue.expected ?? ''), received: clip(issue.received) } });
}

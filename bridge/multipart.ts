// multipart/form-data -> InputFile[] plus text fields, streamed through busboy with every count and size bounded.
// A refused body is neither buffered nor read to its end at any cost: busboy is unpiped, the rest is
// discarded as it arrives (so the client can read the answer), and past a bound the connection is closed.
import busboy from 'busboy';
import type { Request } from 'express';
import type { AnyTool } from '../tools/core/define.ts';
import { ToolError } from '../tools/core/errors.ts';
import type { InputFile } from '../tools/core/files.ts';
import { jsonSchemaOf } from '../tools/core/schema.ts';
import { discardRest } from '../tools/core/http-body.ts';
import { RequestError } from './http-error.ts';

export interface MultipartLimits {
  /** Decoded bytes of all file parts together (MAX_INPUT_MB). */
  maxInputBytes: number;
  /** The same bound in MB, for the message. */
  maxInputMb: number;
  /** File parts accepted (MAX_FILE_PARTS). */
  maxFileParts: number;
  /** Bytes discarded after a refusal before the connection is closed. */
  maxDiscardBytes: number;
}

export interface MultipartBody {
  files: InputFile[];
  /** Text fields by name; a field sent several times (a list, tools.md §2.4) holds its values in order. */
  fields: Record<string, string | string[]>;
}

/** Bounds on text fields: options are short values, so these sit far above any real request. */
export const MAX_FIELDS = 100;
export const MAX_FIELD_BYTES = 64 * 1024;
const MAX_FIELD_NAME_BYTES = 200;
const MAX_PART_HEADERS = 50;

/** The field names a file part may use: both are accepted for either kind of tool; the kernel counts them. */
const FILE_FIELDS = new Set(['file', 'files']);

/** Reads a multipart body; rejects with a ToolError (400 or 413) on anything malformed or over a limit. */
export function readMultipart(req: Request, limits: MultipartLimits): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: {
          // busboy wants a whole number, and flags a file of exactly this size as over it: one byte more.
          fileSize: Math.floor(limits.maxInputBytes) + 1,
          files: limits.maxFileParts,
          fields: MAX_FIELDS,
          fieldSize: MAX_FIELD_BYTES,
          fieldNameSize: MAX_FIELD_NAME_BYTES,
          parts: limits.maxFileParts + MAX_FIELDS,
          headerPairs: MAX_PART_HEADERS,
        },
      });
    } catch {
      // No boundary, or a content type busboy cannot read.
      discardRest(req, limits.maxDiscardBytes);
      reject(new RequestError('invalid_option', 'rest.errors.multipart_malformed'));
      return;
    }

    const files: InputFile[] = [];
    const fields: Record<string, string | string[]> = Object.create(null);
    let total = 0;
    let settled = false;

    const fail = (err: ToolError) => {
      if (settled) return;
      settled = true;
      req.unpipe(bb);
      // Not now: this runs inside busboy's own events, and busboy goes on using the part it was parsing.
      setImmediate(() => bb.destroy());
      discardRest(req, limits.maxDiscardBytes);
      reject(err);
    };
    const tooLarge = () => new ToolError('input_too_large', { option: 'files', params: { max: limits.maxInputMb } });
    const malformed = () => new RequestError('invalid_option', 'rest.errors.multipart_malformed');

    bb.on('file', (name, stream, info) => {
      // Destroying busboy destroys the open file stream with an error; it must never go unhandled.
      stream.on('error', () => fail(malformed()));
      if (settled) {
        stream.resume();
        return;
      }
      if (!FILE_FIELDS.has(name)) {
        stream.resume();
        fail(new ToolError('unknown_option', { option: name, params: { option: name } }));
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        total += chunk.length;
        if (total > limits.maxInputBytes) fail(tooLarge());
        else chunks.push(chunk);
      });
      stream.on('limit', () => fail(tooLarge()));
      stream.on('end', () => {
        if (settled) return;
        const bytes = Buffer.concat(chunks);
        const filename = info.filename ?? '';
        // A browser form with no file chosen sends an empty part with an empty file name: no file.
        if (filename === '' && bytes.length === 0) return;
        if (filename === '') {
          fail(new RequestError('invalid_option', 'rest.errors.multipart_file_name', { option: name }));
          return;
        }
        files.push({ name: filename, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
      });
    });

    bb.on('field', (name, value, info) => {
      if (settled) return;
      if (info.nameTruncated || info.valueTruncated) {
        fail(new RequestError('invalid_option', 'rest.errors.multipart_field_too_long', { option: info.nameTruncated ? undefined : name, params: { max: MAX_FIELD_BYTES } }));
      } else if (FILE_FIELDS.has(name)) {
        fail(new RequestError('invalid_option', 'rest.errors.multipart_file_field', { option: name }));
      } else if (Object.hasOwn(fields, name)) {
        const was = fields[name];
        fields[name] = Array.isArray(was) ? [...was, value] : [was, value];
      } else {
        fields[name] = value;
      }
    });

    bb.on('filesLimit', () => fail(new ToolError('too_many_files', { option: 'files', params: { max: limits.maxFileParts } })));
    bb.on('fieldsLimit', () => fail(new RequestError('invalid_option', 'rest.errors.multipart_too_many_fields', { params: { max: MAX_FIELDS } })));
    bb.on('partsLimit', () => fail(new RequestError('invalid_option', 'rest.errors.multipart_too_many_parts', { params: { max: limits.maxFileParts + MAX_FIELDS } })));
    bb.on('error', () => fail(malformed()));
    bb.on('close', () => {
      if (settled) return;
      settled = true;
      resolve({ files, fields: { ...fields } });
    });

    // A client that goes away mid-body: nobody reads the answer, but the promise must settle.
    req.on('error', () => fail(malformed()));
    req.on('close', () => {
      if (!req.complete) fail(malformed());
    });
    req.pipe(bb);
  });
}

type FieldType = 'boolean' | 'integer' | 'number' | 'list' | undefined;
const typeCache = new Map<string, Record<string, FieldType>>();

/** The JSON Schema type of each option that is a plain boolean, integer or number. */
function fieldTypes(tool: AnyTool): Record<string, FieldType> {
  let types = typeCache.get(tool.id);
  if (!types) {
    types = {};
    for (const [name, prop] of Object.entries(jsonSchemaOf(tool, 'es').properties ?? {})) {
      const type = prop.type;
      const list = Array.isArray(prop.anyOf) && prop.anyOf.some((p: { type?: unknown }) => p.type === 'array');
      types[name] = type === 'boolean' || type === 'integer' || type === 'number' ? type : list ? 'list' : undefined;
    }
    typeCache.set(tool.id, types);
  }
  return types;
}

/**
 * Multipart text fields as option values, by the tool's JSON Schema: `true`/`false` for booleans, digit
 * strings for integers, decimal strings for numbers, a repeated field as the list of its values. Anything else stays a string, so the kernel rejects it
 * with `invalid_option` (or `unknown_option`) exactly as it would the same value in JSON.
 */
export function coerceFields(tool: AnyTool, fields: Record<string, string | string[]>): Record<string, unknown> {
  const types = fieldTypes(tool);
  // fromEntries defines own properties, so even a field named `__proto__` reaches the kernel (and is refused).
  return Object.fromEntries(
    Object.entries(fields).map(([name, value]) => {
      const type = Object.hasOwn(types, name) ? types[name] : undefined;
      // A list option may be sent once per item (tools.md §2.4); any other option only once.
      if (Array.isArray(value)) {
        if (type !== 'list') throw new RequestError('invalid_option', 'rest.errors.multipart_repeated', { option: name });
        return [name, value];
      }
      if (type === 'boolean' && (value === 'true' || value === 'false')) return [name, value === 'true'];
      if (type === 'integer' && /^-?\d{1,15}$/.test(value)) return [name, Number(value)];
      if (type === 'number' && /^-?\d{1,15}(\.\d{1,15})?$/.test(value)) return [name, Number(value)];
      return [name, value];
    }),
  );
}

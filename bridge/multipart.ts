// multipart/form-data -> InputFile[] plus text fields, read by multipart-scan.ts with every count and size
// bounded. A refused body is neither buffered nor read to its end at any cost: the reader lets go of it, the
// rest is discarded as it arrives (so the client can read the answer), and past a bound the connection is closed.
import type { Request } from 'express';
import type { AnyTool } from '../tools/core/define.ts';
import { ToolError } from '../tools/core/errors.ts';
import type { InputFile } from '../tools/core/files.ts';
import { listTools } from '../tools/core/registry.ts';
import { jsonSchemaOf } from '../tools/core/schema.ts';
import { discardRest } from '../tools/core/http-body.ts';
import { own, releaseChunk } from '../tools/core/transfer.ts';
import { RequestError } from './http-error.ts';
import { MultipartScanner, boundaryOf } from './multipart-scan.ts';

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

/**
 * Bounds on text fields: options are short values, so these sit far above any real request. A field name and
 * the header lines of a part are bounded together by the part header's bound (multipart-scan.ts, 16 KB, as
 * busboy 1.6.0, which never applied its `fieldNameSize` and `headerPairs` limits to multipart bodies).
 */
export const MAX_FIELDS = 100;
export const MAX_FIELD_BYTES = 64 * 1024;

/** The field names a main file part may use: both are accepted for either kind of tool; the kernel counts them. */
export const MAIN_FILE_FIELDS = new Set(['file', 'files']);
/**
 * Every field name a file part may use: the main ones and the further files tools declare (`lookup-file`).
 * A part in a further field that the tool does not declare is refused by the kernel as `unknown_option`.
 */
export const FILE_FIELDS = new Set([...MAIN_FILE_FIELDS, ...listTools().flatMap((t) => (t.input.more ?? []).map((m) => m.field))]);

/** Reads a multipart body; rejects with a ToolError (400 or 413) on anything malformed or over a limit. */
export function readMultipart(req: Request, limits: MultipartLimits): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    const malformed = () => new RequestError('invalid_option', 'rest.errors.multipart_malformed');
    const boundary = boundaryOf(req.headers['content-type']);
    if (boundary === null) {
      discardRest(req, limits.maxDiscardBytes);
      reject(malformed());
      return;
    }
    const files: InputFile[] = [];
    const fields: Record<string, string | string[]> = Object.create(null);
    let total = 0;
    let settled = false;
    // All file parts go into one buffer sized from the declared length, which bounds them together: no chunks
    // kept, no copy to join them. It is the request's own (transfer.ts), let go whole once the job has it.
    const arena = arenaFor(req, limits.maxInputBytes);
    /** Where the next file part's bytes go in the arena. */
    let used = 0;
    // The open file part: its name and field, where it starts, and its chunks when it does not go in the arena.
    let file: { field: string | undefined; filename: string | undefined; start: number; chunks: Buffer[] | null } | null = null;

    // The scanner runs in the request's own events: whatever it throws must cost this request, not the server.
    const guarded = (step: () => void) => {
      try {
        step();
      } catch (err) {
        console.error('multipart reader failed:', err);
        fail(malformed());
      }
    };
    // Once scanned, a chunk's bytes are in the arena (the scanner copies what it keeps of fields and of a
    // delimiter's start), and the chunk is let go at once; not while a part goes on in chunks of its own.
    let keepsChunks = arena === null;
    const onData = (chunk: Buffer) =>
      guarded(() => {
        scanner.push(chunk);
        if (!keepsChunks) releaseChunk(chunk);
      });
    // As busboy: the form is answered once the body has ended, its closing delimiter seen.
    const onEnd = () => {
      guarded(() => scanner.end());
      if (settled || !scanner.complete) return;
      settled = true;
      stopReading();
      resolve({ files, fields: { ...fields } });
    };
    const onError = () => fail(malformed());
    // A client that goes away mid-body: nobody reads the answer, but the promise must settle.
    const onClose = () => {
      if (!req.complete) fail(malformed());
    };
    const stopReading = () => {
      scanner.stop();
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const fail = (err: ToolError) => {
      if (settled) return;
      settled = true;
      stopReading();
      discardRest(req, limits.maxDiscardBytes);
      reject(err);
    };
    const tooLarge = () => new ToolError('input_too_large', { option: 'files', params: { max: limits.maxInputMb } });

    const scanner = new MultipartScanner(
      boundary,
      { files: limits.maxFileParts, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: limits.maxFileParts + MAX_FIELDS },
      {
        fileStart(name, filename) {
          if (!FILE_FIELDS.has(name as string)) return fail(new ToolError('unknown_option', { option: name as string, params: { option: name as string } }));
          file = { field: name, filename, start: used, chunks: arena === null ? [] : null };
        },
        fileData(chunk, start, end) {
          const part = file!;
          const n = end - start;
          total += n;
          if (total > limits.maxInputBytes) return fail(tooLarge());
          if (part.chunks === null) {
            if (used + n <= arena!.length) {
              arena!.set(chunk.subarray(start, end), used);
              used += n;
              return;
            }
            // Never with a declared length (the body holds its parts), but should bytes not fit, the part goes
            // on in chunks of its own.
            part.chunks = [Buffer.from(arena!.subarray(part.start, used))];
            keepsChunks = true;
          }
          part.chunks.push(chunk.subarray(start, end));
        },
        fileEnd() {
          const part = file!;
          file = null;
          const bytes = part.chunks !== null ? Buffer.concat(part.chunks) : arena!.subarray(part.start, used);
          const filename = part.filename ?? '';
          // A browser form with no file chosen sends an empty part with an empty file name: no file.
          if (filename === '' && bytes.length === 0) return;
          if (filename === '') return fail(new RequestError('invalid_option', 'rest.errors.multipart_file_name', { option: part.field }));
          const result: InputFile = { name: filename, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
          if (!MAIN_FILE_FIELDS.has(part.field as string)) result.field = part.field;
          files.push(result);
        },
        field(name, value, truncated, charset) {
          if (truncated) {
            fail(new RequestError('invalid_option', 'rest.errors.multipart_field_too_long', { option: name, params: { max: MAX_FIELD_BYTES } }));
          } else if (FILE_FIELDS.has(name as string)) {
            fail(new RequestError('invalid_option', 'rest.errors.multipart_file_field', { option: name }));
          } else if (value === undefined) {
            // busboy's decoders know no such charset: the value is unknown, and must not become the option's default.
            fail(new RequestError('invalid_option', 'rest.errors.multipart_field_charset', { option: name, params: { charset: charset.slice(0, 40) } }));
          } else {
            const key = name as string;
            if (Object.hasOwn(fields, key)) {
              const was = fields[key];
              fields[key] = Array.isArray(was) ? [...was, value as string] : [was, value as string];
            } else {
              fields[key] = value as string;
            }
          }
        },
        filesLimit: () => fail(new ToolError('too_many_files', { option: 'files', params: { max: limits.maxFileParts } })),
        fieldsLimit: () => fail(new RequestError('invalid_option', 'rest.errors.multipart_too_many_fields', { params: { max: MAX_FIELDS } })),
        partsLimit: () => fail(new RequestError('invalid_option', 'rest.errors.multipart_too_many_parts', { params: { max: limits.maxFileParts + MAX_FIELDS } })),
        malformed: () => fail(malformed()),
      },
    );

    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
    // As pipe() did: a request paused before it reached here flows again.
    req.resume();
  });
}

/**
 * The buffer for a body's file parts: as long as its declared length (at most the input bound), never from
 * Node's shared pool; null for a body of unknown length, whose parts are kept as chunks and joined.
 */
function arenaFor(req: Request, maxInputBytes: number): Buffer | null {
  const declared = Number(req.headers['content-length']);
  if (!(Number.isSafeInteger(declared) && declared >= 0)) return null;
  const arena = Buffer.allocUnsafeSlow(Math.min(declared, Math.floor(maxInputBytes)));
  own(arena.buffer);
  return arena;
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

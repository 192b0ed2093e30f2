// The multipart reader as it was with busboy 1.6.0 (bridge/multipart.ts at e9a835e), kept as the reference
// the scanner of bridge/multipart-scan.ts is compared with (test/core/multipart-scan.test.ts). Only the
// imports changed, and the limits busboy ignores for multipart bodies (fieldNameSize, headerPairs) are gone.
import busboy from 'busboy';
import type { Request } from 'express';
import { ToolError } from '../../tools/core/errors.ts';
import type { InputFile } from '../../tools/core/files.ts';
import { discardRest } from '../../tools/core/http-body.ts';
import { own } from '../../tools/core/transfer.ts';
import { RequestError } from '../../bridge/http-error.ts';
import { FILE_FIELDS, MAIN_FILE_FIELDS, MAX_FIELD_BYTES, MAX_FIELDS, type MultipartBody, type MultipartLimits } from '../../bridge/multipart.ts';

/** Reads a multipart body; rejects with a ToolError (400 or 413) on anything malformed or over a limit. */
export function readMultipartBusboy(req: Request, limits: MultipartLimits): Promise<MultipartBody> {
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
          parts: limits.maxFileParts + MAX_FIELDS,
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
    // All file parts go into one buffer sized from the declared length, which bounds them together: no chunks
    // kept, no copy to join them. It is the request's own (transfer.ts), let go whole once the job has it.
    const arena = arenaFor(req, limits.maxInputBytes);
    // The part before the one being announced: its bytes all reached its stream before the next part began.
    let previous: Part | null = null;

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
      // A part's bytes reach its stream's listeners a tick or more after busboy read them, by which time the
      // next part may have begun. So each part's place is fixed when it is announced: after the previous
      // part's bytes, those delivered and those still waiting in its stream. Should bytes ever not fit there,
      // the part goes on in chunks of its own.
      const part: Part = { start: previous ? previous.start + previous.length + previous.stream.readableLength : 0, length: 0, stream, next: null };
      if (previous) previous.next = part;
      previous = part;
      let chunks: Buffer[] | null = arena === null ? [] : null;
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        total += chunk.length;
        if (total > limits.maxInputBytes) return fail(tooLarge());
        if (chunks === null) {
          const at = part.start + part.length;
          const fits = at + chunk.length <= (part.next ? part.next.start : arena!.length);
          if (fits) {
            arena!.set(chunk, at);
            part.length += chunk.length;
            return;
          }
          chunks = [Buffer.from(arena!.subarray(part.start, at))];
        }
        chunks.push(chunk);
      });
      stream.on('limit', () => fail(tooLarge()));
      stream.on('end', () => {
        if (settled) return;
        const bytes = chunks !== null ? Buffer.concat(chunks) : arena!.subarray(part.start, part.start + part.length);
        const filename = info.filename ?? '';
        // A browser form with no file chosen sends an empty part with an empty file name: no file.
        if (filename === '' && bytes.length === 0) return;
        if (filename === '') {
          fail(new RequestError('invalid_option', 'rest.errors.multipart_file_name', { option: name }));
          return;
        }
        const file: InputFile = { name: filename, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
        if (!MAIN_FILE_FIELDS.has(name)) file.field = name;
        files.push(file);
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

/** A file part's place in the body's buffer. */
interface Part {
  start: number;
  /** Bytes written so far. */
  length: number;
  stream: { readableLength: number };
  /** The part announced after this one: this one's bytes end where it begins. */
  next: Part | null;
}


// The format library's verdicts (FormatError reasons) as the service's error codes: the one place they are mapped.
import { extensionOf } from './files.ts';
import { ToolError, type ErrorCode } from './errors.ts';
import { FormatError, type FormatReason } from '../formats/index.ts';

/** Each reason's code, and its `error-details.<key>` message when it has one more precise than `errors.<code>`. */
const FORMAT_ERRORS: Record<FormatReason, { code: ErrorCode; details?: string }> = {
  unreadable: { code: 'invalid_file' },
  empty: { code: 'invalid_file', details: 'empty' },
  binary: { code: 'invalid_file', details: 'binary' },
  password: { code: 'invalid_file', details: 'password' },
  'xml-dtd': { code: 'invalid_file', details: 'xml-dtd' },
  json_syntax: { code: 'invalid_file', details: 'json_syntax' },
  json_too_deep: { code: 'invalid_file', details: 'json_too_deep' },
  json_not_list: { code: 'invalid_file', details: 'json_not_list' },
  json_item_not_object: { code: 'invalid_file', details: 'json_item_not_object' },
  'cell-outside-grid': { code: 'invalid_file', details: 'cell-outside-grid' },
  cells: { code: 'too_complex', details: 'cells' },
  'sheet-extent': { code: 'too_complex', details: 'sheet-extent' },
  'zip-ratio': { code: 'too_complex', details: 'zip-ratio' },
  'zip-size': { code: 'too_complex', details: 'zip-size' },
  'too-complex': { code: 'too_complex' },
  'pdf-lines': { code: 'too_complex', details: 'pdf_lines' },
  'format-limit': { code: 'format_limit_exceeded' },
  'result-size': { code: 'result_too_large' },
};

/**
 * A FormatError as the caller gets it. An error about an input file names it (`name`, and the `format` its
 * extension claims) and the request field it came in (`option`); a result's error names neither.
 */
export function toolErrorOf(err: FormatError, option: string): ToolError {
  const { code, details } = FORMAT_ERRORS[err.reason];
  const file: Record<string, string> = err.file === undefined ? {} : { name: err.file.slice(0, 200), format: extensionOf(err.file) };
  const mapped = new ToolError(code, {
    ...(err.file === undefined ? {} : { option }),
    ...(details ? { messageKey: `error-details.${details}` } : {}),
    params: { ...file, ...err.params },
  });
  // Kept for logs; outside `detail`, which is what callers see the shape of.
  Object.defineProperty(mapped, 'cause', { value: err, enumerable: false });
  return mapped;
}

/** Anything a tool threw, with FormatErrors mapped. */
export function mapFormatError(err: unknown, option: string): unknown {
  return err instanceof FormatError ? toolErrorOf(err, option) : err;
}

// The format library's verdicts (FormatError reasons) as the service's error codes: the one place they are mapped.
import { extensionOf, type InputFile } from './files.ts';
import { ToolError, type ErrorCode } from './errors.ts';
import { FormatError, type FormatReason } from '../formats/index.ts';

/** Each reason's code, and its `error-details.<key>` message when it has one more precise than `errors.<code>`. */
/** `option` when the reason concerns a tool's option rather than the file (a row element the file lacks). */
const FORMAT_ERRORS: Record<FormatReason, { code: ErrorCode; details?: string; option?: string }> = {
  unreadable: { code: 'invalid_file' },
  empty: { code: 'invalid_file', details: 'empty' },
  binary: { code: 'invalid_file', details: 'binary' },
  password: { code: 'invalid_file', details: 'password' },
  'xml-dtd': { code: 'invalid_file', details: 'xml-dtd' },
  'xml-syntax': { code: 'invalid_file', details: 'xml-syntax' },
  'xml-encoding': { code: 'invalid_file', details: 'xml-encoding' },
  'xml-row-element': { code: 'invalid_option', details: 'xml-row-element', option: 'row-element' },
  'too-deep': { code: 'invalid_file', details: 'too-deep' },
  json_syntax: { code: 'invalid_file', details: 'json_syntax' },
  json_too_deep: { code: 'invalid_file', details: 'json_too_deep' },
  json_not_list: { code: 'invalid_file', details: 'json_not_list' },
  json_item_not_object: { code: 'invalid_file', details: 'json_item_not_object' },
  sql_unclosed: { code: 'invalid_file', details: 'sql_unclosed' },
  sql_syntax: { code: 'invalid_file', details: 'sql_syntax' },
  sql_values: { code: 'invalid_file', details: 'sql_values' },
  sql_too_deep: { code: 'invalid_file', details: 'sql_too_deep' },
  sql_nothing: { code: 'invalid_file', details: 'sql_nothing' },
  vcard_none: { code: 'invalid_file', details: 'vcard_none' },
  'cell-outside-grid': { code: 'invalid_file', details: 'cell-outside-grid' },
  cells: { code: 'too_complex', details: 'cells' },
  'sheet-extent': { code: 'too_complex', details: 'sheet-extent' },
  'zip-ratio': { code: 'too_complex', details: 'zip-ratio' },
  'zip-size': { code: 'too_complex', details: 'zip-size' },
  'too-complex': { code: 'too_complex' },
  'no-table': { code: 'invalid_file', details: 'no-table' },
  'pdf-lines': { code: 'too_complex', details: 'pdf_lines' },
  'format-limit': { code: 'format_limit_exceeded' },
  'result-size': { code: 'result_too_large' },
};

/**
 * A FormatError as the caller gets it. An error about an input file names it (`name`, and the `format` its
 * extension claims) and the request field it came in (`option`); a result's error names neither.
 */
export function toolErrorOf(err: FormatError, option: string): ToolError {
  const { code, details, option: concerns } = FORMAT_ERRORS[err.reason];
  const file: Record<string, string> = err.file === undefined ? {} : { name: err.file.slice(0, 200), format: extensionOf(err.file) };
  const mapped = new ToolError(code, {
    ...(concerns ? { option: concerns } : err.file === undefined ? {} : { option }),
    ...(details ? { messageKey: `error-details.${details}` } : {}),
    params: { ...file, ...err.params },
  });
  // Kept for logs; outside `detail`, which is what callers see the shape of.
  Object.defineProperty(mapped, 'cause', { value: err, enumerable: false });
  return mapped;
}

/**
 * Anything a tool threw, with FormatErrors mapped: an error about one of the `more` files (merge-by-key's
 * `lookup-file`) names that file's field, any other the main one.
 */
export function mapFormatError(err: unknown, option: string, more: readonly InputFile[] = []): unknown {
  if (!(err instanceof FormatError)) return err;
  const other = more.find((f) => f === err.source);
  return toolErrorOf(err, other?.field ?? option);
}

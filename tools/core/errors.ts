// The one table of stable error codes and their HTTP status. README and OpenAPI tables are generated from it.

export const ERROR_STATUS = {
  missing_file: 400,
  unsupported_format: 400,
  invalid_option: 400,
  unknown_option: 400,
  invalid_file: 400,
  too_many_files: 400,
  too_few_files: 400,
  bad_request: 400,
  invalid_api_key: 401,
  forbidden_host: 403,
  forbidden_origin: 403,
  unknown_tool: 404,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  input_too_large: 413,
  result_too_large: 413,
  format_limit_exceeded: 413,
  too_complex: 413,
  quota_exceeded: 429,
  headers_too_large: 431,
  busy: 503,
  internal_error: 500,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** Quota state of the caller, carried by results and errors so that adapters can send RateLimit-* headers. */
export interface RateInfo {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
}

export interface ErrorDetail {
  /** The option (or `file` / `files`) the error concerns. */
  option?: string;
  /** Locale key of a more precise message than `errors.<code>` (same placeholders rules). */
  messageKey?: string;
  /** Values for the localized message's placeholders. */
  params?: Record<string, string | number>;
  /** Seconds the caller should wait (429, 503). */
  retryAfter?: number;
  rate?: RateInfo;
  /** Internal cause: logged, never sent. */
  cause?: unknown;
}

/** A failure the caller can act on. Anything thrown that is not a ToolError becomes `internal_error`. */
export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly detail: ErrorDetail;
  constructor(code: ErrorCode, detail: ErrorDetail = {}) {
    super(code, { cause: detail.cause });
    this.name = 'ToolError';
    this.code = code;
    this.detail = detail;
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** Turns anything thrown into a ToolError; unexpected errors are logged here, once, and never sent. */
export function asToolError(err: unknown): ToolError {
  if (err instanceof ToolError) return err;
  console.error('internal_error:', err);
  return new ToolError('internal_error', { cause: err });
}

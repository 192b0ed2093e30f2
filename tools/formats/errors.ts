// What the xlsx reader throws before it knows the file's name: read-table turns these into ToolErrors.
//
// - `PackageError` is a verdict on the file (a broken or lying ZIP, a bomb, a DTD, a password);
// - `NeedsFallback` means the file is fine but uses something the fast path does not read: the caller reads it
//   with SheetJS instead. Its reason is for logs and tests, never shown to the caller.

export type PackageErrorCode = 'invalid_file' | 'too_complex';

export class PackageError extends Error {
  readonly code: PackageErrorCode;
  /** A precise `error-details.*` message, when there is one better than `errors.<code>`. */
  readonly messageKey?: string;
  readonly params: Record<string, string | number>;
  constructor(code: PackageErrorCode, reason: string, o: { messageKey?: string; params?: Record<string, string | number> } = {}) {
    super(reason);
    this.name = 'PackageError';
    this.code = code;
    this.messageKey = o.messageKey;
    this.params = o.params ?? {};
  }
}

/** A damaged or lying package: `invalid_file` with the generic message. */
export const damaged = (reason: string) => new PackageError('invalid_file', reason);

export class NeedsFallback extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'NeedsFallback';
  }
}

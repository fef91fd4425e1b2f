import { isErrorCode, type ErrorCode } from './error-codes.js';
import { ERROR_RETRY } from './error-retry.js';

/** How an error crosses a process boundary (queue, result store): data, never a packed string. */
export interface ErrorData {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
}

export interface TrawlErrorOptions {
  /**
   * Whether trying again may succeed (decides BullMQ retries). Default: the code's class in
   * `ERROR_RETRY` is not `never`. Set it only where this cause differs from its code's rule.
   */
  retryable?: boolean;
  details?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The one error class of the system. `code` picks the HTTP status (in the API only) and the retry
 * policy (in workers); `details` is returned to the client as is, so it never carries secrets.
 */
export class TrawlError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, opts: TrawlErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'TrawlError';
    this.code = code;
    this.retryable = opts.retryable ?? ERROR_RETRY[code] !== 'never';
    this.details = opts.details;
  }

  toData(): ErrorData {
    const data: ErrorData = { code: this.code, message: this.message, retryable: this.retryable };
    if (this.details !== undefined) data.details = this.details;
    return data;
  }

  static fromData(data: ErrorData): TrawlError {
    return new TrawlError(data.code, data.message, { retryable: data.retryable, details: data.details });
  }

  /** Wraps anything thrown into a TrawlError; unknown errors become non-retryable UNKNOWN_ERROR. */
  static from(err: unknown): TrawlError {
    if (err instanceof TrawlError) return err;
    if (isErrorData(err)) return TrawlError.fromData(err);
    const message = err instanceof Error ? err.message : String(err);
    return new TrawlError('UNKNOWN_ERROR', message, { cause: err });
  }
}

export function isErrorData(value: unknown): value is ErrorData {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return isErrorCode(v.code) && typeof v.message === 'string' && typeof v.retryable === 'boolean';
}

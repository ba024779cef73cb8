/**
 * Coded domain errors. The core never knows a status code: the HTTP adapter maps each
 * kind to one in a single table (adapters/http/error-handler.ts). Build them with the named
 * constructors of error-catalogue.ts, never from a code literal.
 */
export type ErrorKind =
  | 'validation'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'unsupported'
  | 'unprocessable'
  | 'rate_limited'
  | 'unavailable'
  | 'bad_gateway'
  | 'bad_request'
  | 'range_not_satisfiable';

/** One input field that breaks a rule: its name (dotted path) and what is wrong with it. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

export abstract class DomainError extends Error {
  abstract readonly kind: ErrorKind;
  constructor(
    /** Stable snake_case code clients may switch on. */
    readonly code: string,
    detail: string,
  ) {
    super(detail);
    this.name = new.target.name;
  }
}

/** 422: input breaks a business rule (`validation_failed`, `password_too_long`, ...). */
export class ValidationError extends DomainError {
  readonly kind = 'validation';
  constructor(code: string, detail: string, readonly errors: readonly FieldError[] = []) {
    super(code, detail);
  }
}

/** 400: the request is malformed in a way no schema catches (bad multipart, bad state). */
export class BadRequestError extends DomainError {
  readonly kind = 'bad_request';
}

/** 401: `missing_token`, `invalid_token`, `invalid_credentials`. */
export class AuthenticationError extends DomainError {
  readonly kind = 'unauthenticated';
}

/** 403: authenticated but not permitted (`permission_denied`, `registration_closed`, ...). */
export class PermissionDeniedError extends DomainError {
  readonly kind = 'forbidden';
}

/** 404: absent or not visible to the caller (`book_not_found`, `shelf_not_found`, ...). */
export class NotFoundError extends DomainError {
  readonly kind = 'not_found';
}

/** 409: `username_already_exists`, `email_already_exists`, `shelf_name_taken`, `duplicate_book`. */
export class ConflictError extends DomainError {
  readonly kind = 'conflict';
  constructor(code: string, detail: string, readonly extra: Readonly<Record<string, unknown>> = {}) {
    super(code, detail);
  }
}

/** 413: `payload_too_large`. */
export class TooLargeError extends DomainError {
  readonly kind = 'too_large';
}

/** 415: `unsupported_media_type`, `unsupported_book_format`. */
export class UnsupportedTypeError extends DomainError {
  readonly kind = 'unsupported';
}

/** 422 for content that is the right type but cannot be used (`corrupt_book_file`). */
export class UnprocessableError extends DomainError {
  readonly kind = 'unprocessable';
}

/** 416 `range_not_satisfiable`: the requested byte range lies outside the file of `size` bytes. */
export class RangeNotSatisfiableError extends DomainError {
  readonly kind = 'range_not_satisfiable';
  constructor(code: string, detail: string, readonly size: number) {
    super(code, detail);
  }
}

/** 429 `rate_limited`; the adapter sends `Retry-After`. */
export class RateLimitedError extends DomainError {
  readonly kind = 'rate_limited';
  constructor(code: string, detail: string, readonly retryAfterSeconds: number) {
    super(code, detail);
  }
}

/** 503: a dependency (the store) is down; with `retryAfterSeconds`, the adapter sends `Retry-After`. */
export class UnavailableError extends DomainError {
  readonly kind = 'unavailable';
  constructor(code: string, detail: string, readonly retryAfterSeconds?: number) {
    super(code, detail);
  }
}

/** 502: an upstream (the OpenID Provider) answered badly. */
export class BadGatewayError extends DomainError {
  readonly kind = 'bad_gateway';
}

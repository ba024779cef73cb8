import { BadRequestError, NotFoundError, TooLargeError, UnsupportedTypeError, type FieldError } from '../../domain/errors.js';

/**
 * Codes only the HTTP transport raises (framing, parsing, routing), each built here and nowhere
 * else. The domain's codes live in domain/error-catalogue.ts; docs/errors.md lists both.
 */

/** The part of a request a field error was found in; the error handler says `body` when none is named. */
export type RequestPart = 'body' | 'query' | 'path' | 'header';

/** A field error that names its request part. */
export interface LocatedFieldError extends FieldError {
  readonly location: RequestPart;
}

/** A problem outside the domain's error kinds, sent as it is. */
export interface TransportProblem {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
}

/** The JSON body does not parse. */
export const malformedJson = (): BadRequestError => new BadRequestError('malformed_json', 'The request body is not valid JSON.');

/** The request is malformed in a way the framework rejects (bad framing, size mismatch). */
export const malformedRequest = (): BadRequestError => new BadRequestError('malformed_request', 'The request could not be understood.');

/** The client aborted the request before its body was read. */
export const requestAborted = (): BadRequestError => new BadRequestError('request_aborted', 'The request was aborted.');

/** The multipart body does not parse. */
export const malformedMultipart = (): BadRequestError => new BadRequestError('malformed_multipart', 'The multipart body is malformed.');

/** A multipart field name has brackets, dots or nesting. */
export const invalidFieldName = (): BadRequestError =>
  new BadRequestError('invalid_field_name', 'Field names must be plain names: no brackets, dots or nesting.');

/** A multipart field came twice. */
export const duplicateField = (name: string): BadRequestError => new BadRequestError('duplicate_field', `Field '${name}' was sent more than once.`);

/** More than one file part. */
export const tooManyFiles = (): BadRequestError => new BadRequestError('too_many_files', 'Send exactly one file part, named file.');

/** More text fields than `max`. */
export const tooManyFields = (max: number): BadRequestError => new BadRequestError('too_many_fields', `At most ${max} fields are accepted.`);

/** More parts than `max`. */
export const tooManyParts = (max: number): BadRequestError => new BadRequestError('too_many_parts', `At most ${max} parts are accepted.`);

/** A multipart text field is longer than `maxBytes`. */
export const fieldTooLarge = (name: string, maxBytes: number): TooLargeError =>
  new TooLargeError('field_too_large', `Field '${name}' is longer than ${maxBytes} bytes.`);

/** The body is not of the media type (or charset, or content encoding) the route accepts. */
export const unsupportedMediaType = (expected: string): UnsupportedTypeError =>
  new UnsupportedTypeError('unsupported_media_type', `The request body must be ${expected}.`);

/** No route has this path. */
export const routeNotFound = (method: string, path: string): NotFoundError =>
  new NotFoundError('route_not_found', `No route ${method} ${path.slice(0, 200)}.`);

/** The path exists, but not with this method (the response lists `Allow`). */
export const methodNotAllowed = (method: string): TransportProblem => ({
  status: 405,
  code: 'method_not_allowed',
  detail: `${method} is not allowed here.`,
});

/** A library refused the request with a 4xx status of its own (other than 400). */
export const requestRefused = (status: number): TransportProblem => ({
  status,
  code: 'request_refused',
  detail: 'The request could not be understood.',
});

/** A request body sent no byte for the idle period (or its headers took too long): cut, the connection closed. */
export const requestTimedOut = (): TransportProblem => ({
  status: 408,
  code: 'request_timeout',
  detail: 'The request was sent too slowly and was cut.',
});

/** The client address holds as many open requests as it may (MAX_CONNECTIONS_PER_ADDRESS, behind a proxy). */
export const tooManyConnections = (): TransportProblem => ({
  status: 429,
  code: 'too_many_connections',
  detail: 'Too many open connections from this address.',
});

/** Anything unexpected; the cause is logged, never sent. */
export const internalError = (): TransportProblem => ({ status: 500, code: 'internal_error', detail: 'Something went wrong.' });

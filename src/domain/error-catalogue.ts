import {
  AuthenticationError,
  BadGatewayError,
  BadRequestError,
  ConflictError,
  DomainError,
  NotFoundError,
  PermissionDeniedError,
  RangeNotSatisfiableError,
  RateLimitedError,
  TooLargeError,
  UnavailableError,
  UnprocessableError,
  UnsupportedTypeError,
  ValidationError,
  type FieldError,
} from './errors.js';

/**
 * Every error code the core and its adapters raise, each built here and nowhere else, with one
 * message per code. docs/errors.md lists them (checked by test/unit/domain/error-catalogue.test.ts).
 */

/** Input breaks a rule; `detail` says which, `errors` name the fields. */
export const invalidInput = <F extends FieldError>(detail: string, errors: readonly F[] = []): ValidationError =>
  new ValidationError('validation_failed', detail, errors);

/** The password is longer than bcrypt reads (`maxBytes` UTF-8 bytes). */
export const passwordTooLong = (field: string, maxBytes: number): ValidationError =>
  new ValidationError('password_too_long', `The password is longer than ${maxBytes} bytes in UTF-8.`, [
    { field, message: `must be at most ${maxBytes} UTF-8 bytes` },
  ]);

/** No book with this id, or one the caller may not see. */
export const bookNotFound = (id: string): NotFoundError => new NotFoundError('book_not_found', `No book with id '${id}'.`);

/** No shelf with this id, or one the caller may not see. */
export const shelfNotFound = (id: string): NotFoundError => new NotFoundError('shelf_not_found', `No shelf with id '${id}'.`);

/** No account with this id (or username, for lookups by name). */
export const userNotFound = (ref: string): NotFoundError => new NotFoundError('user_not_found', `No user '${ref}'.`);

/** The shelf does not hold this book. */
export const bookNotOnShelf = (bookId: string): NotFoundError =>
  new NotFoundError('book_not_on_shelf', `The book '${bookId}' is not on this shelf.`);

/** The book has no cover image. */
export const coverNotFound = (bookId: string): NotFoundError => new NotFoundError('cover_not_found', `Book '${bookId}' has no cover.`);

/** The book's record exists but its file is gone from the blob store. */
export const bookFileNotFound = (bookId: string): NotFoundError =>
  new NotFoundError('book_file_not_found', `The file of book '${bookId}' is missing.`);

/** No API key with this id among the owner's keys. */
export const apiKeyNotFound = (id: string): NotFoundError => new NotFoundError('api_key_not_found', `No API key with id '${id}'.`);

/** No Kobo device with this id among the owner's devices. */
export const koboDeviceNotFound = (id: string): NotFoundError => new NotFoundError('kobo_device_not_found', `No Kobo device with id '${id}'.`);

/** Single sign-on is not configured (no OIDC_ISSUER). */
export const oidcDisabled = (): NotFoundError => new NotFoundError('oidc_disabled', 'Single sign-on is not configured.');

/** A request that needs a bearer token came without one. */
export const missingToken = (): AuthenticationError => new AuthenticationError('missing_token', 'A bearer token is required.');

/** The bearer token is malformed, expired, revoked, or its account is gone or disabled. */
export const invalidToken = (): AuthenticationError => new AuthenticationError('invalid_token', 'The token is invalid, expired or revoked.');

/** Unknown login, wrong password or disabled account (told apart to no one). */
export const invalidCredentials = (): AuthenticationError =>
  new AuthenticationError('invalid_credentials', 'The username or password is incorrect.');

/** The caller is signed in but lacks the permission, or is not the owner or uploader. */
export const permissionDenied = (): PermissionDeniedError =>
  new PermissionDeniedError('permission_denied', 'You do not have permission to do this.');

/** Password sign-up and login are turned off (LOCAL_LOGIN=false). */
export const localLoginDisabled = (): PermissionDeniedError =>
  new PermissionDeniedError('local_login_disabled', 'Password accounts are turned off; use single sign-on.');

/** Self-registration is closed (REGISTRATION=closed). */
export const registrationClosed = (): PermissionDeniedError => new PermissionDeniedError('registration_closed', 'Registration is closed.');

/** KOReader's "Register" on the sync server: accounts are made in Stacks, and KOReader signs in with an API key. */
export const kosyncRegistrationClosed = (): PermissionDeniedError => new PermissionDeniedError('kosync_registration_closed',
  'Accounts are made in Stacks. Log in with your Stacks username and a personal API key as the password.');

/** The account signs in through single sign-on and has no password (to change, or to keep as its way in once unlinked). */
export const passwordNotSet = (): ConflictError =>
  new ConflictError('password_not_set', 'This account signs in through single sign-on and has no password.');

/** The current password given to change it is wrong. */
export const invalidCurrentPassword = (): PermissionDeniedError =>
  new PermissionDeniedError('invalid_current_password', 'The current password is incorrect.');

/** The account is disabled. */
export const accountDisabled = (): PermissionDeniedError => new PermissionDeniedError('account_disabled', 'This account is disabled.');

/** Another account has this username. */
export const usernameTaken = (username: string): ConflictError =>
  new ConflictError('username_already_exists', `The username '${username}' is taken.`);

/** A key with this id or secret digest is already stored. */
export const apiKeyExists = (): ConflictError => new ConflictError('api_key_exists', 'This API key already exists.');

/** A Kobo device with this id or sync URL digest is already stored. */
export const koboDeviceExists = (): ConflictError => new ConflictError('kobo_device_exists', 'This Kobo device already exists.');

/** Another account has this e-mail address. */
export const emailTaken = (): ConflictError => new ConflictError('email_already_exists', 'An account with this e-mail already exists.');

/** The single sign-on identity belongs to another account. */
export const oidcIdentityTaken = (): ConflictError =>
  new ConflictError('oidc_identity_already_linked', 'This sign-in identity is linked to another account.');

/** A first single sign-on whose e-mail belongs to an account it may not take over; sign in there and link. */
export const accountExists = (): ConflictError =>
  new ConflictError(
    'account_exists',
    'An account with this e-mail already exists. Sign in to it with its password, then link single sign-on from there (POST /api/auth/oidc/link).',
  );

/** The account to link already has a single sign-on identity of its own. */
export const oidcAccountAlreadyLinked = (): ConflictError =>
  new ConflictError('oidc_account_already_linked', 'This account is already linked to a single sign-on identity.');

/** The owner already has a shelf with this name (compared case-insensitively). */
export const shelfNameTaken = (): ConflictError => new ConflictError('shelf_name_taken', 'You already have a shelf with this name.');

/** The library already holds this file; `book_id` names the book that has it. */
export const duplicateBook = (existingId: string | null): ConflictError =>
  new ConflictError('duplicate_book', 'This file is already in the library.', { book_id: existingId });

/** The change would leave no active admin. */
export const lastAdmin = (): ConflictError => new ConflictError('last_admin', 'This is the last active admin; make another admin first.');

/** The single sign-on callback is invalid: not started in this browser, expired, used, or refused. */
export const oidcCallbackInvalid = (): BadRequestError =>
  new BadRequestError('oidc_callback_invalid', 'This sign-in is invalid, expired or was started in another browser; start again.');

/** The one-time sign-in code is unknown, expired or already used. */
export const invalidLoginCode = (): BadRequestError => new BadRequestError('invalid_code', 'The code is unknown, expired or already used.');

/** The request body is larger than `maxBytes`. */
export const payloadTooLarge = (maxBytes: number): TooLargeError =>
  new TooLargeError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`);

/** The file is not a book format Stacks reads. */
export const unsupportedBookFormat = (): UnsupportedTypeError =>
  new UnsupportedTypeError('unsupported_book_format', 'The file is not an EPUB, PDF, MOBI, AZW3, CBZ, FB2 or plain-text book.');

/** The file has a known format but cannot be read safely; `reason` says what is wrong. */
export const corruptBookFile = (reason: string): UnprocessableError => new UnprocessableError('corrupt_book_file', reason);

/** The uploaded file is empty. */
export const emptyFile = (): UnprocessableError => new UnprocessableError('empty_file', 'The file is empty.');

/** Reading the file's metadata took longer than `budgetMs`. */
export const metadataTimeout = (budgetMs: number): UnprocessableError =>
  new UnprocessableError('metadata_timeout', `Reading the file took longer than ${budgetMs} ms.`);

/** The requested byte range lies outside the file of `size` bytes. */
export const rangeNotSatisfiable = (size: number): RangeNotSatisfiableError =>
  new RangeNotSatisfiableError('range_not_satisfiable', `The requested range is not within the ${size} bytes of the file.`, size);

/** Too many attempts or requests; retry after `retryAfterSeconds`. */
export const rateLimited = (retryAfterSeconds: number): RateLimitedError =>
  new RateLimitedError('rate_limited', 'Too many requests. Try again later.', retryAfterSeconds);

/**
 * How long a client should wait before trying again after a store outage: about what a replica set
 * takes to elect a new primary after a step-down (a few seconds); a retry sooner is answered 503 again.
 */
export const STORE_RETRY_AFTER_SECONDS = 5;

/** The store does not answer (down, failing over, or slower than its time limits); retry after a few seconds. */
export const storeUnavailable = (): UnavailableError =>
  new UnavailableError('store_unavailable', 'The database does not answer.', STORE_RETRY_AFTER_SECONDS);

/** Too many attempts on one throttle key at once: the store could not count this one in time. */
export const throttleBusy = (): UnavailableError =>
  new UnavailableError('throttle_busy', 'Too many sign-in attempts at once. Try again shortly.');

/** The readiness check found the store not answering. */
export const notReady = (): UnavailableError => new UnavailableError('not_ready', 'The store does not answer.');

/** Every metadata worker is busy and the queue is full. */
export const metadataBusy = (): UnavailableError =>
  new UnavailableError('metadata_busy', 'Too many files are being processed. Try again later.');

/** The OpenID Provider cannot be reached. */
export const oidcUnavailable = (): UnavailableError =>
  new UnavailableError('oidc_unavailable', 'The sign-in provider cannot be reached. Try again later.');

/** The OpenID Provider answered unexpectedly. */
export const oidcProviderError = (): BadGatewayError => new BadGatewayError('oidc_provider_error', 'The sign-in provider answered unexpectedly.');

/** Whether `error` carries the code that `make` builds, so callers switch on codes without spelling them. */
export const hasCodeOf = (error: unknown, make: () => DomainError): error is DomainError =>
  error instanceof DomainError && error.code === make().code;

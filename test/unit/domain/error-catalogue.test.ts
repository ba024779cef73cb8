import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { statusOf } from '../../../src/adapters/http/error-handler.js';
import * as transport from '../../../src/adapters/http/http-errors.js';
import * as catalogue from '../../../src/domain/error-catalogue.js';
import { DomainError } from '../../../src/domain/errors.js';

type Built = DomainError | transport.TransportProblem;
type Constructors<M> = { [K in keyof M as M[K] extends (...args: never[]) => Built ? K : never]: () => Built };

/** One call of every domain constructor; the type makes a new constructor fail to compile until it is listed. */
const DOMAIN: Constructors<typeof catalogue> = {
  invalidInput: () => catalogue.invalidInput('The shelf name is invalid.', [{ field: 'name', message: 'too long' }]),
  passwordTooLong: () => catalogue.passwordTooLong('password', 72),
  bookNotFound: () => catalogue.bookNotFound('b1'),
  shelfNotFound: () => catalogue.shelfNotFound('s1'),
  userNotFound: () => catalogue.userNotFound('u1'),
  bookNotOnShelf: () => catalogue.bookNotOnShelf('b1'),
  coverNotFound: () => catalogue.coverNotFound('b1'),
  bookFileNotFound: () => catalogue.bookFileNotFound('b1'),
  apiKeyNotFound: () => catalogue.apiKeyNotFound('k1'),
  apiKeyExists: () => catalogue.apiKeyExists(),
  koboDeviceNotFound: () => catalogue.koboDeviceNotFound('d1'),
  koboDeviceExists: () => catalogue.koboDeviceExists(),
  oidcDisabled: () => catalogue.oidcDisabled(),
  missingToken: () => catalogue.missingToken(),
  invalidToken: () => catalogue.invalidToken(),
  invalidCredentials: () => catalogue.invalidCredentials(),
  permissionDenied: () => catalogue.permissionDenied(),
  localLoginDisabled: () => catalogue.localLoginDisabled(),
  registrationClosed: () => catalogue.registrationClosed(),
  kosyncRegistrationClosed: () => catalogue.kosyncRegistrationClosed(),
  passwordNotSet: () => catalogue.passwordNotSet(),
  invalidCurrentPassword: () => catalogue.invalidCurrentPassword(),
  accountDisabled: () => catalogue.accountDisabled(),
  usernameTaken: () => catalogue.usernameTaken('alice'),
  emailTaken: () => catalogue.emailTaken(),
  oidcIdentityTaken: () => catalogue.oidcIdentityTaken(),
  accountExists: () => catalogue.accountExists(),
  oidcAccountAlreadyLinked: () => catalogue.oidcAccountAlreadyLinked(),
  shelfNameTaken: () => catalogue.shelfNameTaken(),
  duplicateBook: () => catalogue.duplicateBook('b1'),
  lastAdmin: () => catalogue.lastAdmin(),
  oidcCallbackInvalid: () => catalogue.oidcCallbackInvalid(),
  invalidLoginCode: () => catalogue.invalidLoginCode(),
  payloadTooLarge: () => catalogue.payloadTooLarge(1024),
  unsupportedBookFormat: () => catalogue.unsupportedBookFormat(),
  corruptBookFile: () => catalogue.corruptBookFile('Entry x is a nested archive.'),
  emptyFile: () => catalogue.emptyFile(),
  metadataTimeout: () => catalogue.metadataTimeout(5000),
  rangeNotSatisfiable: () => catalogue.rangeNotSatisfiable(10),
  rateLimited: () => catalogue.rateLimited(30),
  storeUnavailable: () => catalogue.storeUnavailable(),
  throttleBusy: () => catalogue.throttleBusy(),
  notReady: () => catalogue.notReady(),
  metadataBusy: () => catalogue.metadataBusy(),
  oidcUnavailable: () => catalogue.oidcUnavailable(),
  oidcProviderError: () => catalogue.oidcProviderError(),
};

/** One call of every constructor of the HTTP adapter's own codes. */
const TRANSPORT: Constructors<typeof transport> = {
  malformedJson: () => transport.malformedJson(),
  malformedRequest: () => transport.malformedRequest(),
  requestAborted: () => transport.requestAborted(),
  malformedMultipart: () => transport.malformedMultipart(),
  invalidFieldName: () => transport.invalidFieldName(),
  duplicateField: () => transport.duplicateField('title'),
  tooManyFiles: () => transport.tooManyFiles(),
  tooManyFields: () => transport.tooManyFields(20),
  tooManyParts: () => transport.tooManyParts(25),
  fieldTooLarge: () => transport.fieldTooLarge('title', 65536),
  unsupportedMediaType: () => transport.unsupportedMediaType('application/json'),
  routeNotFound: () => transport.routeNotFound('GET', '/nowhere'),
  methodNotAllowed: () => transport.methodNotAllowed('PUT'),
  requestRefused: () => transport.requestRefused(403),
  requestTimedOut: () => transport.requestTimedOut(),
  tooManyConnections: () => transport.tooManyConnections(),
  internalError: () => transport.internalError(),
};

const statusCell = (built: Built): string => {
  if (built instanceof DomainError) return String(statusOf(built));
  return built.code === 'request_refused' ? '4xx' : String(built.status);
};

/** code → status as the adapters send it, from every constructor of both tables. */
function emitted(constructors: Record<string, () => Built>): Map<string, string> {
  return new Map(Object.values(constructors).map((make) => {
    const built = make();
    return [built.code, statusCell(built)] as const;
  }));
}

/** code → status from the table in docs/errors.md. */
function documentedTable(): Map<string, string> {
  const section = readFileSync(resolve(import.meta.dirname, '../../../docs/errors.md'), 'utf8');
  const rows = [...section.matchAll(/^\| `([a-z_]+)` \| (\S+) \|/gm)];
  return new Map(rows.map((row) => [row[1] as string, row[2] as string]));
}

describe('the error catalogue', () => {
  const domain = emitted(DOMAIN);
  const http = emitted(TRANSPORT);

  it('lists every exported constructor in the samples above', () => {
    const constructorsOf = (module: object) => Object.entries(module).filter(([name, value]) => typeof value === 'function' && name !== 'hasCodeOf');
    expect(Object.keys(DOMAIN).sort()).toEqual(constructorsOf(catalogue).map(([name]) => name).sort());
    expect(Object.keys(TRANSPORT).sort()).toEqual(constructorsOf(transport).map(([name]) => name).sort());
  });

  it('builds each code with exactly one constructor, so each code has one message', () => {
    expect(domain.size).toBe(Object.keys(DOMAIN).length);
    expect(http.size).toBe(Object.keys(TRANSPORT).length);
    expect([...domain.keys()].filter((code) => http.has(code))).toEqual([]);
  });

  it('is the table in docs/errors.md, code by code, with the status the HTTP adapter sends', () => {
    const table = documentedTable();
    const built = new Map([...domain, ...http]);
    expect(table.size).toBeGreaterThan(0);
    expect(Object.fromEntries(table)).toEqual(Object.fromEntries(built));
  });
});

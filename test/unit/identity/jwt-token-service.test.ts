import { createHmac, generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { SignJWT, exportJWK } from 'jose';
import jwt from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import { JwtTokenService, VERIFIED_TOKENS_KEPT } from '../../../src/adapters/identity/jwt-token-service.js';
import { AuthenticationError } from '../../../src/domain/errors.js';
import type { User } from '../../../src/domain/user.js';
import { FakeClock, SequentialIds } from '../../support/kit.js';

const SECRET = 'test-secret-of-at-least-thirty-two-bytes-0123456789';
const NINETY_DAYS = 90 * 86400;
const NOW = new Date('2026-11-22T10:00:00.000Z');
const NOW_S = NOW.getTime() / 1000;

const user: User = {
  id: 'user-1', username: 'alice', email: 'alice@example.com', passwordHash: null, roles: ['user'],
  authProvider: 'local', oidc: null, disabled: false, tokenVersion: 3, createdAt: NOW, updatedAt: NOW,
};

function service(now: Date = NOW, extra: { issuer?: string; audience?: string } = {}) {
  return new JwtTokenService({
    secret: SECRET, expiresInSeconds: NINETY_DAYS, clock: new FakeClock(now), ids: new SequentialIds('jti-'), ...extra,
  });
}

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** Hand-built HMAC token so any header and payload can be crafted. */
function hmacToken(header: object, payload: object, alg = 'sha256', secret = SECRET): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac(alg, secret).update(input).digest('base64url')}`;
}

const goodClaims = () => ({ sub: 'user-1', jti: 'j1', tv: 0, iat: NOW_S, exp: NOW_S + 3600, iss: 'stacks', aud: 'stacks' });
const HS256 = { alg: 'HS256', typ: 'JWT' };

function expectInvalid(token: string, svc = service()): void {
  let thrown: unknown;
  try {
    svc.verify(token);
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(AuthenticationError);
  expect((thrown as AuthenticationError).code).toBe('invalid_token');
  expect((thrown as AuthenticationError).message).toBe('The token is invalid, expired or revoked.');
}

describe('JwtTokenService', () => {
  it('issues a token that verifies back to its claims', () => {
    const svc = service();
    const issued = svc.issue(user);
    expect(issued.jti).toBe('jti-1');
    expect(issued.expiresIn).toBe(NINETY_DAYS);
    expect(svc.verify(issued.token)).toEqual({
      userId: 'user-1', jti: 'jti-1', tokenVersion: 3, expiresAt: new Date((NOW_S + NINETY_DAYS) * 1000),
    });
  });

  it('signs HS256 with sub, jti, iat, exp, iss, aud and tv, lasting 90 days', () => {
    const { token } = service().issue(user);
    const [header, payload] = token.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toEqual({ sub: 'user-1', jti: 'jti-1', tv: 3, iat: NOW_S, exp: NOW_S + 7_776_000, iss: 'stacks', aud: 'stacks' });
  });

  it('uses the configured issuer and audience and refuses the defaults then', () => {
    const custom = service(NOW, { issuer: 'https://books.example', audience: 'stacks-api' });
    const token = custom.issue(user).token;
    expect(custom.verify(token).userId).toBe('user-1');
    expectInvalid(token, service());
    expectInvalid(service().issue(user).token, custom);
  });

  it('accepts a hand-built token with every required claim (control for the cases below)', () => {
    expect(service().verify(hmacToken(HS256, goodClaims())).jti).toBe('j1');
  });

  it.each(['none', 'None', 'NONE', 'nOnE'])('rejects alg %s with an empty signature', (alg) => {
    expectInvalid(`${b64({ alg, typ: 'JWT' })}.${b64(goodClaims())}.`);
  });

  it('rejects HS512 and HS384 signed with the real secret', () => {
    expectInvalid(hmacToken({ alg: 'HS512', typ: 'JWT' }, goodClaims(), 'sha512'));
    expectInvalid(hmacToken({ alg: 'HS384', typ: 'JWT' }, goodClaims(), 'sha384'));
  });

  it('rejects RS256 signed with an attacker key carried in a jwk header', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const token = await new SignJWT(goodClaims())
      .setProtectedHeader({ alg: 'RS256', jwk: await exportJWK(publicKey) })
      .sign(privateKey);
    expectInvalid(token);
  });

  it('rejects an HS256 token MACed with a public-key PEM (no HS/RS confusion)', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expectInvalid(hmacToken(HS256, goodClaims(), 'sha256', pem));
  });

  it('ignores jku, x5u and kid headers', () => {
    for (const extra of [{ jku: 'http://127.0.0.1:1/jwks' }, { x5u: 'http://127.0.0.1:1/x' }, { kid: '../../../../dev/null' }]) {
      expectInvalid(hmacToken({ ...HS256, ...extra }, goodClaims(), 'sha256', 'attacker-secret-attacker-secret-xx'));
    }
  });

  it('rejects a tampered payload and a tampered signature', () => {
    const [h, p, s] = service().issue(user).token.split('.') as [string, string, string];
    const forged = b64({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'admin' });
    expectInvalid(`${h}.${forged}.${s}`);
    expectInvalid(`${h}.${p}.${s.slice(0, -2)}${s.endsWith('AA') ? 'BB' : 'AA'}`);
  });

  it('rejects an expired token and honours at most 30 s of clock tolerance', () => {
    const { token } = service().issue(user);
    const expiry = NOW_S + NINETY_DAYS;
    expect(service(new Date((expiry + 29) * 1000)).verify(token).userId).toBe('user-1');
    expectInvalid(token, service(new Date((expiry + 31) * 1000)));
    expectInvalid(hmacToken(HS256, { ...goodClaims(), iat: NOW_S - 3600, exp: NOW_S - 120 }));
  });

  describe('a token verified before (kept by its exact text)', () => {
    const withClock = (clock: FakeClock) => new JwtTokenService({ secret: SECRET, expiresInSeconds: 3600, clock, ids: new SequentialIds('jti-') });

    it('is refused once it expires, as on its first check', () => {
      const clock = new FakeClock(NOW);
      const svc = withClock(clock);
      const { token } = svc.issue(user);
      expect(svc.verify(token).userId).toBe('user-1');
      clock.advance((3600 + 29) * 1000);
      expect(svc.verify(token).userId).toBe('user-1');
      clock.advance(2_000);
      expectInvalid(token, svc);
    });

    it('is refused while the clock stands before its iat or nbf beyond the tolerance', () => {
      const clock = new FakeClock(NOW);
      const svc = withClock(clock);
      const token = hmacToken(HS256, { ...goodClaims(), nbf: NOW_S });
      expect(svc.verify(token).jti).toBe('j1');
      clock.advance(-31_000);
      expectInvalid(token, svc);
      clock.advance(31_000);
      expect(svc.verify(token).jti).toBe('j1');
    });

    it('is refused with one character of its signature or payload changed', () => {
      const svc = service();
      const { token } = svc.issue(user);
      expect(svc.verify(token).userId).toBe('user-1');
      const [h, p, s] = token.split('.') as [string, string, string];
      expectInvalid(`${h}.${p}.${s.slice(0, -2)}${s.endsWith('AA') ? 'BB' : 'AA'}`, svc);
      expectInvalid(`${h}.${b64({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), sub: 'admin' })}.${s}`, svc);
    });

    it('still verifies after more than the kept number of other tokens pushed it out', () => {
      const svc = service();
      const { token } = svc.issue(user);
      svc.verify(token);
      for (let i = 0; i <= VERIFIED_TOKENS_KEPT; i++) svc.verify(hmacToken(HS256, { ...goodClaims(), jti: `j${i}` }));
      expect(svc.verify(token).userId).toBe('user-1');
    });
  });

  it('rejects a token without exp', () => {
    const { exp: _exp, ...claims } = goodClaims();
    expectInvalid(hmacToken(HS256, claims));
    // Plain jsonwebtoken would accept it: the check is ours.
    expect(jwt.verify(hmacToken(HS256, claims), SECRET, { algorithms: ['HS256'], clockTimestamp: NOW_S })).toBeTruthy();
  });

  it('rejects nbf in the future', () => {
    expectInvalid(hmacToken(HS256, { ...goodClaims(), nbf: NOW_S + 300 }));
  });

  it('rejects iat in the future', () => {
    expectInvalid(hmacToken(HS256, { ...goodClaims(), iat: NOW_S + 300 }));
  });

  it('rejects a wrong audience or issuer', () => {
    expectInvalid(hmacToken(HS256, { ...goodClaims(), aud: 'other' }));
    expectInvalid(hmacToken(HS256, { ...goodClaims(), iss: 'https://evil.example' }));
    const { aud: _a, ...noAud } = goodClaims();
    const { iss: _i, ...noIss } = goodClaims();
    expectInvalid(hmacToken(HS256, noAud));
    expectInvalid(hmacToken(HS256, noIss));
  });

  it.each(['sub', 'jti', 'iat'] as const)('rejects a token without %s', (claim) => {
    const claims: Record<string, unknown> = goodClaims();
    delete claims[claim];
    expectInvalid(hmacToken(HS256, claims));
  });

  it.each([['tv missing', undefined], ['tv fractional', 1.5], ['tv string', '1'], ['tv negative', -1], ['sub empty', '']])(
    'rejects %s',
    (label, value) => {
      const key = label.startsWith('tv') ? 'tv' : 'sub';
      expectInvalid(hmacToken(HS256, { ...goodClaims(), [key]: value }));
    },
  );

  it('rejects payloads that are not objects', () => {
    expectInvalid(hmacToken(HS256, [1, 2] as unknown as object));
    const input = `${b64(HS256)}.${b64('"just a string"')}`;
    expectInvalid(`${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`);
  });

  it('rejects tokens over 4 KB before parsing, even when correctly signed', () => {
    const big = hmacToken(HS256, { ...goodClaims(), pad: 'x'.repeat(4096) });
    expect(jwt.verify(big, SECRET, { algorithms: ['HS256'], clockTimestamp: NOW_S })).toBeTruthy();
    expectInvalid(big);
  });

  it('fails closed on 2000+ random strings and segment shapes', () => {
    const svc = service();
    const segment = fc.oneof(
      fc.string(),
      fc.base64String(),
      fc.jsonValue().map((v) => b64(JSON.stringify(v) ?? 'null')),
      fc.constantFrom(b64(HS256), b64({ alg: 'none' }), b64(goodClaims()), '', '=', '.'),
    );
    const token = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('.')),
    );
    fc.assert(
      fc.property(token, (t) => {
        expect(() => svc.verify(t)).toThrow(AuthenticationError);
      }),
      { seed: 20261122, numRuns: 2500 },
    );
  });
});

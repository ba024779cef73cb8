import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDurationSeconds } from '../../../src/bootstrap/config.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8000,
      host: '0.0.0.0',
      publicUrl: 'http://localhost:8000',
      store: { kind: 'sqlite', dataDir: './data' },
      jwtSecret: undefined,
      jwtExpiresInSeconds: 90 * 86400,
      bcryptCost: 10,
      registrationOpen: true,
      defaultRole: 'user',
      admin: null,
      maxUploadBytes: 200 * 1024 * 1024,
      localLogin: true,
      oidc: null,
      corsOrigins: [],
      logLevel: 'info',
    });
  });

  it('runs one server process per CPU unless WORKERS says otherwise, and one with memory:', () => {
    expect(loadConfig({}).workers).toBe(availableParallelism());
    expect(loadConfig({ WORKERS: '3' }).workers).toBe(3);
    expect(loadConfig({ DATABASE_URL: 'memory:' }).workers).toBe(1);
    expect(loadConfig({ DATABASE_URL: 'memory:', WORKERS: '1' }).workers).toBe(1);
    expect(() => loadConfig({ DATABASE_URL: 'memory:', WORKERS: '2' })).toThrow(/WORKERS: must be 1 with DATABASE_URL=memory:/);
    expect(() => loadConfig({ WORKERS: '0' })).toThrow(/WORKERS: must be a whole number from 1 to 256/);
  });

  it('selects the store from DATABASE_URL', () => {
    const JWT_SECRET = 'a shared secret of at least thirty-two bytes';
    expect(loadConfig({ DATABASE_URL: 'memory:' }).store.kind).toBe('memory');
    expect(loadConfig({ DATABASE_URL: 'mongodb://db:27017/stacks', JWT_SECRET }).store).toMatchObject({ kind: 'mongo', url: 'mongodb://db:27017/stacks' });
    expect(loadConfig({ DATABASE_URL: 'mongodb+srv://cluster.example/stacks', JWT_SECRET }).store.kind).toBe('mongo');
  });

  it('refuses MongoDB without JWT_SECRET, naming it: instances that each make up a secret refuse each other\'s tokens', () => {
    for (const DATABASE_URL of ['mongodb://db:27017/stacks', 'mongodb+srv://cluster.example/stacks']) {
      expect(() => loadConfig({ DATABASE_URL })).toThrow(ConfigError);
      expect(() => loadConfig({ DATABASE_URL })).toThrow(/JWT_SECRET: is required with a mongodb:\/\/ DATABASE_URL/);
    }
    expect(loadConfig({ DATABASE_URL: 'memory:' }).jwtSecret).toBeUndefined();
    expect(loadConfig({}).jwtSecret).toBeUndefined();
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'postgres://x'],
    ['JWT_SECRET', 'secret'],
    ['JWT_EXPIRES_IN', 'forever'],
    ['BCRYPT_COST', '3'],
    ['BCRYPT_COST', '16'],
    ['REGISTRATION', 'maybe'],
    ['DEFAULT_ROLE', 'superuser'],
    ['MAX_UPLOAD_MB', '0'],
    ['LOCAL_LOGIN', 'perhaps'],
    ['OIDC_ISSUER', 'not a url'],
    ['OIDC_ROLE_MAP', 'admins=admin'],
    ['CORS_ORIGINS', 'not-an-origin'],
    ['LOG_LEVEL', 'loud'],
    ['PUBLIC_URL', 'ftp://example.com'],
  ])('refuses %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`${name}:`));
  });

  it('needs ADMIN_USERNAME and ADMIN_PASSWORD together', () => {
    expect(() => loadConfig({ ADMIN_USERNAME: 'root' })).toThrow(/ADMIN_PASSWORD/);
    expect(loadConfig({ ADMIN_USERNAME: 'root', ADMIN_PASSWORD: 'long enough' }).admin).toEqual({
      username: 'root',
      email: undefined,
      password: 'long enough',
    });
  });

  it('allows an http issuer only on loopback and only with OIDC_ALLOW_HTTP', () => {
    const base = { OIDC_CLIENT_ID: 'stacks' };
    expect(() => loadConfig({ ...base, OIDC_ISSUER: 'http://127.0.0.1:9000' })).toThrow(/OIDC_ISSUER/);
    expect(() => loadConfig({ ...base, OIDC_ISSUER: 'http://idp.example', OIDC_ALLOW_HTTP: 'true' })).toThrow(/OIDC_ISSUER/);
    expect(loadConfig({ ...base, OIDC_ISSUER: 'http://127.0.0.1:9000', OIDC_ALLOW_HTTP: 'true' }).oidc?.issuer).toBe('http://127.0.0.1:9000');
    expect(() => loadConfig({ OIDC_ISSUER: 'https://idp.example' })).toThrow(/OIDC_CLIENT_ID/);
  });

  it('parses role maps and CORS origins', () => {
    const c = loadConfig({ OIDC_ISSUER: 'https://idp.example', OIDC_CLIENT_ID: 'stacks', OIDC_ROLE_MAP: 'library-admins:admin, readers:reader', CORS_ORIGINS: 'https://a.example/, https://b.example:8443' });
    expect([...c.oidc!.roleMap]).toEqual([['library-admins', 'admin'], ['readers', 'reader']]);
    expect(c.corsOrigins).toEqual(['https://a.example', 'https://b.example:8443']);
  });
});

describe('parseDurationSeconds', () => {
  it.each([['90d', 7_776_000], ['12h', 43_200], ['30m', 1800], ['45s', 45], ['3600', 3600], ['0', null], ['-1d', null], ['1w', null]])(
    '%s -> %s',
    (input, expected) => expect(parseDurationSeconds(input)).toBe(expected),
  );
});

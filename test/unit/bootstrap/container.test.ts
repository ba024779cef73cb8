import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/adapters/http/app.js';
import type { AnyRoute } from '../../../src/adapters/http/route.js';
import { loadConfig } from '../../../src/bootstrap/config.js';
import { buildContainer, type StacksContainer } from '../../../src/bootstrap/container.js';
import { httpDepsFrom } from '../../../src/bootstrap/http.js';
import { PORTS } from '../../../src/bootstrap/tokens.js';
import { FakeClock } from '../../support/clock.js';

type UseCaseClass = abstract new (...args: never[]) => object;

/** Every class exported from src/application/use-cases: the use cases and the helpers they are built from. */
async function useCaseClasses(): Promise<[string, UseCaseClass][]> {
  const dir = join(import.meta.dirname, '../../../src/application/use-cases');
  const found: [string, UseCaseClass][] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const module = (await import(pathToFileURL(join(dir, file)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value))) found.push([name, value as UseCaseClass]);
    }
  }
  return found;
}

const USE_CASES = await useCaseClasses();
/** The paths of the committed client types, generated from /openapi.json (test/integration/typed-client.test.ts keeps them current). */
const CONTRACT_PATHS = [...readFileSync(join(import.meta.dirname, '../../support/api-types.ts'), 'utf8').matchAll(/^ {4}"(\/[^"]*)": \{$/gm)]
  .map((m) => m[1]).sort();
const SSO = { OIDC_ISSUER: 'http://127.0.0.1:9', OIDC_CLIENT_ID: 'stacks', OIDC_ALLOW_HTTP: 'true' };
const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);
const quiet = pino({ level: 'silent' });
const env = (store: Record<string, string>) => ({ BCRYPT_COST: '4', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', REGISTER_LIMIT_PER_HOUR: '0', ...store });
const routeKeys = (routes: readonly AnyRoute[]) => routes.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort();

describe.each([
  ['memory', () => ({ DATABASE_URL: 'memory:' })],
  ['sqlite', () => ({ DATA_DIR: mkdtempSync(join(tmpdir(), 'stacks-container-')) })],
])('the composition root on the %s store, single sign-on on', (_store, storeEnv) => {
  const clock = new FakeClock();
  let c: StacksContainer;
  let dataDir: string | undefined;
  beforeAll(async () => {
    const store = storeEnv();
    dataDir = 'DATA_DIR' in store ? store.DATA_DIR : undefined;
    c = await buildContainer(loadConfig(env({ ...store, ...SSO })), quiet, { clock });
  });
  afterAll(async () => {
    await c.dispose();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(Object.entries(PORTS))('resolves the port %s', (_name, token) => {
    expect(c.di.resolve<unknown>(token)).toBeTruthy();
  });

  it('registers the clock given as a test seam', () => {
    expect(c.di.resolve(PORTS.Clock)).toBe(clock);
  });

  it('finds use cases to resolve', () => {
    expect(USE_CASES.map(([name]) => name)).toEqual(expect.arrayContaining(['ListBooks', 'UploadBook', 'StartOidcLogin', 'CreateUser']));
  });

  it.each(USE_CASES)('resolves the use case %s under its class, once, with every dependency set', (_name, useCase) => {
    const resolved = c.di.resolve<object>(useCase as never);
    expect(resolved).toBeInstanceOf(useCase);
    expect(c.di.resolve<object>(useCase as never)).toBe(resolved);
    for (const [field, value] of Object.entries(resolved)) expect(value, field).not.toBeUndefined();
  });

  it('mounts every assembled route, documents each in /openapi.json, and serves the OPDS catalog', async () => {
    const deps = httpDepsFrom(c);
    expect([...new Set(deps.routes.map((r) => r.path))].sort()).toEqual(CONTRACT_PATHS);
    const app = createApp(deps);
    const doc = (await request(app).get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).filter((m) => HTTP_METHODS.has(m)).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(routeKeys(deps.routes));
    for (const r of deps.routes) {
      const res = await request(app)[r.method](r.path.replace(/\{\w+\}/g, 'x'));
      expect(['route_not_found', 'method_not_allowed'], `${r.method} ${r.path}: ${res.status}`).not.toContain(res.body?.code);
    }
    expect((await request(app).get('/opds')).status).toBe(401);
  });
});

describe('the composition root with single sign-on off', () => {
  it('still assembles the same routes, and registers no OpenID provider', async () => {
    const on = await buildContainer(loadConfig(env({ DATABASE_URL: 'memory:', ...SSO })), quiet);
    const off = await buildContainer(loadConfig(env({ DATABASE_URL: 'memory:' })), quiet);
    try {
      expect(routeKeys(httpDepsFrom(off).routes)).toEqual(routeKeys(httpDepsFrom(on).routes));
      expect(off.di.isRegistered(PORTS.OidcProvider)).toBe(false);
    } finally {
      await Promise.all([on.dispose(), off.dispose()]);
    }
  });
});

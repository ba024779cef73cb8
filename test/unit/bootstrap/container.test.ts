import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/bootstrap/config.js';
import { buildContainer, type StacksContainer } from '../../../src/bootstrap/container.js';
import { httpDepsFrom } from '../../../src/bootstrap/http.js';
import { TOKENS } from '../../../src/bootstrap/tokens.js';

let c: StacksContainer;
beforeAll(async () => {
  c = await buildContainer(loadConfig({ DATABASE_URL: 'memory:', BCRYPT_COST: '4', LOG_LEVEL: 'silent' }), pino({ level: 'silent' }));
});
afterAll(() => c.dispose());

describe('the composition root', () => {
  it.each(Object.entries(TOKENS))('resolves %s with no undefined dependency', (_name, token) => {
    const resolved = c.di.resolve<object>(token);
    expect(resolved).toBeDefined();
    expect(resolved).not.toBeNull();
    if (typeof resolved === 'object' && resolved.constructor !== Object) {
      for (const [field, value] of Object.entries(resolved)) expect(value, field).not.toBeUndefined();
    }
  });

  it('gives the same instance on every resolve (singletons)', () => {
    expect(c.di.resolve(TOKENS.LoginUser)).toBe(c.di.resolve(TOKENS.LoginUser));
  });

  it('assembles every route handler', () => {
    const deps = httpDepsFrom(c);
    expect(deps.routes.length).toBeGreaterThanOrEqual(13);
    for (const r of deps.routes) expect(typeof r.handle, `${r.method} ${r.path}`).toBe('function');
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOKEN_CLOCK_TOLERANCE_SECONDS } from '../../src/domain/token-revocation.js';
import { FakeClock } from '../support/clock.js';
import { bearer, registerUser, startTestApp, type TestApp } from '../support/test-app.js';

const LIFETIME_SECONDS = 600;
let dir: string;
let clock: FakeClock;
let running: TestApp | undefined;

/** The server over one SQLite data directory and the test's clock; starting it runs the start-up purge. */
async function start(): Promise<TestApp> {
  await running?.close();
  running = await startTestApp({ DATABASE_URL: '', DATA_DIR: dir, JWT_EXPIRES_IN: `${LIFETIME_SECONDS}s` }, { clock });
  return running;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'stacks-logout-'));
  clock = new FakeClock();
});
afterEach(async () => {
  await running?.close();
  running = undefined;
  rmSync(dir, { recursive: true, force: true });
});

const me = (t: TestApp, token: string) => request(t.app).get('/api/auth/me').set(bearer(token));

describe('a token revoked by logout', () => {
  it('stays refused after a restart at its expiry, through the clock tolerance the verifier grants', async () => {
    let t = await start();
    const { token } = await registerUser(t.app, 'alice');
    const kept = await registerUser(t.app, 'bob');
    expect((await request(t.app).post('/api/auth/logout').set(bearer(token))).status).toBe(204);

    clock.advance((LIFETIME_SECONDS + 1) * 1000);
    t = await start();
    expect((await me(t, kept.token)).status).toBe(200);
    const res = await me(t, token);
    expect([res.status, res.body.code]).toEqual([401, 'invalid_token']);

    clock.advance((TOKEN_CLOCK_TOLERANCE_SECONDS - 2) * 1000);
    t = await start();
    expect((await me(t, token)).status).toBe(401);
    expect((await me(t, kept.token)).status).toBe(200);
  });
});

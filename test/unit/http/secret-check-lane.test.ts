import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { checksSecretAt, secretCheckLane } from '../../../src/adapters/http/secret-check-lane.js';

/** One turn of the event loop: resolves after the immediates queued before it have run. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function fakeRequest(method: string, path: string): Request & { socket: { destroyed: boolean } } {
  return { method, path, socket: { destroyed: false } } as unknown as Request & { socket: { destroyed: boolean } };
}

/** Sends requests through a lane that picks POST requests; records the order in which each was let through. */
function laneWithLog() {
  const lane = secretCheckLane((req) => req.method === 'POST');
  const passed: string[] = [];
  const send = (req: Request) => lane(req, {} as Response, () => passed.push(`${req.method} ${req.path}`));
  return { passed, send };
}

describe('secret-check lane', () => {
  it('lets other requests through at once', () => {
    const { passed, send } = laneWithLog();
    send(fakeRequest('GET', '/api/auth/me'));
    expect(passed).toEqual(['GET /api/auth/me']);
  });

  it('lets a burst of secret checks through one per turn of the event loop, oldest first, while others pass at once', async () => {
    const { passed, send } = laneWithLog();
    for (let i = 0; i < 150; i++) send(fakeRequest('POST', `/login/${i}`));
    send(fakeRequest('GET', '/api/auth/me'));
    expect(passed).toEqual(['GET /api/auth/me']);
    const logins = () => passed.filter((p) => p.startsWith('POST'));
    for (let i = 1; i <= 150; i++) {
      await turn();
      expect(logins()).toHaveLength(i);
      if (i === 75) send(fakeRequest('GET', '/healthz'));
    }
    expect(logins()).toEqual(Array.from({ length: 150 }, (_, i) => `POST /login/${i}`));
    expect(passed.indexOf('GET /healthz')).toBe(76);
    await turn();
    expect(passed).toHaveLength(152);
  });

  it('starts again after it ran empty', async () => {
    const { passed, send } = laneWithLog();
    send(fakeRequest('POST', '/login/a'));
    await turn();
    await turn();
    send(fakeRequest('POST', '/login/b'));
    expect(passed).toEqual(['POST /login/a']);
    await turn();
    expect(passed).toEqual(['POST /login/a', 'POST /login/b']);
  });

  it('drops a request whose client left while it waited, and goes on with the next', async () => {
    const { passed, send } = laneWithLog();
    const gone = fakeRequest('POST', '/login/gone');
    send(gone);
    send(fakeRequest('POST', '/login/stays'));
    gone.socket.destroyed = true;
    await turn();
    await turn();
    expect(passed).toEqual(['POST /login/stays']);
  });
});

describe('checksSecretAt', () => {
  const picks = checksSecretAt([{ method: 'post', path: '/api/auth/login' }, { method: 'put', path: '/api/items/{id}' }], ['/kosync']);
  const at = (method: string, path: string) => picks(fakeRequest(method, path));

  it('picks the declared routes by method and path, with or without a trailing slash', () => {
    expect([at('POST', '/api/auth/login'), at('POST', '/api/auth/login/'), at('PUT', '/api/items/42')]).toEqual([true, true, true]);
  });

  it('does not pick another method, a longer path or a path beside a prefix', () => {
    expect([at('GET', '/api/auth/login'), at('PUT', '/api/items/42/more'), at('GET', '/kosyncx'), at('GET', '/api/auth/me')]).toEqual([false, false, false, false]);
  });

  it('picks everything under a prefix', () => {
    expect([at('GET', '/kosync'), at('PUT', '/kosync/syncs/progress'), at('GET', '/kosync/users/auth')]).toEqual([true, true, true]);
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld({ oidcPolicy: { maxFailures: 3, windowMs: 60_000, blockMs: 60_000, maxBlockMs: 600_000 } });
});

describe('OidcAttemptLimiter', () => {
  it('allows attempts up to the limit per address, then rate_limited with the seconds left', async () => {
    for (let i = 0; i < 3; i++) await w.oidcAttemptLimiter.attempt('203.0.113.7');
    expect(await errorOf(w.oidcAttemptLimiter.attempt('203.0.113.7'))).toMatchObject({ kind: 'rate_limited', code: 'rate_limited', retryAfterSeconds: 60 });
    w.clock.advance(45_000);
    expect(await errorOf(w.oidcAttemptLimiter.attempt('203.0.113.7'))).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 15 });
  });

  it('counts each address on its own', async () => {
    for (let i = 0; i < 3; i++) await w.oidcAttemptLimiter.attempt('203.0.113.7');
    await expect(w.oidcAttemptLimiter.attempt('198.51.100.1')).resolves.toBeUndefined();
  });

  it('lets the address in again once the block is over, and keeps the count in the shared store', async () => {
    for (let i = 0; i < 3; i++) await w.oidcAttemptLimiter.attempt('203.0.113.7');
    expect((await w.store.throttle.get('oidc-address:203.0.113.7'))?.blockedUntil).toEqual(new Date(w.clock.now().getTime() + 60_000));
    w.clock.advance(60_000);
    await expect(w.oidcAttemptLimiter.attempt('203.0.113.7')).resolves.toBeUndefined();
  });
});

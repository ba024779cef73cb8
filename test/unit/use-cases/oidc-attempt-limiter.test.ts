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

  it('lets exactly the limit through when attempts arrive at once', async () => {
    const attempts = await Promise.allSettled(Array.from({ length: 10 }, () => w.oidcAttemptLimiter.attempt('203.0.113.7')));
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(3);
    expect(attempts.filter((a) => a.status === 'rejected').map((a) => (a.reason as { code: string }).code)).toEqual(Array(7).fill('rate_limited'));
  });

  it('counts an IPv6 client by its /56 network', async () => {
    for (const host of ['2001:db8:7:100::1', '2001:db8:7:1ab::2', '2001:db8:7:1ff:ffff::3']) await w.oidcAttemptLimiter.attempt(host);
    expect((await errorOf(w.oidcAttemptLimiter.attempt('2001:db8:7:1cd::9'))).code).toBe('rate_limited');
    await expect(w.oidcAttemptLimiter.attempt('2001:db8:7:200::1')).resolves.toBeUndefined();
  });
});

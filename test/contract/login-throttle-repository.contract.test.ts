import { describe, expect, it } from 'vitest';
import type { ThrottlePolicy } from '../../src/domain/login-throttle.js';
import { instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, useStore } from './stores.js';

const policy: ThrottlePolicy = { maxFailures: 3, windowMs: 60_000, blockMs: 10_000, maxBlockMs: 40_000 };

function loginThrottleRepositoryContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const throttle = () => store().throttle;
  const failAt = (key: string, ...seconds: number[]) =>
    seconds.reduce(
      (done, s) => done.then(() => throttle().recordFailure(key, instant(s), policy)),
      Promise.resolve(null as unknown),
    ) as Promise<Awaited<ReturnType<ReturnType<typeof throttle>['recordFailure']>>>;

  it('has no counter for a key that never failed', async () => {
    expect(await throttle().get('account:ada')).toBeNull();
  });

  it('counts failures within the window and stores the counter', async () => {
    const counter = await failAt('account:ada', 0, 1);
    const expected = { key: 'account:ada', failures: 2, windowStartedAt: instant(0), blockedUntil: null, blocks: 0 };
    expect(counter).toEqual(expected);
    expect(await throttle().get('account:ada')).toEqual(expected);
  });

  it('keeps keys apart', async () => {
    await failAt('account:ada', 0, 1);
    await failAt('ip:10.0.0.1', 2);
    expect((await throttle().get('account:ada'))?.failures).toBe(2);
    expect((await throttle().get('ip:10.0.0.1'))?.failures).toBe(1);
  });

  it('starts a new window once the old one has passed', async () => {
    const counter = await failAt('k', 0, 1, 62);
    expect(counter).toMatchObject({ failures: 1, windowStartedAt: instant(62) });
  });

  it('blocks at the limit, and each block in a row is longer, up to the maximum', async () => {
    expect(await failAt('k', 0, 1, 2)).toEqual({ key: 'k', failures: 0, windowStartedAt: instant(2), blockedUntil: instant(12), blocks: 1 });
    expect(await failAt('k', 13, 14, 15)).toMatchObject({ blockedUntil: instant(35), blocks: 2 });
    expect(await failAt('k', 36, 37, 38)).toMatchObject({ blockedUntil: instant(78), blocks: 3 });
    expect(await failAt('k', 79, 80, 81)).toMatchObject({ blockedUntil: instant(121), blocks: 4 });
    expect(await throttle().get('k')).toMatchObject({ blockedUntil: instant(121), blocks: 4 });
  });

  it('forgets earlier blocks after a quiet cool-down', async () => {
    await failAt('k', 0, 1, 2);
    expect(await failAt('k', 200, 201, 202)).toMatchObject({ blockedUntil: instant(212), blocks: 1 });
  });

  it('reset removes the counter, block included', async () => {
    await failAt('k', 0, 1, 2);
    await throttle().reset('k');
    expect(await throttle().get('k')).toBeNull();
    expect(await failAt('k', 3)).toMatchObject({ failures: 1, blockedUntil: null, blocks: 0 });
  });

  it('loses no failure when many arrive at once', async () => {
    const wide = { ...policy, maxFailures: 1000 };
    await Promise.all(Array.from({ length: 25 }, () => throttle().recordFailure('k', instant(0), wide)));
    expect((await throttle().get('k'))?.failures).toBe(25);
  });

  it('hands out copies', async () => {
    const counter = await failAt('k', 0);
    counter.windowStartedAt.setTime(0);
    (await throttle().get('k'))?.windowStartedAt.setTime(0);
    expect((await throttle().get('k'))?.windowStartedAt).toEqual(instant(0));
  });
}

describe.each(STORE_FACTORIES)('LoginThrottleRepository contract ($name)', (factory) =>
  loginThrottleRepositoryContract(factory),
);

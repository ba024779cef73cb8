import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/domain/errors.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, useStore } from './stores.js';

function healthCheckContract(factory: StoreFactory): void {
  const store = useStore(factory);

  it('answers while the store is open', async () => {
    await expect(store().health.ping()).resolves.toBeUndefined();
  });

  it('fails with UnavailableError once the store is closed', async () => {
    await store().dispose();
    const error = await store().health.ping().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({ code: 'store_unavailable' });
  });
}

describe.each(STORE_FACTORIES)('HealthCheck contract ($name)', (factory) => healthCheckContract(factory));

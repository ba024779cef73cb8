import { describe, expect, it } from 'vitest';
import { instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, useStore } from './stores.js';

function oneTimeCodeRepositoryContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const codes = () => store().oneTimeCodes;

  it('gives a stored value back once, then never again', async () => {
    await codes().put('code-1', 'user-1', instant(60));
    expect(await codes().take('code-1', instant(1))).toBe('user-1');
    expect(await codes().take('code-1', instant(1))).toBeNull();
  });

  it('knows nothing of a key it was never given', async () => {
    await codes().put('other', 'value', instant(60));
    expect(await codes().take('code-1', instant(1))).toBeNull();
    expect(await codes().take('other', instant(1))).toBe('value');
  });

  it('refuses a value at or after its expiry, and it is gone afterwards', async () => {
    await codes().put('late', 'v1', instant(10));
    await codes().put('edge', 'v2', instant(10));
    expect(await codes().take('late', instant(11))).toBeNull();
    expect(await codes().take('edge', instant(10))).toBeNull();
    expect(await codes().take('late', instant(1))).toBeNull();
  });

  it('replaces the value and expiry when the same key is put again', async () => {
    await codes().put('key', 'first', instant(5));
    await codes().put('key', 'second', instant(50));
    expect(await codes().take('key', instant(20))).toBe('second');
  });

  it('hands a value to exactly one of many concurrent takers', async () => {
    await codes().put('race', 'prize', instant(60));
    const results = await Promise.all(Array.from({ length: 20 }, () => codes().take('race', instant(1))));
    expect(results.filter((r) => r === 'prize')).toHaveLength(1);
    expect(results.filter((r) => r === null)).toHaveLength(19);
  });

  it('purges only expired values, and says how many', async () => {
    await codes().put('old-1', 'a', instant(5));
    await codes().put('old-2', 'b', instant(10));
    await codes().put('live', 'c', instant(11));
    expect(await codes().purgeExpired(instant(10))).toBe(2);
    expect(await codes().purgeExpired(instant(10))).toBe(0);
    expect(await codes().take('live', instant(10))).toBe('c');
  });

  it('keeps keys and values exactly, whatever characters they hold', async () => {
    const key = "oidc-code:AbC_-123'; DROP TABLE one_time_codes; --";
    await codes().put(key, 'ünïcödé \u0000 value', instant(60));
    expect(await codes().take(key.toLowerCase(), instant(1))).toBeNull();
    expect(await codes().take(key, instant(1))).toBe('ünïcödé \u0000 value');
  });
}

describe.each(STORE_FACTORIES)('OneTimeCodeRepository contract ($name)', (factory) =>
  oneTimeCodeRepositoryContract(factory),
);

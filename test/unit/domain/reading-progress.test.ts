import { describe, expect, it } from 'vitest';
import { defaultStatus, PROGRESS_LIMITS, recordProgress, unreadProgress } from '../../../src/domain/reading-progress.js';
import { errorOf, instant } from '../../support/kit.js';

describe('reading progress rules', () => {
  it.each([
    [0, 'unread'], [0.0001, 'reading'], [0.999, 'reading'], [1, 'finished'],
  ] as const)('a percentage of %s defaults to %s', (percentage, status) => {
    expect(defaultStatus(percentage)).toBe(status);
  });

  it('records a write with its time, nulls for what was not given, and a given status over the default', () => {
    expect(recordProgress('u', 'b', { percentage: 0.5 }, instant(1))).toEqual({
      userId: 'u', bookId: 'b', status: 'reading', percentage: 0.5, locator: null, device: null, deviceId: null, updatedAt: instant(1),
    });
    expect(recordProgress('u', 'b', { percentage: 0.5, status: 'unread' }, instant(1)).status).toBe('unread');
  });

  it('refuses percentages outside 0..1 and values over their limits', async () => {
    for (const percentage of [-0.01, 1.0001, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(await errorOf(Promise.resolve().then(() => recordProgress('u', 'b', { percentage }, instant(1))))).toMatchObject({ code: 'validation_failed' });
    }
    const long = 'x'.repeat(PROGRESS_LIMITS.locator + 1);
    expect(() => recordProgress('u', 'b', { percentage: 0.1, locator: long }, instant(1))).toThrow(/locator/);
    expect(recordProgress('u', 'b', { percentage: 0.1, locator: long.slice(1) }, instant(1)).locator).toHaveLength(2_048);
  });

  it('a book never opened is unread at 0 with no time', () => {
    expect(unreadProgress('u', 'b')).toMatchObject({ status: 'unread', percentage: 0, updatedAt: null });
  });
});

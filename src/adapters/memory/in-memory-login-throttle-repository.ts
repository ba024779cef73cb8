import type { LoginThrottleRepository } from '../../application/ports.js';
import type { ThrottleCounter, ThrottlePolicy } from '../../domain/login-throttle.js';
import { afterFailure } from '../../domain/login-throttle.js';
import { copy, MemoryDatabase } from './memory-database.js';

/** LoginThrottleRepository over process memory; each failure is applied without yielding, so atomically. */
export class InMemoryLoginThrottleRepository implements LoginThrottleRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async get(key: string): Promise<ThrottleCounter | null> {
    const counter = this.db.throttles.get(key);
    return counter ? copy(counter) : null;
  }

  async recordFailure(key: string, now: Date, policy: ThrottlePolicy): Promise<ThrottleCounter> {
    const next = afterFailure(this.db.throttles.get(key) ?? null, key, now, policy);
    this.db.throttles.set(key, copy(next));
    return copy(next);
  }

  async reset(key: string): Promise<void> {
    this.db.throttles.delete(key);
  }
}

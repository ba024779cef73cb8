import type { LoginThrottleRepository } from '../../application/ports.js';
import type { ThrottleCounter, ThrottlePolicy } from '../../domain/login-throttle.js';
import { afterRelease, reserveAttempt } from '../../domain/login-throttle.js';
import { copy, MemoryDatabase } from './memory-database.js';

/** LoginThrottleRepository over process memory; each change is read and written without yielding, so atomically. */
export class InMemoryLoginThrottleRepository implements LoginThrottleRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async get(key: string): Promise<ThrottleCounter | null> {
    const counter = this.db.throttles.get(key);
    return counter ? copy(counter) : null;
  }

  async reserve(key: string, now: Date, policy: ThrottlePolicy): Promise<number> {
    const reservation = reserveAttempt(this.db.throttles.get(key) ?? null, key, now, policy);
    if (reservation.next) this.db.throttles.set(key, copy(reservation.next));
    return reservation.waitMs;
  }

  async release(key: string, now: Date, policy: ThrottlePolicy): Promise<void> {
    const next = afterRelease(this.db.throttles.get(key) ?? null, now, policy);
    if (next) this.db.throttles.set(key, copy(next));
  }

  async reset(key: string): Promise<void> {
    this.db.throttles.delete(key);
  }
}

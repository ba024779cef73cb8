import type { Clock } from '../../src/application/ports.js';

/** The instant every FakeClock starts at unless told otherwise. */
export const TEST_NOW = new Date('2026-11-22T10:00:00.000Z');

/** A clock that stands still until a test moves it forward. */
export class FakeClock implements Clock {
  private current: Date;

  constructor(start: Date = TEST_NOW) {
    this.current = new Date(start);
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

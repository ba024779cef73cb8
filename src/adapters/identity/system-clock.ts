import type { Clock } from '../../application/ports.js';

/** The wall clock. */
export class SystemClock implements Clock {
  now(): Date {
    return new Date();
  }
}

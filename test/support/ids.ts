import type { IdGenerator } from '../../src/application/ports.js';

/** Ids `prefix1`, `prefix2`, ... in order; `width` zero-pads the number (`ID000001`). */
export class SequentialIds implements IdGenerator {
  private n = 0;

  constructor(
    private readonly prefix = 'id-',
    private readonly width = 0,
  ) {}

  next(): string {
    this.n += 1;
    return `${this.prefix}${String(this.n).padStart(this.width, '0')}`;
  }
}

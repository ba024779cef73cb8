/**
 * Blocks this process has already been told of by the throttle store, each until its end, so
 * later attempts on a blocked key are refused without a store round trip. It only ever refuses
 * earlier: admission is always decided by the store. Bounded; a forgotten entry just means asking
 * the store again.
 */
export class KnownBlocks {
  private readonly until = new Map<string, number>();

  constructor(private readonly capacity = 10_000) {}

  /** Milliseconds left of a block this process knows of at `now`; 0 when it knows of none. */
  waitMs(key: string, now: Date): number {
    const end = this.until.get(key);
    if (end === undefined) return 0;
    const left = end - now.getTime();
    if (left <= 0) this.until.delete(key);
    return Math.max(0, left);
  }

  /** Records that the store refused `key` with `waitMs` still to wait at `now`. */
  remember(key: string, now: Date, waitMs: number): void {
    if (!this.until.has(key) && this.until.size >= this.capacity) this.makeRoom(now.getTime());
    this.until.set(key, now.getTime() + waitMs);
  }

  /** Drops what is known of `key` (its block was lifted by a success). */
  forget(key: string): void {
    this.until.delete(key);
  }

  private makeRoom(now: number): void {
    for (const [key, end] of this.until) if (end <= now) this.until.delete(key);
    if (this.until.size < this.capacity) return;
    const oldest = this.until.keys().next();
    if (!oldest.done) this.until.delete(oldest.value);
  }
}

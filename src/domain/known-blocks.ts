/** How long a block learned from the store is answered from memory before the store is asked again. */
export const KNOWN_BLOCK_RECHECK_MS = 5_000;

/**
 * Blocks this process has been told of by the throttle store, so later attempts on a blocked key are
 * refused without a store round trip for a few seconds at a time (a burst's refusals cost no store
 * work), then the store is asked again: a block lifted meanwhile (an admin unlock, a success on another
 * instance) is honoured within `recheckMs`. It only ever refuses earlier: admission is always decided
 * by the store. Bounded; a forgotten entry just means asking the store again.
 */
export class KnownBlocks {
  private readonly known = new Map<string, { until: number; recheckAt: number }>();

  constructor(
    private readonly capacity = 10_000,
    private readonly recheckMs = KNOWN_BLOCK_RECHECK_MS,
  ) {}

  /** Milliseconds left of a block this process knows of at `now` (the block's own end); 0 when it knows of none, or it is time to ask again. */
  waitMs(key: string, now: Date): number {
    const entry = this.known.get(key);
    if (entry === undefined) return 0;
    const at = now.getTime();
    if (at >= entry.recheckAt || at >= entry.until) {
      this.known.delete(key);
      return 0;
    }
    return entry.until - at;
  }

  /** Records that the store refused `key` with `waitMs` still to wait at `now`. */
  remember(key: string, now: Date, waitMs: number): void {
    if (!this.known.has(key) && this.known.size >= this.capacity) this.makeRoom(now.getTime());
    this.known.set(key, { until: now.getTime() + waitMs, recheckAt: now.getTime() + Math.min(waitMs, this.recheckMs) });
  }

  /** Drops what is known of `key` (its block was lifted by a success or an unlock). */
  forget(key: string): void {
    this.known.delete(key);
  }

  private makeRoom(now: number): void {
    for (const [key, entry] of this.known) if (entry.until <= now || entry.recheckAt <= now) this.known.delete(key);
    if (this.known.size < this.capacity) return;
    const oldest = this.known.keys().next();
    if (!oldest.done) this.known.delete(oldest.value);
  }
}

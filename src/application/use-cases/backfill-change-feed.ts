import { bookChange, CHANGE_TOMBSTONE_TTL_MS } from '../../domain/change-feed.js';
import type { BookRepository, ChangeFeedRepository, Clock } from '../ports.js';
import { nextTurnOfEventLoop } from './event-loop-turn.js';

const BATCH = 500;

export interface ChangeFeedReport {
  readonly booksAdded: number;
  readonly booksMarkedRemoved: number;
  readonly removalsPurged: number;
}

/**
 * Keeps the change feed true to the library after a crash between a write and its entry: stored books
 * without an entry get one, entries of books that are gone are marked removed, and removal entries
 * older than CHANGE_TOMBSTONE_TTL_MS are forgotten. Batched, with a turn of the event loop between
 * batches; safe to cut short and run again.
 */
export class BackfillChangeFeed {
  constructor(
    private readonly feed: ChangeFeedRepository,
    private readonly books: BookRepository,
    private readonly clock: Clock,
  ) {}

  async execute(): Promise<ChangeFeedReport> {
    let booksAdded = 0;
    for (let cursor: string | null = null; ;) {
      const ids = await this.feed.untrackedBooks(cursor, BATCH);
      await this.feed.record(ids.map((id) => bookChange(id)), this.clock.now());
      booksAdded += ids.length;
      if (ids.length < BATCH) break;
      cursor = ids.at(-1)!;
      await nextTurnOfEventLoop();
    }
    let booksMarkedRemoved = 0;
    for (let cursor: string | null = null; ;) {
      const ids = await this.feed.presentBooks(cursor, BATCH);
      const existing = await this.books.existingIds(ids);
      const gone = ids.filter((id) => !existing.has(id));
      await this.feed.record(gone.map((id) => bookChange(id, true)), this.clock.now());
      booksMarkedRemoved += gone.length;
      if (ids.length < BATCH) break;
      cursor = ids.at(-1)!;
      await nextTurnOfEventLoop(); // 250,000 books are 500 batches: requests are served between them
    }
    const removalsPurged = await this.feed.purgeRemovedBefore(new Date(this.clock.now().getTime() - CHANGE_TOMBSTONE_TTL_MS));
    return { booksAdded, booksMarkedRemoved, removalsPurged };
  }
}

import { bookChange, CHANGE_TOMBSTONE_TTL_MS, progressChange } from '../../domain/change-feed.js';
import type { BookRepository, ChangeFeedRepository, Clock } from '../ports.js';
import { nextTurnOfEventLoop } from './event-loop-turn.js';

const BATCH = 500;

export interface ChangeFeedReport {
  readonly booksAdded: number;
  readonly booksMarkedRemoved: number;
  /** Reading states recorded again: their entry was missing, marked removed, or older than the state. */
  readonly progressRecorded: number;
  readonly removalsPurged: number;
}

/**
 * Keeps the change feed true to the library after a crash between a write and its entry: stored books
 * without an entry get one, entries of books that are gone are marked removed, reading states whose
 * entry is missing or older than the state are recorded again (a Kobo then receives the state it
 * missed), and removal entries older than CHANGE_TOMBSTONE_TTL_MS are forgotten. Batched, with a turn
 * of the event loop between batches; safe to cut short and run again. It only ever adds entries, so a
 * writer recording at the same time loses nothing: at worst an entity is sent once more.
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
    let progressRecorded = 0;
    for (let cursor: string | null = null; ;) {
      const { stale, next } = await this.feed.staleProgress(cursor, BATCH);
      await this.feed.record(stale.map((p) => progressChange(p.userId, p.bookId)), this.clock.now());
      progressRecorded += stale.length;
      if (next === null) break;
      cursor = next;
      await nextTurnOfEventLoop();
    }
    const removalsPurged = await this.feed.purgeRemovedBefore(new Date(this.clock.now().getTime() - CHANGE_TOMBSTONE_TTL_MS));
    return { booksAdded, booksMarkedRemoved, progressRecorded, removalsPurged };
  }
}

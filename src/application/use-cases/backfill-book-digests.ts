import type { Book } from '../../domain/book.js';
import type { BlobStore, BookDigestEntry, BookDigestRepository, BookRepository, SecretGenerator } from '../ports.js';
import { koreaderDigestsOf } from './book-digests.js';
import { nextTurnOfEventLoop } from './event-loop-turn.js';

/** Books digested per batch; the event loop runs other work between batches. */
export const DIGEST_BACKFILL_BATCH = 200;
/** Files read at once within a batch. */
const PARALLEL_READS = 8;

export interface BackfillDigestsReport {
  readonly digested: number;
  /** Books whose file is missing: left without digests (the next run tries them again). */
  readonly missingFiles: number;
  /** Books whose file could not be read or whose digests could not be stored. */
  readonly failed: number;
}

/**
 * Gives KOReader's digests to the books stored before Stacks computed them at upload. Walks the books
 * without digests in id order, one batch at a time, yielding to the event loop between batches so
 * requests keep being served; a book it cannot digest is counted and passed over, never retried in the same run.
 */
export class BackfillBookDigests {
  constructor(
    private readonly books: BookRepository,
    private readonly digests: BookDigestRepository,
    private readonly blobs: BlobStore,
    private readonly secrets: SecretGenerator,
    private readonly batchSize: number = DIGEST_BACKFILL_BATCH,
  ) {}

  async execute(): Promise<BackfillDigestsReport> {
    const counts = { digested: 0, missing: 0, failed: 0 };
    let cursor: string | null = null;
    for (;;) {
      const ids = await this.digests.booksWithoutDigests(cursor, this.batchSize);
      if (ids.length === 0) break;
      const books = await this.books.findByIds(ids);
      const entries: BookDigestEntry[] = [];
      for (let i = 0; i < books.length; i += PARALLEL_READS) {
        const outcomes = await Promise.all(books.slice(i, i + PARALLEL_READS).map((book) => this.digest(book)));
        for (const outcome of outcomes) {
          if (typeof outcome === 'string') counts[outcome] += 1;
          else entries.push(outcome);
        }
      }
      counts[await this.store(entries)] += entries.length;
      if (ids.length < this.batchSize) break;
      cursor = ids[ids.length - 1]!;
      await nextTurnOfEventLoop();
    }
    return { digested: counts.digested, missingFiles: counts.missing, failed: counts.failed };
  }

  private async digest(book: Book): Promise<BookDigestEntry | 'missing' | 'failed'> {
    try {
      const digests = await koreaderDigestsOf(this.blobs, this.secrets, book);
      return digests ? { bookId: book.id, digests } : 'missing';
    } catch {
      return 'failed';
    }
  }

  /** The batch's digests in one write: one commit per batch, not per book. */
  private async store(entries: readonly BookDigestEntry[]): Promise<'digested' | 'failed'> {
    try {
      await this.digests.putMany(entries);
      return 'digested';
    } catch {
      return 'failed';
    }
  }
}

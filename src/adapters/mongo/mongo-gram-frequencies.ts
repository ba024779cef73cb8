import type { Collection } from 'mongodb';
import type { BookDocument } from './mongo-book-documents.js';
import { QUERY_MAX_TIME_MS } from './mongo-transactions.js';

/** A gram's count stops here: past it a gram is common, and which common gram is commonest does not matter. */
export const GRAM_PROBE_LIMIT = 5_000;
/** How many of a long `q`'s grams are counted (spread over the query), so a long `q` costs a bounded number of counts. */
export const GRAMS_PROBED = 8;
/** How long a gram's count is reused, and how many counts are kept (the oldest go first). */
const COUNT_TTL_MS = 10 * 60_000;
const COUNTS_KEPT = 10_000;

/**
 * How common each search gram is, for sending the index a long `q`'s rarest gram: each count is one
 * `countDocuments` on the gram's entries of books_search_tokens, stopped at GRAM_PROBE_LIMIT (an
 * index-only count on a real server), remembered for COUNT_TTL_MS. A stale count only picks a less
 * rare gram: the substring test settles every match, whichever gram bounded the index.
 */
export class GramFrequencies {
  private readonly counts = new Map<string, { count: number; at: number }>();

  constructor(private readonly books: Collection<BookDocument>, private readonly now: () => number = () => performance.now()) {}

  /** The rarest of these grams by its count (the first of equals), counting at most GRAMS_PROBED of them. */
  async rarest(grams: readonly string[]): Promise<string> {
    const probed = spread([...new Set(grams)], GRAMS_PROBED);
    const counts = await Promise.all(probed.map((gram) => this.count(gram)));
    return probed[counts.indexOf(Math.min(...counts))] as string;
  }

  private async count(gram: string): Promise<number> {
    const at = this.now();
    const known = this.counts.get(gram);
    if (known && at - known.at < COUNT_TTL_MS) return known.count;
    // index: books_search_tokens (an equality on one gram, stopped at the limit)
    const count = await this.books.countDocuments({ searchTokens: gram }, { limit: GRAM_PROBE_LIMIT, maxTimeMS: QUERY_MAX_TIME_MS });
    this.counts.delete(gram);
    this.counts.set(gram, { count, at });
    if (this.counts.size > COUNTS_KEPT) this.counts.delete(this.counts.keys().next().value as string);
    return count;
  }
}

/** At most n of the items, evenly spread from the first to the last. */
function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.round((i * (items.length - 1)) / (n - 1))] as T);
}

import type { ChangeFeedRepository, StaleProgressWindow } from '../../application/ports.js';
import { progressEntity, type Change, type ChangeKind, type ChangeRecord } from '../../domain/change-feed.js';
import { compareText, copy, MemoryDatabase, progressKey } from './memory-database.js';

const keyOf = (kind: ChangeKind, entityId: string): string => `${kind}\u0000${entityId}`;

/** ChangeFeedRepository over process memory: one entry per entity, sequence numbers from one counter. */
export class InMemoryChangeFeed implements ChangeFeedRepository {
  /** The reading-state walk under way: its sorted keys and where its next window starts. */
  private progressWalk: { readonly keys: readonly string[]; readonly at: number; readonly next: string } | null = null;

  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async record(changes: readonly ChangeRecord[], at: Date): Promise<void> {
    for (const change of changes) {
      const key = keyOf(change.kind, change.entityId);
      const previous = this.db.changes.get(key);
      const seq = ++this.db.lastSeq;
      const firstSeq = previous && !previous.removed ? previous.firstSeq : seq;
      this.db.changes.set(key, { ...change, seq, firstSeq, changedAt: new Date(at.getTime()) });
    }
  }

  async since(kind: ChangeKind, groups: readonly string[], after: number, limit: number): Promise<Change[]> {
    const wanted = new Set(groups);
    return [...this.db.changes.values()]
      .filter((c) => c.kind === kind && wanted.has(c.groupId) && c.seq > after)
      .sort((a, b) => a.seq - b.seq)
      .slice(0, limit)
      .map(copy);
  }

  async head(): Promise<number> {
    return this.db.lastSeq;
  }

  async untrackedBooks(afterId: string | null, limit: number): Promise<string[]> {
    return [...this.db.books.keys()]
      .filter((id) => (afterId === null || compareText(id, afterId) > 0) && !this.db.changes.has(keyOf('book', id)))
      .sort(compareText)
      .slice(0, limit);
  }

  async presentBooks(afterId: string | null, limit: number): Promise<string[]> {
    return [...this.db.changes.values()]
      .filter((c) => c.kind === 'book' && !c.removed && (afterId === null || compareText(c.entityId, afterId) > 0))
      .map((c) => c.entityId)
      .sort(compareText)
      .slice(0, limit);
  }

  async staleProgress(after: string | null, limit: number): Promise<StaleProgressWindow> {
    // The walk's keys are sorted once, at its first window; a later window goes on where the last ended (a
    // state stored since is the next walk's, as on the other stores a state stored behind the cursor is).
    const walk = after !== null && this.progressWalk?.next === after ? this.progressWalk : { keys: this.progressKeysAfter(after), at: 0 };
    const keys = walk.keys.slice(walk.at, walk.at + limit);
    const stale = keys.flatMap((key) => {
      const [userId, bookId] = JSON.parse(key) as [string, string];
      const progress = this.db.progress.get(progressKey(userId, bookId));
      if (!progress) return []; // removed since the walk began
      const entry = this.db.changes.get(keyOf('progress', progressEntity(userId, bookId)));
      return !entry || entry.removed || entry.changedAt.getTime() < progress.updatedAt.getTime() ? [{ userId, bookId }] : [];
    });
    const next = keys.at(-1) ?? null;
    this.progressWalk = next === null ? null : { keys: walk.keys, at: walk.at + keys.length, next };
    return { stale, next };
  }

  private progressKeysAfter(after: string | null): string[] {
    return [...this.db.progress.values()]
      .map((p) => JSON.stringify([p.userId, p.bookId]))
      .filter((key) => after === null || compareText(key, after) > 0)
      .sort(compareText);
  }

  async purgeRemovedBefore(before: Date): Promise<number> {
    let purged = 0;
    for (const [key, change] of this.db.changes) {
      if (change.removed && change.changedAt.getTime() < before.getTime() && this.db.changes.delete(key)) purged++;
    }
    return purged;
  }
}

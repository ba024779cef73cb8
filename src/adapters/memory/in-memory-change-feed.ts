import type { ChangeFeedRepository, StaleProgressWindow } from '../../application/ports.js';
import { progressEntity, type Change, type ChangeKind, type ChangeRecord } from '../../domain/change-feed.js';
import { compareText, copy, MemoryDatabase } from './memory-database.js';

const keyOf = (kind: ChangeKind, entityId: string): string => `${kind}\u0000${entityId}`;

/** ChangeFeedRepository over process memory: one entry per entity, sequence numbers from one counter. */
export class InMemoryChangeFeed implements ChangeFeedRepository {
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
    const window = [...this.db.progress.values()]
      .map((p) => ({ p, key: JSON.stringify([p.userId, p.bookId]) }))
      .filter(({ key }) => after === null || compareText(key, after) > 0)
      .sort((a, b) => compareText(a.key, b.key))
      .slice(0, limit);
    const stale = window.filter(({ p }) => {
      const entry = this.db.changes.get(keyOf('progress', progressEntity(p.userId, p.bookId)));
      return !entry || entry.removed || entry.changedAt.getTime() < p.updatedAt.getTime();
    });
    return { stale: stale.map(({ p }) => ({ userId: p.userId, bookId: p.bookId })), next: window.at(-1)?.key ?? null };
  }

  async purgeRemovedBefore(before: Date): Promise<number> {
    let purged = 0;
    for (const [key, change] of this.db.changes) {
      if (change.removed && change.changedAt.getTime() < before.getTime() && this.db.changes.delete(key)) purged++;
    }
    return purged;
  }
}

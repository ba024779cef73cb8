import type { Database, Transaction } from 'better-sqlite3';
import type { ChangeFeedRepository, StaleProgressWindow } from '../../application/ports.js';
import type { Change, ChangeKind, ChangeRecord } from '../../domain/change-feed.js';
import { SqliteBookWalk } from './sqlite-book-walk.js';
import { fromMillis, toMillis } from './sqlite-database.js';

interface ChangeRow {
  seq: number;
  first_seq: number;
  kind: ChangeKind;
  entity_id: string;
  group_id: string;
  removed: number;
  changed_at: number;
}

const changeOf = (row: ChangeRow): Change => ({
  seq: row.seq, firstSeq: row.first_seq, kind: row.kind, entityId: row.entity_id, groupId: row.group_id,
  removed: row.removed === 1, changedAt: fromMillis(row.changed_at),
});

/**
 * ChangeFeedRepository on SQLite (migration 10): a change deletes the entity's row and inserts it anew in
 * one transaction, so it takes the next AUTOINCREMENT number; SQLite runs one writer at a time, so the
 * numbers follow commit order and a reader never sees a number before a lower one.
 *
 * The store gives it the counter connection (synchronous=NORMAL): an entry is derived from a write that
 * already committed durably, so it costs no fsync of its own (a reading-state save made two). A power cut
 * can lose the last entries while their writes stay, as a crash between a write and its entry always
 * could (RecordingRepositories); the WAL is synced in order, so what survives has no gap before it.
 */
export class SqliteChangeFeed implements ChangeFeedRepository {
  private readonly recordTx: Transaction<(changes: readonly ChangeRecord[], at: number) => void>;
  private readonly statements: ReturnType<typeof prepare>;
  private readonly untracked: SqliteBookWalk;

  constructor(db: Database) {
    const s = (this.statements = prepare(db));
    this.untracked = new SqliteBookWalk(db, "NOT EXISTS (SELECT 1 FROM change_feed WHERE kind = 'book' AND entity_id = b.id)");
    this.recordTx = db.transaction((changes: readonly ChangeRecord[], at: number) => {
      for (const c of changes) {
        const previous = s.previous.get(c.kind, c.entityId) as { first_seq: number; removed: number } | undefined;
        s.remove.run(c.kind, c.entityId);
        const seq = Number(s.insert.run(c.kind, c.entityId, c.groupId, c.removed ? 1 : 0, at).lastInsertRowid);
        s.keepFirst.run(previous && previous.removed === 0 ? previous.first_seq : seq, seq);
      }
    });
  }

  async record(changes: readonly ChangeRecord[], at: Date): Promise<void> {
    if (changes.length > 0) this.recordTx.immediate(changes, toMillis(at));
  }

  async since(kind: ChangeKind, groups: readonly string[], after: number, limit: number): Promise<Change[]> {
    return (this.statements.since.all(kind, JSON.stringify(groups), after, limit) as ChangeRow[]).map(changeOf);
  }

  async head(): Promise<number> {
    return this.statements.head.get() as number;
  }

  async untrackedBooks(afterId: string | null, limit: number): Promise<string[]> {
    return this.untracked.ids(afterId, limit);
  }

  async presentBooks(afterId: string | null, limit: number): Promise<string[]> {
    return this.statements.present.all(afterId ?? '', limit) as string[];
  }

  async staleProgress(after: string | null, limit: number): Promise<StaleProgressWindow> {
    const [userId, bookId] = after === null ? ['', ''] : (JSON.parse(after) as [string, string]);
    const rows = this.statements.progressWindow.all(userId, bookId, limit) as { user_id: string; book_id: string; stale: number }[];
    const last = rows.at(-1);
    return {
      stale: rows.filter((r) => r.stale === 1).map((r) => ({ userId: r.user_id, bookId: r.book_id })),
      next: last ? JSON.stringify([last.user_id, last.book_id]) : null,
    };
  }

  async purgeRemovedBefore(before: Date): Promise<number> {
    return this.statements.purge.run(toMillis(before)).changes;
  }
}

function prepare(db: Database) {
  return {
    previous: db.prepare('SELECT first_seq, removed FROM change_feed WHERE kind = ? AND entity_id = ?'),
    remove: db.prepare('DELETE FROM change_feed WHERE kind = ? AND entity_id = ?'),
    insert: db.prepare(`INSERT INTO change_feed (first_seq, kind, entity_id, group_id, removed, changed_at) VALUES (0, ?, ?, ?, ?, ?)`),
    keepFirst: db.prepare('UPDATE change_feed SET first_seq = ? WHERE seq = ?'),
    since: db.prepare(`SELECT * FROM change_feed WHERE kind = ? AND group_id IN (SELECT value FROM json_each(?)) AND seq > ?
      ORDER BY seq LIMIT ?`),
    head: db.prepare("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'change_feed'), 0)").pluck(),
    present: db.prepare("SELECT entity_id FROM change_feed WHERE kind = 'book' AND removed = 0 AND entity_id > ? ORDER BY entity_id LIMIT ?").pluck(),
    purge: db.prepare('DELETE FROM change_feed WHERE removed = 1 AND changed_at < ?'),
    // One window of reading states in primary-key order, each beside its entry (the unique (kind, entity_id) index).
    progressWindow: db.prepare(`SELECT p.user_id, p.book_id, (c.seq IS NULL OR c.removed = 1 OR c.changed_at < p.updated_at) AS stale
      FROM (SELECT user_id, book_id, updated_at FROM reading_progress WHERE (user_id, book_id) > (?, ?) ORDER BY user_id, book_id LIMIT ?) p
      LEFT JOIN change_feed c ON c.kind = 'progress' AND c.entity_id = p.user_id || '/' || p.book_id
      ORDER BY p.user_id, p.book_id`),
  };
}

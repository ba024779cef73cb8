import type { Book } from '../../domain/book.js';
import { bookIdOfEntity, CHANGE_TOMBSTONE_TTL_MS, type Change, type ChangeKind } from '../../domain/change-feed.js';
import { canReadShelves } from '../../domain/policies.js';
import type { StoredProgress } from '../../domain/reading-progress.js';
import type { Shelf } from '../../domain/shelf.js';
import type { BookRepository, ChangeFeedRepository, Clock, KoboDeviceRepository, ProgressRepository, ShelfRepository } from '../ports.js';
import type { KoboSession } from './authenticate-kobo-device.js';
import { koboSyncScope, type KoboSyncScope } from './kobo-sync-scope.js';

/** Positions in the change feed, one per kind. */
export type FeedPositions = Readonly<Record<ChangeKind, number>>;

/**
 * Where a device stands: `round` is what it had read in full when this round began (an entry first seen
 * after it is new to the device), `at` how far this round has read, `roundEndedAt` when the last round ended.
 */
export interface KoboSyncCursor {
  readonly deviceId: string;
  readonly round: FeedPositions;
  readonly at: FeedPositions;
  readonly roundEndedAt: Date;
}

/** What the device is told, in order; the Kobo adapter writes each in the wire format. */
export type KoboSyncEvent =
  | { readonly type: 'book'; readonly book: Book; readonly isNew: boolean; readonly progress: StoredProgress | null }
  | { readonly type: 'book-removed'; readonly bookId: string; readonly at: Date }
  | { readonly type: 'tag'; readonly shelf: Shelf; readonly isNew: boolean; readonly bookIds: readonly string[] }
  | { readonly type: 'tag-removed'; readonly shelfId: string; readonly at: Date }
  | { readonly type: 'state'; readonly book: Book; readonly progress: StoredProgress | null; readonly at: Date };

export interface KoboSyncPage {
  readonly events: readonly KoboSyncEvent[];
  readonly cursor: KoboSyncCursor;
  /** More entries may follow: the device should ask again with this cursor (`x-kobo-sync: continue`). */
  readonly more: boolean;
}

/** The `deviceId` a Kobo writes reading progress under, so its own writes are not sent back to it. */
export const koboProgressDeviceId = (deviceId: string): string => `kobo:${deviceId}`;

/**
 * One page of a Kobo library sync, read from the change feed after the device's cursor: books new,
 * changed and removed (and, for a device limited to shelves, shelf entries added and removed), the
 * owner's shelves as tags, and reading states written elsewhere. Every query is bounded by the page size,
 * so a page costs the same at the start and at the end of a 100,000-book first sync.
 */
export class SyncKoboLibrary {
  constructor(
    private readonly feed: ChangeFeedRepository,
    private readonly books: BookRepository,
    private readonly shelves: ShelfRepository,
    private readonly progress: ProgressRepository,
    private readonly devices: KoboDeviceRepository,
    private readonly clock: Clock,
    private readonly pageSize: number,
  ) {}

  async execute(session: KoboSession, previous: KoboSyncCursor | null): Promise<KoboSyncPage> {
    const scope = await koboSyncScope(session.actor, session.device, this.devices, this.books, this.shelves);
    const cursor = this.usable(previous, session) ?? (await this.firstCursor(session, scope));
    const at = { ...cursor.at };
    const events: KoboSyncEvent[] = [];
    let left = this.pageSize;
    let more = false;
    const read = async (kind: ChangeKind, groups: readonly string[]): Promise<Change[]> => {
      if (left <= 0) {
        more = true;
        return [];
      }
      const changes = await this.feed.since(kind, groups, at[kind], left);
      if (changes.length === left) more = true;
      left -= changes.length;
      if (changes.length > 0) at[kind] = changes.at(-1)!.seq;
      return changes;
    };
    const { round } = cursor;
    // What the device may hold of a kind: what it read in earlier rounds, or earlier on this round's pages.
    const held = (kind: ChangeKind) => Math.max(round[kind], cursor.at[kind]);
    events.push(...(await this.bookEvents(await read('book', ['']), scope, session, round.book, held('book'))));
    if (scope.limited) events.push(...(await this.memberEvents(await read('member', session.device.shelfIds), scope, session, round.member, held('member'))));
    if (canReadShelves(session.actor)) events.push(...(await this.tagEvents(await read('shelf', [session.user.id]), scope, round.shelf, held('shelf'))));
    events.push(...(await this.stateEvents(await read('progress', [session.user.id]), scope, session)));
    const now = this.clock.now();
    const next: KoboSyncCursor = more
      ? { ...cursor, at }
      : { deviceId: session.device.id, round: at, at, roundEndedAt: now };
    return { events, cursor: next, more };
  }

  /** The cursor, unless it belongs to another device or is older than the removals the feed keeps. */
  private usable(cursor: KoboSyncCursor | null, session: KoboSession): KoboSyncCursor | null {
    if (!cursor || cursor.deviceId !== session.device.id) return null;
    return this.clock.now().getTime() - cursor.roundEndedAt.getTime() > CHANGE_TOMBSTONE_TTL_MS ? null : cursor;
  }

  /** A first sync reads every book (or shelf entry) and tag from the start; reading states come with their books. */
  private async firstCursor(session: KoboSession, scope: KoboSyncScope): Promise<KoboSyncCursor> {
    const head = await this.feed.head();
    const start = { book: scope.limited ? head : 0, member: 0, shelf: 0, progress: head };
    return { deviceId: session.device.id, round: start, at: start, roundEndedAt: this.clock.now() };
  }

  /**
   * `round`: an entry first seen after it is new to the device. `held`: an entity first seen at or before it
   * may be on the device (read in an earlier round, or on an earlier page of this one), so its removal is
   * sent; an entity first seen after it never reached the device.
   */
  private async bookEvents(changes: Change[], scope: KoboSyncScope, session: KoboSession, round: number, held: number): Promise<KoboSyncEvent[]> {
    const books = await scope.booksAmong(changes.filter((c) => !c.removed).map((c) => c.entityId));
    const states = await this.statesOf(session, [...books.keys()]);
    return changes.flatMap((c): KoboSyncEvent[] => {
      const book = books.get(c.entityId);
      if (book) return [{ type: 'book', book, isNew: c.firstSeq > round, progress: states.get(book.id) ?? null }];
      // Gone: the device may hold a copy only if it read the entity before this page.
      return c.removed && c.firstSeq <= held ? [{ type: 'book-removed', bookId: c.entityId, at: c.changedAt }] : [];
    });
  }

  private async memberEvents(changes: Change[], scope: KoboSyncScope, session: KoboSession, round: number, held: number): Promise<KoboSyncEvent[]> {
    const books = await scope.booksAmong(changes.map((c) => bookIdOfEntity(c.entityId)));
    const states = await this.statesOf(session, [...books.keys()]);
    return changes.flatMap((c): KoboSyncEvent[] => {
      const book = books.get(bookIdOfEntity(c.entityId));
      if (book && !c.removed) return [{ type: 'book', book, isNew: c.firstSeq > round, progress: states.get(book.id) ?? null }];
      // Taken off a shelf, or on a shelf the owner can no longer see (made private): removed from the device
      // unless another chosen shelf still holds it.
      return !book && c.firstSeq <= held ? [{ type: 'book-removed', bookId: bookIdOfEntity(c.entityId), at: c.changedAt }] : [];
    });
  }

  private async tagEvents(changes: Change[], scope: KoboSyncScope, round: number, held: number): Promise<KoboSyncEvent[]> {
    const events: KoboSyncEvent[] = [];
    for (const c of changes) {
      const shelf = c.removed ? null : await this.shelves.findById(c.entityId);
      if (!shelf) {
        if (c.firstSeq <= held) events.push({ type: 'tag-removed', shelfId: c.entityId, at: c.changedAt });
        continue;
      }
      const books = await scope.booksAmong(shelf.bookIds);
      events.push({ type: 'tag', shelf, isNew: c.firstSeq > round, bookIds: shelf.bookIds.filter((id) => books.has(id)) });
    }
    return events;
  }

  private async stateEvents(changes: Change[], scope: KoboSyncScope, session: KoboSession): Promise<KoboSyncEvent[]> {
    const bookIds = changes.map((c) => bookIdOfEntity(c.entityId));
    const books = await scope.booksAmong(bookIds);
    const states = await this.statesOf(session, [...books.keys()]);
    const own = koboProgressDeviceId(session.device.id);
    return changes.flatMap((c): KoboSyncEvent[] => {
      const book = books.get(bookIdOfEntity(c.entityId));
      const progress = states.get(bookIdOfEntity(c.entityId)) ?? null;
      if (!book || (progress && progress.deviceId === own)) return [];
      // The state stored now, not the entry's flag: two writers' entries may commit in the other order than
      // their writes (a DELETE's entry after a later PUT's), and the device must end on what is stored.
      return [{ type: 'state', book, progress, at: progress?.updatedAt ?? c.changedAt }];
    });
  }

  private async statesOf(session: KoboSession, bookIds: readonly string[]): Promise<Map<string, StoredProgress>> {
    return new Map((await this.progress.findMany(session.user.id, bookIds)).map((p) => [p.bookId, p]));
  }
}

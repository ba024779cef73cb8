/**
 * The library's change feed: what sync clients (Kobo) read to learn what changed since they last
 * asked. It keeps the latest change of each entity only (one entry per kind and entity), each with a
 * sequence number above every earlier one, so reading it from any point in sequence order meets every
 * entity that changed since, once, and reading it from 0 meets every entity there is.
 */
export const CHANGE_KINDS = ['book', 'shelf', 'member', 'progress'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** Removal entries are kept this long; a client away longer starts over (a full sync). */
export const CHANGE_TOMBSTONE_TTL_MS = 180 * 24 * 60 * 60 * 1000;

/** One change as written: which entity, the group it is read by, and whether it is gone. */
export interface ChangeRecord {
  readonly kind: ChangeKind;
  readonly entityId: string;
  /** Books: ''; shelves: the owner's id; members: the shelf's id; progress: the reader's id. */
  readonly groupId: string;
  readonly removed: boolean;
}

/** The latest change of an entity as stored. */
export interface Change extends ChangeRecord {
  readonly seq: number;
  /** The sequence number of the entity's first entry since it was (re)created: newer than a reader's start means new to it. */
  readonly firstSeq: number;
  readonly changedAt: Date;
}

const SEPARATOR = '/';

/** The entity id of one reader's progress in one book. */
export const progressEntity = (userId: string, bookId: string): string => `${userId}${SEPARATOR}${bookId}`;
/** The entity id of one book's place on one shelf. */
export const memberEntity = (shelfId: string, bookId: string): string => `${shelfId}${SEPARATOR}${bookId}`;

/** The book id of a progress or member entity id. */
export function bookIdOfEntity(entityId: string): string {
  return entityId.slice(entityId.lastIndexOf(SEPARATOR) + 1);
}

export const bookChange = (bookId: string, removed = false): ChangeRecord => ({ kind: 'book', entityId: bookId, groupId: '', removed });
export const shelfChange = (shelfId: string, ownerId: string, removed = false): ChangeRecord =>
  ({ kind: 'shelf', entityId: shelfId, groupId: ownerId, removed });
export const memberChange = (shelfId: string, bookId: string, removed = false): ChangeRecord =>
  ({ kind: 'member', entityId: memberEntity(shelfId, bookId), groupId: shelfId, removed });
export const progressChange = (userId: string, bookId: string, removed = false): ChangeRecord =>
  ({ kind: 'progress', entityId: progressEntity(userId, bookId), groupId: userId, removed });

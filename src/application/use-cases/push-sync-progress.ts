import type { Actor } from '../../domain/actor.js';
import { bookNotFound, hasCodeOf, permissionDenied } from '../../domain/error-catalogue.js';
import { checkSyncPush, digestKey, SYNC_DOCUMENTS_PER_USER, unixSeconds, type SyncPush } from '../../domain/kosync.js';
import { canReadBooks } from '../../domain/policies.js';
import type { BookDigestRepository, Clock, SyncDocumentRepository } from '../ports.js';
import type { Authority } from './authority.js';
import { confirmReader } from './book-access.js';
import type { UpdateProgress } from './update-progress.js';

/** What kosync answers a push: the document and the time the position was stored, in Unix seconds. */
export interface SyncReceipt {
  readonly document: string;
  readonly timestamp: number;
}

/**
 * A KOReader push. A document whose digest finds a Stacks book is that book's reading state for the
 * caller (`locator` = KOReader's `progress`), written as a REST PUT is; any other document (or a book
 * deleted meanwhile) is kept per user, so the user's other devices can pull it; a user keeps at most
 * SYNC_DOCUMENTS_PER_USER of them, the least recently synced forgotten first.
 */
export class PushSyncProgress {
  constructor(
    private readonly digests: BookDigestRepository,
    private readonly updateProgress: UpdateProgress,
    private readonly documents: SyncDocumentRepository,
    private readonly clock: Clock,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, push: SyncPush): Promise<SyncReceipt> {
    checkSyncPush(push);
    if (!canReadBooks(actor)) throw permissionDenied();
    const bookId = await this.digests.findBookId(digestKey(push.document));
    if (bookId !== null) {
      const update = { percentage: push.percentage, locator: push.progress, device: push.device, deviceId: push.deviceId };
      const stored = await this.updateProgress.execute(actor, { bookId, update })
        .catch((error: unknown) => (hasCodeOf(error, () => bookNotFound(bookId)) ? null : Promise.reject(error)));
      if (stored) return { document: push.document, timestamp: unixSeconds(stored.updatedAt) };
    }
    await confirmReader(this.authority, actor);
    const updatedAt = this.clock.now();
    await this.documents.put({ ...push, document: digestKey(push.document), userId: actor.id, updatedAt }, SYNC_DOCUMENTS_PER_USER);
    return { document: push.document, timestamp: unixSeconds(updatedAt) };
  }
}

import type { Actor } from '../../domain/actor.js';
import { permissionDenied } from '../../domain/error-catalogue.js';
import { checkSyncDocument, digestKey, type SyncState } from '../../domain/kosync.js';
import { canReadBooks } from '../../domain/policies.js';
import type { BookDigestRepository, ProgressRepository, SyncDocumentRepository } from '../ports.js';

/**
 * A KOReader pull: the caller's newest position in the document, null when there is none. For a
 * Stacks book that is its reading state (whoever wrote it, REST or KOReader), unless a position kept
 * for the document before its book was known is newer. A state without a locator (a REST update of the
 * percentage alone) is no position KOReader can go to, so it is not offered.
 */
export class PullSyncProgress {
  constructor(
    private readonly digests: BookDigestRepository,
    private readonly progress: ProgressRepository,
    private readonly documents: SyncDocumentRepository,
  ) {}

  async execute(actor: Actor, document: string): Promise<SyncState | null> {
    checkSyncDocument(document);
    if (!canReadBooks(actor)) throw permissionDenied();
    const key = digestKey(document);
    const bookId = await this.digests.findBookId(key);
    const ofBook = bookId === null ? null : await this.progress.get(actor.id, bookId);
    const kept = await this.documents.get(actor.id, key);
    const candidates: SyncState[] = [];
    if (ofBook?.locator != null) {
      const { locator, percentage, device, deviceId, updatedAt } = ofBook;
      candidates.push({ document, progress: locator, percentage, device: device ?? '', deviceId: deviceId ?? '', updatedAt });
    }
    if (kept) candidates.push({ document, progress: kept.progress, percentage: kept.percentage, device: kept.device, deviceId: kept.deviceId, updatedAt: kept.updatedAt });
    return candidates.reduce<SyncState | null>((newest, c) => (newest && newest.updatedAt >= c.updatedAt ? newest : c), null);
  }
}

import type { IndexDescription } from 'mongodb';

/**
 * The indexes of `sync_documents`: one record per (user, document), a user's records (for their
 * deletion) by its prefix; and a user's records newest first, for the per-user cap.
 */
export const SYNC_DOCUMENT_INDEXES: IndexDescription[] = [
  { key: { userId: 1, document: 1 }, name: 'sync_documents_user_document', unique: true },
  { key: { userId: 1, updatedAt: -1, document: -1 }, name: 'sync_documents_user_recency' },
];

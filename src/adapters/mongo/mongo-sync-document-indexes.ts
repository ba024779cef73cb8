import type { IndexDescription } from 'mongodb';

/** The index of `sync_documents`: one record per (user, document); a user's records, for their deletion, by its prefix. */
export const SYNC_DOCUMENT_INDEXES: IndexDescription[] = [
  { key: { userId: 1, document: 1 }, name: 'sync_documents_user_document', unique: true },
];

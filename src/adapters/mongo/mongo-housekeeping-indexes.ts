import type { IndexDescription } from 'mongodb';

/**
 * Indexes of the collections Stacks' own machinery keeps (GridFS, rate counters), apart from the
 * repositories' indexes in MONGO_INDEXES. Leases and the schema record are only read by `_id`.
 */
export const HOUSEKEEPING_INDEXES: Readonly<Record<string, IndexDescription[]>> = {
  // GridFS: `keys()` walks filename order; `latest` sorts by uploadDate within one name; the driver's own pair.
  'fs.files': [{ key: { filename: 1, uploadDate: 1 }, name: 'filename_1_uploadDate_1' }],
  'fs.chunks': [{ key: { files_id: 1, n: 1 }, name: 'files_id_1_n_1', unique: true }],
  rate_counters: [{ key: { expiresAt: 1 }, name: 'rate_counters_ttl', expireAfterSeconds: 0 }],
};

/**
 * The schema this code writes; a database marked with a newer one was written by a newer Stacks.
 * 3: books carry `searchGramsVersion` and one- and two-character grams, which an older Stacks would
 * drop on a metadata edit while leaving the mark, so it must not start on such a database.
 * 4: every write of a book, shelf, shelf entry or reading state records a change-feed entry
 * (`change_feed`, `change_feed_counter`; Kobo devices in `kobo_devices`, `kobo_archived`), which an
 * older Stacks would not, so Kobo sync would miss its edits: it must not start on such a database.
 */
export const SCHEMA_VERSION = 4;

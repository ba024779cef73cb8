import type { Db, IndexDescription } from 'mongodb';
import { isDuplicateId, MONGO_INDEXES, MongoDeploymentError } from './mongo-database.js';
import { HOUSEKEEPING_INDEXES, SCHEMA_VERSION } from './mongo-housekeeping-indexes.js';

interface SchemaRecord {
  _id: string;
  version: number;
}

/** Every collection's declared indexes: the repositories' and the machinery's (GridFS, leases, counters). */
export const DECLARED_INDEXES: Readonly<Record<string, IndexDescription[]>> = { ...MONGO_INDEXES, ...HOUSEKEEPING_INDEXES };

/**
 * The first thing every start does, before any index or document is touched: reads the schema record
 * and refuses a database a newer Stacks marked. On a new database (no record yet) it builds every index
 * at once, which takes no time with nothing stored, so uniqueness holds from the first request; on an
 * existing one the index layout is left to housekeeping, after listening, under its lease. Returns
 * whether the database was new.
 */
export async function openSchema(db: Db): Promise<boolean> {
  const meta = db.collection<SchemaRecord>('stacks_meta');
  const stored = await meta.findOne({ _id: 'schema' }, { readConcern: { level: 'local' }, readPreference: 'primary' });
  if (stored && stored.version > SCHEMA_VERSION) {
    throw new MongoDeploymentError(`the database holds schema version ${stored.version}, newer than this Stacks (${SCHEMA_VERSION}): upgrade Stacks`);
  }
  if (!stored) {
    for (const [collection, indexes] of Object.entries(DECLARED_INDEXES)) await db.collection(collection).createIndexes(indexes);
  }
  if (!stored || stored.version < SCHEMA_VERSION) {
    await meta.updateOne({ _id: 'schema' }, { $max: { version: SCHEMA_VERSION } }, { upsert: true }).catch((error: unknown) => {
      if (!isDuplicateId(error, 'schema')) throw error; // another instance created the record first
    });
  }
  return stored === null;
}

import type { Db, IndexDescription } from 'mongodb';
import { MongoServerError } from 'mongodb';
import { LIBRARY_INDEXES, SUPERSEDED_INDEXES } from './mongo-library-indexes.js';
import { renumberClashingPositions } from './mongo-library-migration.js';
import { DECLARED_INDEXES } from './mongo-schema.js';
import { rekeyShelfNames } from './mongo-shelf-name-keys.js';

export interface IndexLayoutReport {
  readonly indexesBuilt: number;
  readonly indexesDropped: number;
  readonly shelvesRenumbered: number;
  readonly shelvesRekeyed: number;
}

/** How often the unique slot index is attempted after renumbering (older instances may clash again in between). */
const SLOT_BUILD_ATTEMPTS = 3;
const SLOT_INDEX = LIBRARY_INDEXES.shelf_books.find((index) => index.name === 'shelf_books_slot') as IndexDescription;

/**
 * Housekeeping, after listening, under its lease: brings the indexes to this version's layout and
 * does nothing when they already are (one `listIndexes` per collection). The unique slot index first:
 * clashing positions are renumbered before each attempt, and the index it replaces is dropped only
 * after it is built, so older instances writing during a rolling upgrade cannot make it fail for good.
 * Then every missing index is built (through the maintenance client: no socket timeout on a long
 * build), superseded ones are dropped once built over, and shelf name keys rekeyed once.
 */
export async function bringIndexesUpToDate(db: Db): Promise<IndexLayoutReport> {
  let shelvesRenumbered = 0;
  let indexesBuilt = 0;
  if (!(await indexNames(db, 'shelf_books')).has(SLOT_INDEX.name as string)) {
    shelvesRenumbered = await buildSlotIndex(db);
    indexesBuilt += 1;
  }
  for (const [collection, indexes] of Object.entries(DECLARED_INDEXES)) {
    const present = await indexNames(db, collection);
    const missing = indexes.filter((index) => !present.has(index.name as string));
    if (missing.length === 0) continue;
    await db.collection(collection).createIndexes(missing);
    indexesBuilt += missing.length;
  }
  let indexesDropped = 0;
  for (const [collection, names] of Object.entries(SUPERSEDED_INDEXES)) {
    const present = await indexNames(db, collection);
    for (const name of names.filter((n) => present.has(n))) {
      await db.collection(collection).dropIndex(name).catch(ignoreMissingIndex);
      indexesDropped += 1;
    }
  }
  return { indexesBuilt, indexesDropped, shelvesRenumbered, shelvesRekeyed: await rekeyShelfNames(db) };
}

/** Renumbers clashing shelves and builds the unique slot index, again while a clash written in between fails the build. */
async function buildSlotIndex(db: Db): Promise<number> {
  let renumbered = 0;
  for (let attempt = 1; ; attempt++) {
    renumbered += await renumberClashingPositions(db);
    try {
      await db.collection('shelf_books').createIndexes([SLOT_INDEX]);
      return renumbered;
    } catch (error) {
      // The command builds this one unique index only: a duplicate key is a clash written since the renumbering.
      if (attempt >= SLOT_BUILD_ATTEMPTS || !(error instanceof MongoServerError && error.code === 11000)) throw error;
    }
  }
}

async function indexNames(db: Db, collection: string): Promise<Set<string>> {
  const indexes = await db.collection(collection).listIndexes().toArray().catch(ignoreMissingCollection);
  return new Set(indexes.map((index) => String(index.name)));
}

/** A collection never written yet has no indexes to list. */
function ignoreMissingCollection(error: unknown): [] {
  if (error instanceof MongoServerError && error.code === 26) return [];
  throw error;
}

/** Another instance may have dropped it first. */
function ignoreMissingIndex(error: unknown): void {
  if (error instanceof MongoServerError && error.code === 27) return;
  throw error;
}

import type { Db } from 'mongodb';
import { rekeyedShelfNames } from '../../domain/shelf-rules.js';

interface StoredShelf {
  _id: string;
  ownerId: string;
  name: string;
  nameKey: string;
  createdAt: Date;
}

/** The shelf-name rule the stored keys follow once rekeyed (NFC, full case folding, no invisible characters). */
export const SHELF_NAME_RULE = 2;
const RECORD = 'shelf-name-keys';

/**
 * Brings every stored shelf name key to the current rule once (housekeeping, under its lease), renaming
 * a later shelf whose name now collides with an older one of its owner's, then records the rule in
 * `stacks_meta` so no later run reads the shelves again. Walks the shelves one owner at a time in the
 * order of index shelves_owner_name_id (memory: one owner's shelves). Changed shelves first take a
 * placeholder key, so none meets another's old key on the way. Returns how many shelves changed.
 */
export async function rekeyShelfNames(db: Db): Promise<number> {
  const meta = db.collection<{ _id: string; rule: number }>('stacks_meta');
  if (((await meta.findOne({ _id: RECORD }))?.rule ?? 0) >= SHELF_NAME_RULE) return 0;
  const shelves = db.collection<StoredShelf>('shelves');
  const cursor = shelves.find({}, { projection: { _id: 1, ownerId: 1, name: 1, nameKey: 1, createdAt: 1 }, batchSize: 500 })
    .sort({ ownerId: 1, nameKey: 1, _id: 1 });
  let changed = 0;
  let owner: StoredShelf[] = [];
  const rekeyOwner = async () => {
    changed += await rekey(db, owner);
    owner = [];
  };
  for await (const shelf of cursor) {
    if (owner.length > 0 && owner[0]!.ownerId !== shelf.ownerId) await rekeyOwner();
    owner.push(shelf);
  }
  await rekeyOwner();
  await meta.updateOne({ _id: RECORD }, { $max: { rule: SHELF_NAME_RULE } }, { upsert: true });
  return changed;
}

/** One owner's shelves, oldest first, keyed by the current rule. */
async function rekey(db: Db, owned: readonly StoredShelf[]): Promise<number> {
  const shelves = db.collection<StoredShelf>('shelves');
  const oldestFirst = [...owned].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
  const changes = rekeyedShelfNames(oldestFirst.map((s) => ({ id: s._id, ownerId: s.ownerId, name: s.name, nameKey: s.nameKey })));
  for (const id of changes.keys()) await shelves.updateOne({ _id: id }, { $set: { nameKey: `\u001e${id}` } });
  for (const [id, { name, nameKey }] of changes) await shelves.updateOne({ _id: id }, { $set: { name, nameKey } });
  return changes.size;
}

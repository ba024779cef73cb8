import type { Db } from 'mongodb';
import { rekeyedShelfNames } from '../../domain/shelf-rules.js';

interface StoredShelf {
  _id: string;
  ownerId: string;
  name: string;
  nameKey: string;
}

/**
 * Brings every stored shelf name key to the current rule (NFC, full case folding, no invisible
 * characters), renaming a later shelf whose name now collides with an older one of its owner's.
 * Changed shelves first take a placeholder key, so none meets another's old key on the way; once
 * every key is current this only reads. Returns how many shelves changed.
 */
export async function rekeyShelfNames(db: Db): Promise<number> {
  const shelves = db.collection<StoredShelf>('shelves');
  const stored = await shelves.find({}, { projection: { _id: 1, ownerId: 1, name: 1, nameKey: 1 } }).sort({ createdAt: 1, _id: 1 }).toArray();
  const changes = rekeyedShelfNames(stored.map((s) => ({ id: s._id, ownerId: s.ownerId, name: s.name, nameKey: s.nameKey })));
  for (const id of changes.keys()) await shelves.updateOne({ _id: id }, { $set: { nameKey: `\u001e${id}` } });
  for (const [id, { name, nameKey }] of changes) await shelves.updateOne({ _id: id }, { $set: { name, nameKey } });
  return changes.size;
}

import { describe, expect, it } from 'vitest';
import { MongoServerError } from 'mongodb';
import { SLOT_CLASH_ATTEMPTS, withShelfConflictsMapped } from '../../../src/adapters/mongo/mongo-shelf-members.js';
import { isDuplicateKeyOn } from '../../../src/adapters/mongo/mongo-transactions.js';

/** A duplicate-key error as the server sends it: code 11000, the index's key pattern, a message naming the index. */
const duplicate = (keyPattern: Record<string, 1>, index: string) =>
  new MongoServerError({ code: 11000, codeName: 'DuplicateKey', keyPattern, keyValue: {}, errmsg: `E11000 duplicate key error collection: stacks.x index: ${index} dup key` });

const slotClash = () => duplicate({ shelfId: 1, position: 1 }, 'shelf_books_slot');

describe('Mongo duplicate keys, told apart by key pattern (synthesised server errors)', () => {
  it('recognises the index by its key pattern, not by words in the message', () => {
    const error = duplicate({ shelfId: 1, position: 1 }, 'shelf_books_member shelves_owner_name');
    expect(isDuplicateKeyOn(error, ['shelfId', 'position'])).toBe(true);
    expect(isDuplicateKeyOn(error, ['position', 'shelfId'])).toBe(true);
    expect(isDuplicateKeyOn(error, ['shelfId', 'bookId'])).toBe(false);
    expect(isDuplicateKeyOn(error, ['shelfId'])).toBe(false);
  });

  it('reads the key pattern of an insertMany failure from its first write error', () => {
    const bulk = new MongoServerError({ code: 11000, errmsg: 'E11000', writeErrors: [{ err: { code: 11000, keyPattern: { shelfId: 1, position: 1 } } }] });
    expect(isDuplicateKeyOn(bulk, ['shelfId', 'position'])).toBe(true);
  });

  it('is not fooled by other codes or by a missing key pattern', () => {
    expect(isDuplicateKeyOn(new MongoServerError({ code: 112, keyPattern: { shelfId: 1, position: 1 } }), ['shelfId', 'position'])).toBe(false);
    expect(isDuplicateKeyOn(new MongoServerError({ code: 11000, errmsg: 'E11000 index: shelf_books_slot' }), ['shelfId', 'position'])).toBe(false);
    expect(isDuplicateKeyOn(new Error('E11000'), ['shelfId', 'position'])).toBe(false);
  });
});

describe('Mongo shelf writes map duplicate keys to the domain (synthesised server errors)', () => {
  it('starts a write again after another writer took its (shelf, position) slot, then succeeds', async () => {
    let attempts = 0;
    const result = await withShelfConflictsMapped(async () => {
      attempts += 1;
      if (attempts < 3) throw slotClash();
      return 'written';
    });
    expect(result).toBe('written');
    expect(attempts).toBe(3);
  });

  it('answers store_unavailable (503), not a bare E11000 (500), when the slot keeps clashing', async () => {
    let attempts = 0;
    const failing = withShelfConflictsMapped(async () => {
      attempts += 1;
      throw slotClash();
    });
    await expect(failing).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(attempts).toBe(SLOT_CLASH_ATTEMPTS);
  });

  it('maps a duplicate (owner, name) to shelf_name_taken at once', async () => {
    let attempts = 0;
    const failing = withShelfConflictsMapped(async () => {
      attempts += 1;
      throw duplicate({ ownerId: 1, nameKey: 1 }, 'shelves_owner_name');
    });
    await expect(failing).rejects.toMatchObject({ code: 'shelf_name_taken' });
    expect(attempts).toBe(1);
  });

  it('passes any other error through unchanged', async () => {
    const other = duplicate({ sha256: 1 }, 'books_sha256');
    await expect(withShelfConflictsMapped(async () => { throw other; })).rejects.toBe(other);
  });
});

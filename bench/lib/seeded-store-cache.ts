import { copyFile, mkdir, mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { seedBooks } from './seed-books.js';

const CACHE = fileURLToPath(new URL('../out/cache/', import.meta.url));

export interface SeededOptions {
  /**
   * Give every book a KOReader digest row, as a library whose digest backfill has run (the generated
   * books have no file, so without rows every start walks the whole library again, reading files that
   * are not there, in the background of whatever the bench measures). Default true; false only for
   * bench/digests.ts, which measures that walk. Every book gets its change-feed entry either way.
   */
  readonly digested?: boolean;
}

/**
 * A fresh temp DATA_DIR whose stacks.db holds `count` generated books (ids seed000000…). The first
 * call seeds a template under bench/out/cache (minutes for 250,000); later calls copy it.
 */
export async function seededDataDir(count: number, log: (msg: string) => void = () => undefined, options: SeededOptions = {}): Promise<string> {
  const template = join(CACHE, `books-${count}`);
  if (!(await stat(join(template, 'stacks.db')).catch(() => null))) {
    await mkdir(template, { recursive: true });
    log(`seeding ${count} books into ${template} (once)`);
    const t0 = performance.now();
    await seedBooks(template, count, { batch: 10_000 });
    log(`seeded ${count} books in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'stacks-seeded-'));
  await copyFile(join(template, 'stacks.db'), join(dataDir, 'stacks.db'));
  const store = createSqliteStore(dataDir); // migrated first, whatever the template's schema version
  try {
    if (options.digested ?? true) {
      // Stand-in digests (the files do not exist): two halves of the book's sha256, unique per book.
      store.db.exec(`INSERT OR IGNORE INTO book_digests (book_id, partial_md5, file_name_md5)
        SELECT id, substr(sha256, 1, 32), substr(sha256, 33, 32) FROM books`);
    }
    // Every book its change-feed entry, as housekeeping's reconcile step records them (the seeder inserts
    // rows straight into SQLite); else each start walks all books again beside the measurement.
    store.db.exec(`INSERT OR IGNORE INTO change_feed (first_seq, kind, entity_id, group_id, removed, changed_at)
      SELECT 0, 'book', id, '', 0, updated_at FROM books ORDER BY created_at, id;
      UPDATE change_feed SET first_seq = seq WHERE first_seq = 0`);
  } finally {
    await store.close();
  }
  return dataDir;
}

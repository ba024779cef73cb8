import { copyFile, mkdir, mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedBooks } from './seed-books.js';

const CACHE = fileURLToPath(new URL('../out/cache/', import.meta.url));

/**
 * A fresh temp DATA_DIR whose stacks.db holds `count` generated books (ids seed000000…). The first
 * call seeds a template under bench/out/cache (minutes for 250,000); later calls copy it.
 */
export async function seededDataDir(count: number, log: (msg: string) => void = () => undefined): Promise<string> {
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
  return dataDir;
}

import { mkdirSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aBookQuery } from './book-query.js';
import { buildEpub, buildFb2, buildPdf, seededBytes } from '../../support/fixtures/index.js';
import { CliHarness } from './cli-harness.js';

let cli: CliHarness;
let folder: string;
beforeEach(async () => {
  cli = new CliHarness();
  folder = join(cli.dataDir, 'incoming');
  const epub = await buildEpub({ title: 'Alpha Centauri' });
  const files: Record<string, Buffer | string> = {
    'Alpha.epub': epub,
    'nested/deeper/Zed Author - Beta Book.pdf': buildPdf({ info: { Title: 'Beta Book' } }),
    'nested/Gamma.fb2': buildFb2({ title: 'Gamma' }),
    'nested/copy of alpha.EPUB': epub,
    'nested/broken.epub': seededBytes(7, 4096),
    'nested/cover.jpg': seededBytes(8, 64),
    'nested/metadata.opf': '<package/>',
    '.hidden/Hidden.epub': seededBytes(9, 64),
  };
  for (const [name, data] of Object.entries(files)) {
    mkdirSync(join(folder, name, '..'), { recursive: true });
    writeFileSync(join(folder, name), data);
  }
  await cli.run(['user', 'create', 'root', 'root@example.test', '--password', 'root password', '--role', 'admin']);
  await cli.run(['user', 'create', 'olga', 'olga@example.test', '--password', 'olga password']);
  await cli.run(['user', 'create', 'rita', 'rita@example.test', '--password', 'rita password', '--role', 'reader']);
});
afterEach(() => cli.cleanup());

const storedBooks = () => cli.inStore(async (store) => (await store.books.search(aBookQuery())).items);

describe('stacks import <folder> --owner <username>', { timeout: 60_000 }, () => {
  it('imports recursively (name order, code-unit sort), skips duplicates by SHA-256, counts a corrupt file as failed and exits 1', async () => {
    const run = await cli.run(['import', folder, '--owner', 'olga']);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n').filter(Boolean)).toEqual([
      '[1/5] imported   Alpha.epub: Alpha Centauri',
      '[2/5] imported   nested/Gamma.fb2: Gamma',
      '[3/5] failed     nested/broken.epub: The file is not an EPUB, PDF, MOBI, AZW3, CBZ, FB2 or plain-text book. (unsupported_book_format)',
      expect.stringMatching(/^\[4\/5\] duplicate  nested\/copy of alpha\.EPUB: already in the library as [A-Za-z0-9_-]+$/),
      '[5/5] imported   nested/deeper/Zed Author - Beta Book.pdf: Beta Book',
      '3 imported, 1 duplicates, 1 failed',
      '2 other file(s) ignored (not an ebook extension)',
    ]);
    const books = await storedBooks();
    expect(books.map((b) => [b.title, b.format, b.owner.username]).sort()).toEqual([
      ['Alpha Centauri', 'epub', 'olga'],
      ['Beta Book', 'pdf', 'olga'],
      ['Gamma', 'fb2', 'olga'],
    ]);
    const blobs = await readdir(join(cli.dataDir, 'books'));
    for (const book of books) expect(blobs).toContain(`${book.id}.book`);
    expect(blobs.filter((name) => name.endsWith('.book'))).toHaveLength(3);
    expect((await readdir(join(cli.dataDir, 'tmp'))).filter((n) => !n.startsWith('.'))).toEqual([]);
  });

  it('a second run finds only duplicates, and a clean folder exits 0', async () => {
    await cli.run(['import', folder, '--owner', 'olga']);
    const again = await cli.run(['import', join(folder, 'nested', 'deeper'), '--owner', 'root']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('0 imported, 1 duplicates, 0 failed');
    expect(await storedBooks()).toHaveLength(3);
  });

  it('draws a progress bar on a terminal, then lists the failures and prints the summary', async () => {
    const run = await cli.run(['import', folder, '--owner', 'olga'], { tty: true });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('importing [');
    expect(run.stderr).toContain('5/5');
    expect(run.stderr).toMatch(/failed {5}nested\/broken\.epub: /);
    expect(run.stdout).toBe('3 imported, 1 duplicates, 1 failed\n2 other file(s) ignored (not an ebook extension)\n');
  });

  it('refuses an owner who may not upload, an unknown owner and a missing folder, importing nothing', async () => {
    expect((await cli.run(['import', folder, '--owner', 'rita'])).code).toBe(2);
    expect((await cli.run(['import', folder, '--owner', 'nobody'])).stderr).toContain('(user_not_found)');
    expect((await cli.run(['import', join(folder, 'nope'), '--owner', 'olga'])).stderr).toContain('is not a folder');
    expect(await storedBooks()).toEqual([]);
  });
});

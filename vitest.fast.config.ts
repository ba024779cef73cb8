import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:fast`: the domain, the use cases and the port contracts against the in-memory store:
 * no process, no worker thread, no bcrypt, no MongoDB stand-in (test/support/fast-guard.ts refuses
 * them). The files share one module graph per worker (isolate: false), so the suite pays for its
 * imports once; nothing in these folders keeps state between files. `npm test` stays the whole suite.
 */
export default defineConfig({
  test: {
    ...base.test,
    include: ['test/unit/domain/**/*.test.ts', 'test/unit/use-cases/**/*.test.ts', 'test/contract/**/*.test.ts'],
    exclude: [
      // The blob store's contract is the file system's and GridFS's: no in-memory adapter.
      'test/contract/blob-store.contract.test.ts',
      // Reads real EPUBs and PDFs through the metadata reader's worker threads.
      'test/unit/use-cases/upload-book.test.ts',
    ],
    isolate: false,
    env: { STACKS_TEST_STORES: 'memory' },
    setupFiles: [...(base.test?.setupFiles ?? []), 'test/support/fast-guard.ts'],
  },
});

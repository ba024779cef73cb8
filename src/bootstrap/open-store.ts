import { createSqliteStore } from '../adapters/sqlite/sqlite-store.js';
import type { Config } from './config.js';

/** Opens the configured store (its schema brought up to date). */
export async function openStore(config: Config) {
  switch (config.store.kind) {
    case 'memory': {
      const { createMemoryStore } = await import('../adapters/memory/memory-store.js');
      return createMemoryStore();
    }
    case 'sqlite':
      return createSqliteStore(config.store.dataDir);
    case 'mongo': {
      // Loaded only here, so the embedded store never pays for the MongoDB driver at start-up.
      const { createMongoStore } = await import('../adapters/mongo/mongo-store.js');
      return createMongoStore(config.store.url);
    }
  }
}

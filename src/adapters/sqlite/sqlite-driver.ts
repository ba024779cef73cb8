import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/** The better-sqlite3 constructor; both driver lines implement the API typed by @types/better-sqlite3. */
export type SqliteDriver = typeof BetterSqlite3;

/** better-sqlite3 13: Node-API 10, prebuilt binaries inside the package, safe on Node 24.19 and later. */
export const NODE_API_DRIVER = 'better-sqlite3';
/** better-sqlite3 12 under an npm alias, compiled at install: for Node without Node-API 10, where 13 crashes. */
export const LEGACY_DRIVER = 'better-sqlite3-node20';

const NODE_API_VERSION_NEEDED = 10;

/** The package whose driver is safe on a Node that offers the given Node-API version (`process.versions.napi`). */
export function sqliteDriverPackageFor(napiVersion: string | undefined): string {
  const napi = Number.parseInt(napiVersion ?? '', 10);
  return napi >= NODE_API_VERSION_NEEDED ? NODE_API_DRIVER : LEGACY_DRIVER;
}

/** The driver for the running Node, the other line never loaded (native code loads only when the first database opens). */
export function loadSqliteDriver(napiVersion = process.versions.napi): SqliteDriver {
  return createRequire(import.meta.url)(sqliteDriverPackageFor(napiVersion)) as SqliteDriver;
}

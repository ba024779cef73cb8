#!/usr/bin/env node
// Bundles the server for `npm start` (the second half of `npm run build`): the compiled entry
// dist/bootstrap/main.js (from `tsc -p tsconfig.build.json`) into dist/bundle/main.js, one ESM file
// with its pure-JS dependencies, so start-up reads a few files instead of ~300 compiled modules and
// ~250 CommonJS ones (issue 26: start-up to the first answered request). dist/ itself stays the
// library (package.json `main`), the `stacks` command and what tools import.
//
// Kept outside the bundle, loaded from node_modules as before:
// - native or file-reading packages: better-sqlite3 (and its Node 20 alias), sharp, pdfjs-dist (its
//   fonts and wasm), swagger-ui-express / swagger-ui-dist (serve files from their folders);
// - piscina, which starts its own worker file by path;
// - mongodb (loaded only for mongodb:// URLs) and the OpenID Connect client (only with OIDC_ISSUER).
// Worker-thread entry files are bundled as entry points beside main.js, flat in one folder with the
// chunks, so each `new URL('./<name>-worker.js', import.meta.url)` still finds its file. Modules the
// server imports lazily (the server itself in a cluster's primary, the OPDS catalog, the metadata
// reader, the in-memory store...) become chunks loaded at their first use, as before.
//
// Run: node scripts/bundle.mjs [--from src] [--outdir <folder in the repository>] [--entry <file>]
// (--from src, for tests: esbuild compiles the TypeScript sources the same way, so no tsc run first;
// --entry, for benchmarks: that one file bundled as <outdir>/main.js with the same options).
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const root = resolve(import.meta.dirname, '..');

/** Where `npm start` runs the server from. */
export const BUNDLE_DIR = join(root, 'dist/bundle');

const EXTERNAL = [
  'better-sqlite3', 'better-sqlite3-node20', 'sharp', 'pdfjs-dist', 'pdfjs-dist/*', 'swagger-ui-express', 'swagger-ui-dist',
  'piscina', 'mongodb', 'openid-client',
];

/** The server's entry and every worker-thread entry, by output name (relative to src/ or dist/). */
const ENTRIES = {
  main: 'bootstrap/main',
  'bcrypt-worker': 'adapters/identity/bcrypt-worker',
  'metadata-worker': 'adapters/metadata/metadata-worker',
  'kepub-worker': 'adapters/metadata/kepub-worker',
};

/**
 * Bundles the server from the compiled `dist` (default) or straight from `src` into `outdir`, which
 * must lie inside the repository (the external packages resolve from its node_modules). With `entry`,
 * bundles that one file instead, as `main.js`.
 */
export async function bundleServer({ from = 'dist', outdir = BUNDLE_DIR, entry = undefined } = {}) {
  const extension = from === 'src' ? '.ts' : '.js';
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints: entry ? { main: entry }
      : Object.fromEntries(Object.entries(ENTRIES).map(([name, path]) => [name, join(root, from, path + extension)])),
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    // CommonJS dependencies call require() for Node's own modules; an ESM bundle has none of its own.
    banner: { js: "import { createRequire as __stacksCreateRequire } from 'node:module'; const require = __stacksCreateRequire(import.meta.url);" },
    // Two modules' top-level names that collide get one renamed (Text -> Text2); keep every function's
    // and class's own .name, which DomainError's name (new.target.name) and the logs read.
    keepNames: true,
    chunkNames: '[name]-[hash]',
    legalComments: 'none',
    logLevel: 'warning',
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({ options: { from: { type: 'string', default: 'dist' }, outdir: { type: 'string', default: BUNDLE_DIR }, entry: { type: 'string' } } });
  if (values.from !== 'dist' && values.from !== 'src') throw new Error('--from takes dist or src');
  await bundleServer({ from: values.from, outdir: resolve(values.outdir), entry: values.entry && resolve(values.entry) });
}

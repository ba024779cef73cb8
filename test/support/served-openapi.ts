import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import request from 'supertest';
import { startTestApp } from './test-app.js';

/** The parts of an OpenAPI 3.1 document the tests read; the rest stays `unknown`. */
export interface OpenApiDocument {
  readonly openapi: string;
  readonly info: { readonly version: string; readonly license?: { readonly name: string; readonly identifier?: string } };
  readonly servers?: readonly { readonly url: string; readonly description?: string }[];
  readonly tags?: readonly { readonly name: string; readonly description?: string }[];
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components?: { readonly schemas?: Readonly<Record<string, unknown>> };
}

/** The document committed as the one clients were last given (test/openapi/compatibility.test.ts). */
export const PREVIOUS_DOCUMENT_PATH = resolve(import.meta.dirname, '../openapi/previous.json');
export const REFRESH_PREVIOUS = 'node --import tsx test/support/served-openapi.ts test/openapi/previous.json';

/** Starts the service (the real composition root, in-memory store) with `env` and fetches /openapi.json over HTTP. */
export async function servedOpenApi(env: Record<string, string> = {}): Promise<OpenApiDocument> {
  const t = await startTestApp(env);
  try {
    return (await request(t.app).get('/openapi.json').expect(200).expect('Content-Type', /^application\/json/)).body as OpenApiDocument;
  } finally {
    await t.close();
  }
}

/** As a script: writes the served document (PUBLIC_URL http://localhost:8000) to the path given, e.g. test/openapi/previous.json. */
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const target = process.argv[2];
  if (!target) throw new Error(`usage: ${REFRESH_PREVIOUS}`);
  writeFileSync(target, `${JSON.stringify(await servedOpenApi({ PUBLIC_URL: 'http://localhost:8000' }), null, 2)}\n`);
  process.stdout.write(`wrote ${target}\n`);
}

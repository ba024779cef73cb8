import type { Express } from 'express';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import request from 'supertest';
import { bearer, type Session, type TestApp } from './test-app.js';

/** Sends a multipart upload with the file part named `file` and the given text fields. */
export function upload(app: Express, session: Session, bytes: Buffer, fileName: string, fields: Record<string, string> = {}) {
  const req = request(app).post('/api/books').set(bearer(session.token));
  for (const [name, value] of Object.entries(fields)) req.field(name, value);
  return req.attach('file', bytes, { filename: fileName, contentType: 'application/octet-stream' });
}

/** The directory holding `books/` and `tmp/` for this app. */
export function storageRoot(t: TestApp): string {
  return t.container.storageRoot;
}

async function list(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/** Every file in the blob and staging directories. */
export async function storedFiles(t: TestApp): Promise<{ books: string[]; tmp: string[] }> {
  const root = storageRoot(t);
  return { books: await list(join(root, 'books')), tmp: await list(join(root, 'tmp')) };
}

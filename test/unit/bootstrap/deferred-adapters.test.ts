import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { loadedOnFirstRequest } from '../../../src/adapters/http/loaded-on-first-request.js';
import { KEPUB_CONVERTER_VERSION } from '../../../src/adapters/metadata/safe-kepub-converter.js';
import { deferredCoverResizer, deferredKepubConverter, deferredMetadataReader, deferredPasswordHasher } from '../../../src/bootstrap/deferred-adapters.js';
import { UnprocessableError } from '../../../src/domain/errors.js';
import { tinyPng } from '../../support/fixtures/images.js';

describe('adapters built at their first use', () => {
  it('the password hasher starts at the first password, hashes and verifies (a missing hash never matches), and closes', async () => {
    const hasher = deferredPasswordHasher(4);
    try {
      expect(await hasher.verify('correct horse', null)).toBe(false);
      const hash = await hasher.hash('correct horse');
      expect(await hasher.verify('correct horse', hash)).toBe(true);
      expect(await hasher.verify('wrong horse', hash)).toBe(false);
    } finally {
      await hasher.close();
    }
    await expect(hasher.hash('after close')).rejects.toThrow();
  });

  it('a hasher closed before any use starts nothing afterwards', async () => {
    const hasher = deferredPasswordHasher(4);
    await hasher.close();
    await expect(hasher.verify('x', null)).rejects.toThrow('closed');
  });

  it('the metadata reader refuses a file it cannot read, and closes', async () => {
    const reader = deferredMetadataReader();
    try {
      await expect(reader.read({ handle: '/nonexistent/stacks-test-file', size: 10, sha256: '' })).rejects.toThrow();
    } finally {
      await reader.close();
    }
    await expect(reader.read({ handle: '/nonexistent/stacks-test-file', size: 10, sha256: '' })).rejects.toThrow('closed');
  });

  it('the KEPUB converter says its version before loading, refuses a file it cannot read, and closes', async () => {
    const converter = deferredKepubConverter();
    expect(converter.version).toBe(KEPUB_CONVERTER_VERSION);
    try {
      await expect(converter.convert({ handle: '/nonexistent/stacks-test.epub', size: 10, sha256: '' })).rejects.toThrow();
    } finally {
      await converter.close();
    }
    await expect(converter.convert({ handle: '/nonexistent/stacks-test.epub', size: 10, sha256: '' })).rejects.toThrow('closed');
  });

  it('the cover resizer loads at its first cover: a JPEG of an image, a refusal of bytes that are none', async () => {
    const resizer = deferredCoverResizer();
    const jpeg = await resizer.resize(tinyPng(4, 4), { maxWidth: 2, maxHeight: 2, quality: 80, greyscale: false });
    expect([...jpeg.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    await expect(resizer.resize(new Uint8Array([1, 2, 3]), { maxWidth: 2, maxHeight: 2, quality: 80, greyscale: false })).rejects.toBeInstanceOf(UnprocessableError);
  });

  it('a router loaded on first request is built once for concurrent requests, and a failure to build is an error response', async () => {
    let builds = 0;
    const app = express();
    app.use('/lazy', loadedOnFirstRequest(async () => {
      builds += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return (_req, res) => void res.json({ builds });
    }));
    app.use('/broken', loadedOnFirstRequest(async () => {
      throw new Error('cannot load');
    }));
    app.use(((error, _req, res, _next) => void res.status(500).json({ message: (error as Error).message })) as express.ErrorRequestHandler);
    const answers = await Promise.all(Array.from({ length: 10 }, () => request(app).get('/lazy/x')));
    expect(answers.map((a) => a.body)).toEqual(Array.from({ length: 10 }, () => ({ builds: 1 })));
    const broken = await request(app).get('/broken');
    expect(broken.status).toBe(500);
    expect(broken.body).toEqual({ message: 'cannot load' });
  });
});

import type { Express, Response } from 'express';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * `res.json` on the path every JSON answer of this app takes, writing what Express's `res.json` writes
 * (the same `JSON.stringify` text, `Content-Type: application/json; charset=utf-8`, then `Content-Length`,
 * in that order) without its detours: a MIME lookup and a content-type parse to add the charset, and
 * header reads for an ETag the app does not make. Express's own `res.json` answers every other case:
 * a HEAD, a conditional request (`If-None-Match`, `If-Modified-Since`: it may turn into a 304), a
 * 204/205/304 status, a Content-Type or Transfer-Encoding already set, a value that is no JSON text, or
 * an app whose JSON or ETag settings are not the defaults this relies on (checked once, here).
 */
export function fastJsonResponses(app: Express): void {
  const defaults = ['json escape', 'json replacer', 'json spaces', 'etag fn'].every((setting) => app.get(setting) === undefined || app.get(setting) === false);
  if (!defaults) return;
  const expressJson = app.response.json;
  app.response.json = function json(this: Response, value: unknown): Response {
    const { req } = this;
    const expressAnswers =
      req.method === 'HEAD' ||
      req.headers['if-none-match'] !== undefined ||
      req.headers['if-modified-since'] !== undefined ||
      this.statusCode === 204 || this.statusCode === 205 || this.statusCode === 304 ||
      this.hasHeader('content-type') ||
      this.hasHeader('transfer-encoding');
    const body = expressAnswers ? undefined : (JSON.stringify(value) as string | undefined);
    if (body === undefined) return expressJson.call(this, value);
    this.setHeader('Content-Type', JSON_TYPE);
    if (body.length < 1000) {
      this.setHeader('Content-Length', String(Buffer.byteLength(body, 'utf8')));
      this.end(body, 'utf8');
    } else {
      // As Express does: encoded once, and the bytes counted and written (not measured, then encoded again).
      const bytes = Buffer.from(body, 'utf8');
      this.setHeader('Content-Length', String(bytes.length));
      this.end(bytes);
    }
    return this;
  };
}

import type { Express } from 'express';
import request from 'supertest';
import { bearer, type Session } from './test-app.js';

/** A supertest client that sends every request with the session's bearer token. */
export function as(app: Express, session: Session) {
  const authorized = (req: request.Test, body?: unknown) => {
    const sent = req.set(bearer(session.token));
    return body === undefined ? sent : sent.send(body as object);
  };
  return {
    get: (path: string) => authorized(request(app).get(path)),
    post: (path: string, body?: unknown) => authorized(request(app).post(path), body),
    put: (path: string, body?: unknown) => authorized(request(app).put(path), body),
    patch: (path: string, body?: unknown) => authorized(request(app).patch(path), body),
    del: (path: string) => authorized(request(app).delete(path)),
  };
}

import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { rateLimits } from '../../../src/adapters/http/rate-limit.js';

/** An app with in-memory budgets of 3 requests a minute and 2 registrations an hour, on a settable clock. */
function limited(now: () => Date) {
  const app = express();
  app.use(rateLimits({ perMinute: 3, registrationsPerHour: 2 }, (error) => (_req, res) => {
    res.status(429).set('Retry-After', String(error.retryAfterSeconds)).end();
  }, now));
  app.get(['/api/x', '/healthz'], (_req, res) => res.end('ok'));
  app.post('/api/auth/register', (_req, res) => res.end('ok'));
  return app;
}

describe('rateLimits in this process', () => {
  it('answers 429 with Retry-After past the minute budget, never for the health probe, and afresh the next minute', async () => {
    let now = new Date(Date.UTC(2026, 0, 1, 10, 0, 0));
    const app = limited(() => now);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await request(app).get('/api/x')).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect((await request(app).get('/healthz')).status).toBe(200);
    now = new Date(now.getTime() + 20_000);
    expect((await request(app).get('/api/x')).headers['retry-after']).toBe('40');
    now = new Date(now.getTime() + 40_000);
    expect((await request(app).get('/api/x')).status).toBe(200);
  });

  it('counts registrations against their own hourly budget as well', async () => {
    let now = new Date(Date.UTC(2026, 0, 1, 10, 0, 0));
    const app = limited(() => now);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await request(app).post('/api/auth/register')).status);
      now = new Date(now.getTime() + 60_000);
    }
    expect(statuses).toEqual([200, 200, 429]);
  });
});

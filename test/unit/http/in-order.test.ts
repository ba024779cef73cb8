import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { inOrder } from '../../../src/adapters/http/in-order.js';

/** What the app answers when `handlers` run as separate layers and as one in-order layer: the same, each time. */
async function bothWays(handlers: (seen: string[]) => RequestHandler[]): Promise<{ separate: string; combined: string }> {
  const answer = async (combine: boolean) => {
    const seen: string[] = [];
    const app = express();
    const list = handlers(seen);
    if (combine) app.use(inOrder(list));
    else for (const h of list) app.use(h);
    app.use((_req, res) => void res.send(`end after ${seen.join(',')}`));
    app.use(((error, _req, res, _next) => void res.status(500).send(`error ${String((error as Error).message ?? error)} after ${seen.join(',')}`)) as ErrorRequestHandler);
    const res = await request(app).get('/x');
    return `${res.status} ${res.text}`;
  };
  return { separate: await answer(false), combined: await answer(true) };
}

const step = (seen: string[], name: string): RequestHandler => (_req, _res, next) => { seen.push(name); next(); };

describe('middlewares run in order as one layer', () => {
  it('run every handler in order, then the layers after', async () => {
    const r = await bothWays((seen) => [step(seen, 'a'), step(seen, 'b'), step(seen, 'c')]);
    expect(r.combined).toBe('200 end after a,b,c');
    expect(r.combined).toBe(r.separate);
  });

  it('hand an error on past the handlers after it, whether passed to next, thrown, or a rejected promise', async () => {
    for (const failing of [
      (_req, _res, next) => next(new Error('passed')),
      () => { throw new Error('thrown'); },
      async () => { throw new Error('rejected'); },
    ] as RequestHandler[]) {
      const r = await bothWays((seen) => [step(seen, 'a'), failing, step(seen, 'c')]);
      expect(r.combined).toMatch(/^500 error (passed|thrown|rejected) after a$/);
      expect(r.combined).toBe(r.separate);
    }
  });

  it("go on after next('route') or a falsy value, as Express's router does", async () => {
    for (const value of ['route', false, null, 0, ''] as unknown[]) {
      const r = await bothWays((seen) => [step(seen, 'a'), (_req, _res, next) => next(value as undefined), step(seen, 'c')]);
      expect(r.combined).toBe('200 end after a,c');
      expect(r.combined).toBe(r.separate);
    }
  });

  it('let a handler answer and stop the chain', async () => {
    const r = await bothWays((seen) => [step(seen, 'a'), (_req, res) => void res.status(429).send('refused'), step(seen, 'c')]);
    expect(r.combined).toBe('429 refused');
    expect(r.combined).toBe(r.separate);
  });
});

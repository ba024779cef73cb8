// Baseline for bench/startup.ts: the start-up floor of the packages every Stacks request path loads,
// bundled the way `npm start` bundles Stacks (scripts/bundle.mjs's esbuild options; bench/startup.ts
// builds it into bench/out/). It loads and uses each once, so none is tree-shaken away: reflect-metadata
// and tsyringe (one registration), zod (one schema parsed), jsonwebtoken (one HS256 token signed and
// verified), pino (a logger at warn), Express 5 with its JSON body parser, and better-sqlite3 opening and
// migrating the store through Stacks' own openSqliteDatabase (as the bare server does). Then it listens
// and answers GET /readyz. None of Stacks' adapters, routes, use cases or housekeeping. Env: DATA_DIR, PORT.
import 'reflect-metadata';
import { createSecretKey } from 'node:crypto';
import { createServer } from 'node:http';
import express from 'express';
import jwt from 'jsonwebtoken';
import { pino } from 'pino';
import { container } from 'tsyringe';
import { z } from 'zod';
import { openSqliteDatabase } from '../../../dist/adapters/sqlite/sqlite-database.js';

const logger = pino({ level: 'warn' });
const Ready = z.object({ status: z.literal('ready'), store: z.string().min(1) });
container.register('logger', { useValue: logger });
const key = createSecretKey(Buffer.from('packages-floor-secret-0123456789-0123456789'));
const token = jwt.sign({ sub: 'floor' }, key, { algorithm: 'HS256', expiresIn: 60 });
jwt.verify(token, key, { algorithms: ['HS256'] });

const db = openSqliteDatabase(process.env.DATA_DIR);
const app = express();
app.disable('x-powered-by');
app.use(express.json({ limit: '1mb' }));
app.get('/readyz', (_req, res) => {
  res.json(Ready.parse({ status: 'ready', store: container.resolve('logger') === logger ? 'sqlite' : '' }));
});
const server = createServer(app).listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => {
  db.close();
  process.exit(0);
}));

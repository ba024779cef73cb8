/**
 * The step-down drill against a real replica set: `MONGODB_URL` (e.g.
 * mongodb://127.0.0.1:27017,127.0.0.1:27018,127.0.0.1:27019/?replicaSet=rs0) must name a replica set
 * of at least three members. Starts Stacks in this process on a fresh database, keeps writers and
 * readers busy, runs `replSetStepDown` on the primary mid-way, and fails (exit 1) on any 5xx other than
 * 503 with Retry-After or any acknowledged write not read back afterwards. Run by
 * .github/workflows/mongo.yml; it cannot run without a replica set (see docs/mongodb.md).
 *
 *   MONGODB_URL=... npm run drill:mongo-step-down
 */
import 'reflect-metadata';
import { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { loadConfig } from '../src/bootstrap/config.js';
import { startStacks } from '../src/bootstrap/server.js';
import { runDrill } from './lib/step-down-drill.js';

const url = process.env.MONGODB_URL;
if (!url) {
  process.stderr.write('MONGODB_URL must name a replica set (three members or more)\n');
  process.exit(2);
}
// The same deployment, a fresh database: the URL's path replaced, its options kept.
const stacksUrl = url.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/stacks_drill_${Date.now()}`);

const config = loadConfig({
  DATABASE_URL: stacksUrl, JWT_SECRET: 'step-down-drill-secret-0123456789-0123456789', PORT: '0', HOST: '127.0.0.1',
  LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', REGISTER_LIMIT_PER_HOUR: '0', BCRYPT_COST: '4',
});
const running = await startStacks(config, pino({ level: 'warn' }));
const base = `http://127.0.0.1:${running.port}`;
const registered = await fetch(`${base}/api/auth/register`, {
  method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ username: 'drill', email: 'drill@example.test', password: 'correct horse battery' }),
});
const token = ((await registered.json()) as { access_token: string }).access_token;

const admin = new MongoClient(url, { serverSelectionTimeoutMS: 30_000 });
const report = await runDrill({
  url: base, token, writers: 4, readers: 4, requestsEach: 150, stepDownAfter: 40, run: String(Date.now()),
  stepDown: async () => {
    // The primary closes every connection as it steps down: the command's own answer may be a network error.
    await admin.db('admin').command({ replSetStepDown: 30, secondaryCatchUpPeriodSecs: 10 }).catch(() => undefined);
  },
  settle: async () => {
    for (let i = 0; i < 120 && (await fetch(`${base}/readyz`).then((r) => r.status, () => 0)) !== 200; i++) await new Promise((r) => setTimeout(r, 500));
  },
});
await admin.close();
await running.close();
process.stdout.write(`${JSON.stringify({ ...report, serverErrors: report.serverErrors.slice(0, 20) }, null, 2)}\n`);
process.exit(report.passed && report.unavailable + report.acknowledged > 0 ? 0 : 1);

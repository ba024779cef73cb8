import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mongoLimits, mongoServerKind, mongoTestServer, type StandInLimit } from '../../support/mongo-server.js';
import type { ContainerOverrides } from '../../../src/bootstrap/container.js';
import { burstContext } from './race-cluster.js';
import { raceServer, type StoreRecords, type StoreUnderRace } from './race-server.js';

export type { StoreUnderRace } from './race-server.js';

/** One HTTP answer, reduced to what the races judge. */
export interface Answer {
  readonly status: number;
  readonly body: any;
}

export interface Caller {
  readonly id: string;
  readonly username: string;
  readonly password: string;
  readonly token: string;
}

export interface RequestOptions {
  readonly token?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** The client address the server sees (TRUST_PROXY=1 honours X-Forwarded-For). */
  readonly from?: string;
}

/** A running Stacks on one store, listening on loopback, that the races send bursts to. */
export interface RaceWorld extends Omit<StoreRecords, 'users'> {
  readonly store: string;
  /** What this store's server cannot show (only the MongoDB stand-in has limits). */
  readonly limits: Partial<Record<StandInLimit, string>>;
  readonly url: string;
  readonly admin: Caller;
  send(method: string, path: string, options?: RequestOptions): Promise<Answer>;
  /** n requests (or pairs of them) started together; resolves when every one has answered. */
  burst<T = Answer>(n: number, one: (i: number) => Promise<T>): Promise<T[]>;
  /** A new ordinary account (its own client address, so per-address limits do not mix). */
  fresh(prefix: string): Promise<Caller>;
  /** A client address no other race uses. */
  address(): string;
  /** `fetch` of a path on the world's server, as `send` makes it (for bodies `send` does not build: uploads). */
  request(path: string, init: RequestInit & { headers: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

export const PASSWORD = 'correct horse battery';

let accounts = 0;
let addresses = 0;
let databases = 0;
let bursts = 0;

/** A new SQLite DATA_DIR, dropped with everything in it. */
const freshSqlite = (prefix: string) => async () => {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { env: { DATABASE_URL: '', DATA_DIR: dir }, drop: () => rm(dir, { recursive: true, force: true }) };
};

export const STORES_UNDER_RACE: readonly StoreUnderRace[] = [
  { name: 'memory', limits: {}, open: async () => ({ env: { DATABASE_URL: 'memory:' }, drop: async () => undefined }) },
  {
    name: 'sqlite',
    limits: {},
    open: freshSqlite('stacks-race-'),
  },
  {
    // The real cluster: src/bootstrap/main.ts spawned with WORKERS=2, both workers on one SQLite file.
    name: 'sqlite, WORKERS=2',
    limits: {},
    workers: 2,
    open: freshSqlite('stacks-race-workers-'),
  },
  {
    name: `mongo (${mongoServerKind()})`,
    limits: mongoLimits(),
    async open() {
      const server = await mongoTestServer();
      const dir = await mkdtemp(join(tmpdir(), 'stacks-race-mongo-'));
      const db = `stacks_race_${process.pid}_${(databases += 1)}`;
      return { env: { DATABASE_URL: server.database(db), DATA_DIR: dir }, drop: () => rm(dir, { recursive: true, force: true }) };
    },
  },
];

/** Stacks with the production login policies (unless overridden), TRUST_PROXY=1 and the given extra environment. */
export async function raceWorld(store: StoreUnderRace, env: Record<string, string> = {}, overrides: ContainerOverrides = {}): Promise<RaceWorld> {
  const server = await raceServer(store, env, overrides);
  const { url, records } = server;

  const send = async (method: string, path: string, o: RequestOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    headers['x-forwarded-for'] = o.from ?? '198.51.100.1';
    const res = await server.request(path, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (OPDS, files): keep the text
    }
    return { status: res.status, body };
  };

  const address = () => {
    addresses += 1;
    return `2001:db8:${addresses.toString(16)}::1`;
  };

  const fresh = async (prefix: string): Promise<Caller> => {
    accounts += 1;
    const username = `${prefix}${accounts}`;
    const res = await send('POST', '/api/auth/register', {
      body: { username, email: `${username}@example.test`, password: PASSWORD },
      from: address(),
    });
    if (res.status !== 201) throw new Error(`register ${username}: ${res.status} ${JSON.stringify(res.body)}`);
    return { id: res.body.user.id, username, password: PASSWORD, token: res.body.access_token };
  };

  const admin = await fresh('raceadmin');
  return {
    store: store.name,
    limits: store.limits,
    url,
    admin,
    send,
    request: (path, init) => server.request(path, init),
    burst: (n, one) => {
      bursts += 1;
      const label = `b${bursts}`;
      return Promise.all(Array.from({ length: n }, (_, i) => burstContext.run({ label }, () => one(i))));
    },
    fresh,
    address,
    progressOf: records.progressOf,
    syncDocumentOf: records.syncDocumentOf,
    throttleOf: records.throttleOf,
    seedSyncDocuments: records.seedSyncDocuments,
    countSyncDocuments: records.countSyncDocuments,
    close: () => server.close(),
  };
}

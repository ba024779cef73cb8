import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** What a Mongo test server cannot check, each with the reason printed in the skipped test's name. */
export type StandInLimit = 'uniqueIndexes' | 'binaryStringOrder' | 'largeGridFsReads' | 'transactions';

export interface MongoTestServer {
  /** Printed in describe names and logs: which server the tests ran against. */
  readonly name: string;
  readonly url: string;
  /** Base URL without a database; add `/<db>` per store. */
  database(name: string): string;
  stop(): Promise<void>;
}

export type MongoServerKind = 'url' | 'testcontainers' | 'congodb';

export const STAND_IN_LIMITS: Readonly<Record<StandInLimit, string>> = {
  uniqueIndexes: 'does not enforce unique indexes',
  binaryStringOrder: 'sorts strings by locale, not by code point',
  largeGridFsReads: 'fails GridFS reads over about 15 MB',
  transactions: 'accepts transactions but neither isolates nor rolls them back',
};

/** A container runtime Testcontainers could use (a quick, synchronous probe). */
function containerRuntimePresent(): boolean {
  return Boolean(process.env.DOCKER_HOST) || existsSync('/var/run/docker.sock') || existsSync(`${process.env.HOME}/.docker/run/docker.sock`);
}

/**
 * Which server the Mongo tests use: MONGODB_URL when set, else Testcontainers when a container runtime
 * is present (or STACKS_MONGO=testcontainers demands it), else the CongoDB stand-in.
 */
export function mongoServerKind(): MongoServerKind {
  if (process.env.MONGODB_URL) return 'url';
  if (process.env.STACKS_MONGO === 'testcontainers' || containerRuntimePresent()) return 'testcontainers';
  return 'congodb';
}

export const MONGO_SERVER_NAMES: Readonly<Record<MongoServerKind, string>> = {
  url: 'MongoDB at MONGODB_URL',
  testcontainers: 'MongoDB 8 replica set (Testcontainers)',
  congodb: 'CongoDB stand-in',
};

/** Limits of the server in use (none for a real MongoDB). */
export function mongoLimits(kind: MongoServerKind = mongoServerKind()): Partial<Record<StandInLimit, string>> {
  return kind === 'congodb' ? STAND_IN_LIMITS : {};
}

function withDatabase(url: string, db: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${db}`;
  return parsed.toString();
}

/**
 * Starts a CongoDB stand-in process: the primary of a one-member replica set, or with `standalone` a
 * standalone server (which Stacks refuses at start).
 */
export async function startCongoDb(options: { standalone?: boolean } = {}): Promise<MongoTestServer> {
  const script = fileURLToPath(new URL('./congodb-stand-in.mjs', import.meta.url));
  const env = { ...process.env, STANDALONE: options.standalone ? '1' : '0' };
  const child: ChildProcess = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'inherit'], env });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`CongoDB stand-in exited with ${code}`)));
    child.stdout?.once('data', (data: Buffer) => resolve((JSON.parse(data.toString()) as { port: number }).port));
  });
  const url = `mongodb://127.0.0.1:${port}/`;
  return {
    name: MONGO_SERVER_NAMES.congodb,
    url,
    // CongoDB does not stream hello replies (moreToCome); polling keeps the driver from resetting its pool.
    // It answers one command at a time in one thread, so a new connection's handshake waits behind a
    // long scan: a generous pool wait keeps the tests independent of the machine's speed (Stacks' own
    // default, WAIT_QUEUE_TIMEOUT_MS, is for a server that answers connections while it works).
    database: (db) => withDatabase(`${url}?directConnection=true&serverMonitoringMode=poll&waitQueueTimeoutMS=120000`, db),
    stop: async () => {
      child.kill('SIGTERM');
    },
  };
}

async function startTestcontainers(): Promise<MongoTestServer> {
  const { MongoDBContainer } = await import('@testcontainers/mongodb');
  const container = await new MongoDBContainer(process.env.MONGODB_IMAGE ?? 'mongo:8.0').start();
  const url = `${container.getConnectionString()}/?directConnection=true`;
  return { name: MONGO_SERVER_NAMES.testcontainers, url, database: (db) => withDatabase(url, db), stop: async () => void (await container.stop()) };
}

let started: Promise<MongoTestServer> | undefined;

/** Starts (once per test process) the server mongoServerKind() names. */
export function mongoTestServer(): Promise<MongoTestServer> {
  started ??= (async () => {
    const kind = mongoServerKind();
    const server =
      kind === 'url'
        ? { name: MONGO_SERVER_NAMES.url, url: process.env.MONGODB_URL as string,
            database: (db: string) => withDatabase(process.env.MONGODB_URL as string, db), stop: async () => {} }
        : kind === 'testcontainers' ? await startTestcontainers() : await startCongoDb();
    console.info(`[mongo] tests run against: ${server.name}`);
    return server;
  })();
  return started;
}

/** Stops the per-process server, if one was started here. */
export async function stopMongoTestServer(): Promise<void> {
  const server = await started;
  started = undefined;
  await server?.stop();
}

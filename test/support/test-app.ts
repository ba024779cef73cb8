import type { Express } from 'express';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../../src/adapters/http/app.js';
import { loadConfig, type Config } from '../../src/bootstrap/config.js';
import { buildContainer, type ContainerOverrides, type StacksContainer } from '../../src/bootstrap/container.js';
import { httpDepsFrom } from '../../src/bootstrap/http.js';
import { prepare } from '../../src/bootstrap/server.js';

export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-bytes-long!!';

export interface TestApp {
  readonly app: Express;
  readonly container: StacksContainer;
  readonly config: Config;
  close(): Promise<void>;
}

/** The real composition root over the in-memory store (or the env given), with cheap bcrypt. */
export async function startTestApp(
  env: Record<string, string> = {},
  overrides: ContainerOverrides = {},
  logLines?: string[],
): Promise<TestApp> {
  const config = loadConfig({
    DATABASE_URL: 'memory:',
    JWT_SECRET: TEST_JWT_SECRET,
    BCRYPT_COST: '4',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const logger = logLines
    ? pino({ level: 'info' }, { write: (line: string) => void logLines.push(line) })
    : pino({ level: config.logLevel });
  const container = await buildContainer(config, logger, overrides);
  await prepare(container, config, logger);
  const app = createApp(httpDepsFrom(container));
  return { app, container, config, close: () => container.dispose() };
}

export interface Session {
  readonly token: string;
  readonly user: { id: string; username: string; roles: string[]; permissions: string[] };
}

let counter = 0;

/** Registers a fresh account and returns its token. */
export async function registerUser(app: Express, name?: string, password = 'correct horse battery'): Promise<Session> {
  counter += 1;
  const username = name ?? `user${counter}`;
  const res = await request(app)
    .post('/api/auth/register')
    .send({ username, email: `${username.toLowerCase()}@example.test`, password });
  if (res.status !== 201) throw new Error(`register ${username}: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: res.body.access_token, user: res.body.user };
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** The embedded stores a suite runs on through `describe.each`: the environment each needs, given a fresh temp folder. */
export const EMBEDDED_STORES = [
  { name: 'memory', env: (_dir: string): Record<string, string> => ({}) },
  { name: 'sqlite', env: (dir: string): Record<string, string> => ({ DATABASE_URL: '', DATA_DIR: dir }) },
];

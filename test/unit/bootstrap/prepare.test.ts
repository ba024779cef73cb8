import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/bootstrap/config.js';
import { buildContainer, type StacksContainer } from '../../../src/bootstrap/container.js';
import { prepare } from '../../../src/bootstrap/server.js';
import { PORTS, portsOf } from '../../../src/bootstrap/tokens.js';
import { newLocalUser } from '../../../src/domain/user.js';
import { instant } from '../../support/builders.js';
import { GatedPasswordHasher } from '../../support/gated-password-hasher.js';

const quiet = pino({ level: 'silent' });
const config = loadConfig({
  DATABASE_URL: 'memory:', BCRYPT_COST: '4', LOG_LEVEL: 'silent',
  ADMIN_USERNAME: 'root', ADMIN_EMAIL: 'root@example.test', ADMIN_PASSWORD: 'the bootstrap admin password',
});
let container: StacksContainer | undefined;
afterEach(async () => container?.dispose());

async function withGatedHasher(): Promise<{ container: StacksContainer; hasher: GatedPasswordHasher }> {
  container = await buildContainer(config, quiet);
  const hasher = new GatedPasswordHasher();
  container.di.registerInstance(PORTS.PasswordHasher, hasher);
  return { container, hasher };
}

describe('start-up before listening: the bootstrap admin', () => {
  it('tolerates another instance creating the admin between its lookup and its insert (two starts with ADMIN_* at once)', async () => {
    const { container, hasher } = await withGatedHasher();
    const gate = hasher.pauseNextHash();
    const slower = prepare(container, config, quiet);
    await gate.arrived;
    await prepare(container, config, quiet);
    gate.release();
    await expect(slower).resolves.toBeUndefined();
    const { items } = await portsOf(container.di).UserRepository.list({ page: 1, pageSize: 10 });
    expect(items.map((u) => [u.username, u.roles])).toEqual([['root', ['admin']]]);
  });

  it('still stops when the configured e-mail belongs to another account (a misconfiguration, not a race)', async () => {
    const { container } = await withGatedHasher();
    await portsOf(container.di).UserRepository.create(newLocalUser({
      id: 'someone', username: 'someone', email: 'root@example.test', passwordHash: 'x', roles: ['user'], now: instant(0),
    }));
    await expect(prepare(container, config, quiet)).rejects.toMatchObject({ code: 'email_already_exists' });
  }, 10_000);
});

import { parseArgs } from 'node:util';
import type { CreateApiKey } from '../../application/use-cases/create-api-key.js';
import type { FindUserByUsername } from '../../application/use-cases/find-user-by-username.js';
import type { ListApiKeys } from '../../application/use-cases/list-api-keys.js';
import type { RevokeApiKey } from '../../application/use-cases/revoke-api-key.js';
import type { Actor } from '../../domain/actor.js';
import type { ApiKey } from '../../domain/api-key.js';
import { MAX_PAGE_SIZE } from '../../domain/page.js';
import { PERMISSIONS, type Permission } from '../../domain/permissions.js';
import { printable } from '../../domain/text.js';
import { EXIT_OK, say, UsageError, type CliIo } from './cli-io.js';

/** One parsed `stacks keys …` command line. */
export type KeyCommand =
  | { readonly name: 'keys-create'; readonly username: string; readonly keyName: string; readonly permissions?: Permission[]; readonly expiresAt?: Date }
  | { readonly name: 'keys-list'; readonly username: string }
  | { readonly name: 'keys-revoke'; readonly username: string; readonly keyId: string };

export const KEYS_USAGE = `  keys create <username> --name <name> [--permission <permission>]... [--expires-at <ISO time>]
  keys list <username>
  keys revoke <username> <key-id>`;

function permissions(values: readonly string[] | undefined): Permission[] | undefined {
  if (!values) return undefined;
  const bad = values.filter((p) => !(PERMISSIONS as readonly string[]).includes(p));
  if (bad.length > 0) throw new UsageError(`unknown permission(s): ${bad.join(', ')} (use ${PERMISSIONS.join(', ')})`);
  return values as Permission[];
}

function expiry(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime()) || !/^\d{4}-\d\d-\d\dT/.test(value)) throw new UsageError('--expires-at must be an ISO 8601 time, e.g. 2027-01-01T00:00:00Z');
  return date;
}

/** Parses the arguments after `keys`; throws UsageError for anything malformed. */
export function parseKeys(args: readonly string[]): KeyCommand {
  const [sub, ...rest] = args;
  const options = { name: { type: 'string' }, permission: { type: 'string', multiple: true }, 'expires-at': { type: 'string' } } as const;
  const { values, positionals } = parseArgs({ args: rest, options: sub === 'create' ? options : {}, allowPositionals: true, strict: true });
  const [username, keyId, ...extra] = positionals;
  if (!username) throw new UsageError('expected <username>');
  switch (sub) {
    case 'create': {
      if (keyId !== undefined) throw new UsageError('expected <username> only');
      const keyName = (values as { name?: string }).name?.trim();
      if (!keyName) throw new UsageError('--name <name> is required: it tells the keys apart');
      const perms = permissions((values as { permission?: string[] }).permission);
      const expiresAt = expiry((values as { 'expires-at'?: string })['expires-at']);
      return { name: 'keys-create', username, keyName, ...(perms ? { permissions: perms } : {}), ...(expiresAt ? { expiresAt } : {}) };
    }
    case 'list':
      if (keyId !== undefined) throw new UsageError('expected <username> only');
      return { name: 'keys-list', username };
    case 'revoke':
      if (!keyId || extra.length > 0) throw new UsageError('expected <username> <key-id>');
      return { name: 'keys-revoke', username, keyId };
    default:
      throw new UsageError(sub ? `unknown keys command '${sub}'` : 'expected a keys command');
  }
}

export interface KeyCliDeps {
  readonly findUser: FindUserByUsername;
  readonly createApiKey: CreateApiKey;
  readonly listApiKeys: ListApiKeys;
  readonly revokeApiKey: RevokeApiKey;
}

/** One key as a line: its stored name escaped (a name may hold anything stored before the text rules, e.g. an OSC 52 sequence). */
const describeKey = (k: ApiKey) =>
  `${printable(k.id)}  ${printable(k.name)}  stk_${printable(k.prefix)}…  ${k.permissions.join(',')}  expires ${k.expiresAt?.toISOString() ?? 'never'}  last used ${k.lastUsedAt?.toISOString() ?? 'never'}`;

/** Runs one keys command as the operator; the secret of a new key goes to stdout once, alone on its line. */
export async function runKeyCommand(command: KeyCommand, deps: KeyCliDeps, operator: Actor, io: CliIo): Promise<number> {
  const owner = await deps.findUser.execute(operator, command.username);
  switch (command.name) {
    case 'keys-create': {
      const { key, secret } = await deps.createApiKey.execute(operator, {
        ownerId: owner.id, name: command.keyName, permissions: command.permissions, expiresAt: command.expiresAt ?? null,
      });
      say(io.stderr, `created key ${describeKey(key)} for ${printable(owner.username)}; the secret below is shown only now:`);
      say(io.stdout, secret);
      return EXIT_OK;
    }
    case 'keys-list': {
      const page = await deps.listApiKeys.execute(operator, { ownerId: owner.id, page: { page: 1, pageSize: MAX_PAGE_SIZE } });
      for (const key of page.items) say(io.stdout, describeKey(key));
      if (page.total > page.items.length) say(io.stdout, `… and ${page.total - page.items.length} more`);
      return EXIT_OK;
    }
    case 'keys-revoke':
      await deps.revokeApiKey.execute(operator, { ownerId: owner.id, keyId: command.keyId });
      say(io.stdout, `revoked key ${printable(command.keyId)} of ${printable(owner.username)}`);
      return EXIT_OK;
  }
}

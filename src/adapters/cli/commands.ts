import { parseArgs } from 'node:util';
import { isRoleName, type RoleName } from '../../domain/permissions.js';
import { UsageError } from './cli-io.js';
import { KEYS_USAGE, parseKeys, type KeyCommand } from './key-commands.js';

type PasswordSource = { readonly from: 'stdin' } | { readonly from: 'argument'; readonly value: string };

/** One parsed command line. */
export type Command =
  | { readonly name: 'help' }
  | { readonly name: 'user-create'; readonly username: string; readonly email: string; readonly password: PasswordSource; readonly roles: RoleName[] }
  | { readonly name: 'user-roles'; readonly username: string; readonly roles: RoleName[] }
  | { readonly name: 'user-reset-password'; readonly username: string; readonly password: PasswordSource }
  | { readonly name: 'user-disable' | 'user-enable' | 'user-unlock'; readonly username: string }
  | { readonly name: 'import'; readonly folder: string; readonly owner: string }
  | KeyCommand;

export const USAGE = `Usage: stacks <command>

  user create <username> <email> (--password-stdin | --password <pw>) [--role <role>]...
  user roles <username> <role>...
  user reset-password <username> (--password-stdin | --password <pw>)
  user disable <username>
  user enable <username>
  user unlock <username>
  import <folder> --owner <username>
${KEYS_USAGE}
  help

Roles: admin, user, reader. The store is the one configured by DATABASE_URL / DATA_DIR (and .env).
Exit codes: 0 done, 1 failed (an import with any failed file), 2 usage error.`;

const passwordOptions = {
  'password-stdin': { type: 'boolean' },
  password: { type: 'string' },
} as const;

function roles(values: readonly string[]): RoleName[] {
  const bad = values.filter((r) => !isRoleName(r));
  if (bad.length > 0) throw new UsageError(`unknown role(s): ${bad.join(', ')} (use admin, user or reader)`);
  if (values.length === 0) throw new UsageError('name at least one role');
  return [...new Set(values)] as RoleName[];
}

function passwordSource(values: { 'password-stdin'?: boolean; password?: string }): PasswordSource {
  if (values['password-stdin'] && values.password !== undefined) throw new UsageError('give --password-stdin or --password, not both');
  if (values['password-stdin']) return { from: 'stdin' };
  if (values.password !== undefined) return { from: 'argument', value: values.password };
  throw new UsageError('a password is required: --password-stdin (recommended) or --password <pw>');
}

function exactly(positionals: readonly string[], count: number, what: string): string[] {
  if (positionals.length !== count) throw new UsageError(`expected ${what}`);
  return [...positionals];
}

function parseUser(args: string[]): Command {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      const options = { ...passwordOptions, role: { type: 'string', multiple: true } } as const;
      const { values, positionals } = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
      const [username, email] = exactly(positionals, 2, '<username> <email>') as [string, string];
      return { name: 'user-create', username, email, password: passwordSource(values), roles: roles(values.role ?? ['user']) };
    }
    case 'roles': {
      const [username, ...given] = parseArgs({ args: rest, allowPositionals: true, strict: true }).positionals;
      if (!username) throw new UsageError('expected <username> <role>...');
      return { name: 'user-roles', username, roles: roles(given) };
    }
    case 'reset-password': {
      const { values, positionals } = parseArgs({ args: rest, options: passwordOptions, allowPositionals: true, strict: true });
      const [username] = exactly(positionals, 1, '<username>') as [string];
      return { name: 'user-reset-password', username, password: passwordSource(values) };
    }
    case 'disable':
    case 'enable':
    case 'unlock': {
      const [username] = exactly(parseArgs({ args: rest, allowPositionals: true, strict: true }).positionals, 1, '<username>') as [string];
      return { name: `user-${sub}`, username };
    }
    default:
      throw new UsageError(sub ? `unknown user command '${sub}'` : 'expected a user command');
  }
}

/** Parses argv (without node and the script); throws UsageError for anything malformed. */
export function parseCommand(argv: readonly string[]): Command {
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === 'help' || name === '--help' || name === '-h') return { name: 'help' };
    if (name === 'user') return parseUser(rest);
    if (name === 'keys') return parseKeys(rest);
    if (name === 'import') {
      const { values, positionals } = parseArgs({ args: rest, options: { owner: { type: 'string' } }, allowPositionals: true, strict: true });
      const [folder] = exactly(positionals, 1, '<folder>') as [string];
      if (!values.owner) throw new UsageError('--owner <username> is required: imported books belong to someone');
      return { name: 'import', folder, owner: values.owner };
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError((error as Error).message);
  }
  throw new UsageError(`unknown command '${name}'`);
}

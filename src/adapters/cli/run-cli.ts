import type { CreateUser } from '../../application/use-cases/create-user.js';
import type { FindUserByUsername } from '../../application/use-cases/find-user-by-username.js';
import type { UpdateUser } from '../../application/use-cases/update-user.js';
import type { ResetPassword } from '../../application/use-cases/reset-password.js';
import type { UnlockUser } from '../../application/use-cases/unlock-user.js';
import type { UploadBook } from '../../application/use-cases/upload-book.js';
import { actorFor, OPERATOR_CREDENTIAL, type Actor } from '../../domain/actor.js';
import { DomainError, ValidationError } from '../../domain/errors.js';
import { canUploadBook } from '../../domain/policies.js';
import { printable } from '../../domain/text.js';
import type { User } from '../../domain/user.js';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, passwordFromStdin, say, UsageError, type CliIo } from './cli-io.js';
import { parseCommand, USAGE, type Command } from './commands.js';
import { importFolder } from './import-books.js';
import { runKeyCommand, type KeyCliDeps } from './key-commands.js';

/** The use cases the command line drives: the same ones the HTTP adapter uses, plus the admin-only ones. */
export interface CliDeps extends KeyCliDeps {
  readonly createUser: CreateUser;
  readonly findUser: FindUserByUsername;
  readonly updateUser: UpdateUser;
  readonly resetPassword: ResetPassword;
  readonly unlockUser: UnlockUser;
  readonly uploadBook: UploadBook;
}

/** Whoever can run the CLI against the store already holds all its data: they act as an admin. */
export const OPERATOR: Actor = actorFor({ id: 'stacks-cli', username: 'stacks-cli', roles: ['admin'] }, OPERATOR_CREDENTIAL);

const describe = (user: User) => `${printable(user.username)} (id ${printable(user.id)}, roles ${user.roles.join(', ')}${user.disabled ? ', disabled' : ''})`;

async function password(source: Extract<Command, { password: unknown }>['password'], io: CliIo): Promise<string> {
  return source.from === 'stdin' ? passwordFromStdin(io) : source.value;
}

async function execute(command: Command, deps: CliDeps, io: CliIo): Promise<number> {
  switch (command.name) {
    case 'help':
      say(io.stdout, USAGE);
      return EXIT_OK;
    case 'user-create': {
      const { username, email, roles } = command;
      const user = await deps.createUser.execute(OPERATOR, { username, email, roles, password: await password(command.password, io) });
      say(io.stdout, `created ${describe(user)}`);
      return EXIT_OK;
    }
    case 'user-roles': {
      const user = await deps.findUser.execute(OPERATOR, command.username);
      say(io.stdout, `updated ${describe((await deps.updateUser.execute(OPERATOR, { id: user.id, roles: command.roles })).user)}`);
      return EXIT_OK;
    }
    case 'user-reset-password': {
      const user = await deps.findUser.execute(OPERATOR, command.username);
      const newPassword = await password(command.password, io);
      await deps.resetPassword.execute(OPERATOR, { userId: user.id, newPassword });
      say(io.stdout, `password reset for ${printable(user.username)}; every earlier token is revoked and every sign-in block lifted`);
      return EXIT_OK;
    }
    case 'user-unlock': {
      const user = await deps.findUser.execute(OPERATOR, command.username);
      await deps.unlockUser.execute(OPERATOR, user.id);
      say(io.stdout, `unlocked ${printable(user.username)}: every sign-in block lifted`);
      return EXIT_OK;
    }
    case 'user-disable':
    case 'user-enable': {
      const user = await deps.findUser.execute(OPERATOR, command.username);
      const updated = await deps.updateUser.execute(OPERATOR, { id: user.id, disabled: command.name === 'user-disable' });
      say(io.stdout, `updated ${describe(updated.user)}`);
      return EXIT_OK;
    }
    case 'import': {
      const owner = await deps.findUser.execute(OPERATOR, command.owner);
      const actor = actorFor(owner, OPERATOR_CREDENTIAL);
      if (owner.disabled || !canUploadBook(actor)) throw new UsageError(`${printable(owner.username)} may not upload books (disabled or no books:write)`);
      const summary = await importFolder(deps.uploadBook, actor, command.folder, io);
      return summary.failed > 0 ? EXIT_FAILED : EXIT_OK;
    }
    case 'keys-create':
    case 'keys-list':
    case 'keys-revoke':
      return runKeyCommand(command, deps, OPERATOR, io);
  }
}

/** Runs one parsed command; domain errors are reported in one line (exit 1), usage errors with the usage (exit 2). */
export async function runCommand(command: Command, deps: CliDeps, io: CliIo): Promise<number> {
  try {
    return await execute(command, deps, io);
  } catch (error) {
    if (error instanceof UsageError) return usageError(error, io);
    if (!(error instanceof DomainError)) throw error;
    const fields = error instanceof ValidationError ? error.errors.map((e) => `${e.field} ${e.message}`) : [];
    say(io.stderr, printable(`error: ${error.message} (${error.code})${fields.length > 0 ? `: ${fields.join('; ')}` : ''}`));
    return EXIT_FAILED;
  }
}

export function usageError(error: UsageError, io: CliIo): number {
  say(io.stderr, `error: ${error.message}\n\n${USAGE}`);
  return EXIT_USAGE;
}

/** The use cases one run of `stacks` drives, and how to let go of the store behind them. */
export interface CliSession {
  readonly deps: CliDeps;
  close(): Promise<void>;
}

/**
 * Runs `stacks <argv>` and returns the exit code: usage errors before anything opens, then the
 * session `open` gives (or the message it returns when the configuration is wrong: exit 1).
 */
export async function runCli(argv: readonly string[], io: CliIo, open: () => Promise<CliSession | string>): Promise<number> {
  let command;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (error instanceof UsageError) return usageError(error, io);
    throw error;
  }
  if (command.name === 'help') return runCommand(command, {} as CliDeps, io);
  const session = await open();
  if (typeof session === 'string') {
    say(io.stderr, session);
    return EXIT_FAILED;
  }
  try {
    return await runCommand(command, session.deps, io);
  } finally {
    await session.close();
  }
}

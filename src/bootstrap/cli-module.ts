import { pino, type Logger } from 'pino';
import { instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import { EXIT_FAILED, UsageError, type CliIo } from '../adapters/cli/cli-io.js';
import { parseCommand } from '../adapters/cli/commands.js';
import { runCommand, usageError, type CliDeps } from '../adapters/cli/run-cli.js';
import type { Clock, IdGenerator, PasswordHasher, UserRepository } from '../application/ports.js';
import { CreateUser } from '../application/use-cases/create-user.js';
import { FindUserByUsername } from '../application/use-cases/find-user-by-username.js';
import { ResetPassword } from '../application/use-cases/reset-password.js';
import { BOOK_TOKENS } from './books-module.js';
import { ConfigError, loadConfig } from './config.js';
import { buildContainer, type ContainerOverrides } from './container.js';
import { TOKENS as T } from './tokens.js';

/** DI tokens of the admin use cases only the command line uses. */
export const CLI_TOKENS = {
  CreateUser: Symbol('CreateUser'),
  ResetPassword: Symbol('ResetPassword'),
  FindUserByUsername: Symbol('FindUserByUsername'),
} as const;
const C = CLI_TOKENS;

function singleton<V>(di: DependencyContainer, token: symbol, factory: (c: DependencyContainer) => V): void {
  di.register<V>(token, { useFactory: instanceCachingFactory<V>(factory) });
}

/** Registers the admin use cases over the store's repositories (which buildContainer registers first). */
export function registerCli(di: DependencyContainer): void {
  const users = (c: DependencyContainer) => c.resolve<UserRepository>(T.UserRepository);
  const hasher = (c: DependencyContainer) => c.resolve<PasswordHasher>(T.PasswordHasher);
  const clock = (c: DependencyContainer) => c.resolve<Clock>(T.Clock);
  singleton(di, C.CreateUser, (c) => new CreateUser(users(c), hasher(c), clock(c), c.resolve<IdGenerator>(T.Ids)));
  singleton(di, C.ResetPassword, (c) => new ResetPassword(users(c), hasher(c), clock(c)));
  singleton(di, C.FindUserByUsername, (c) => new FindUserByUsername(users(c)));
}

export function cliDepsFrom(di: DependencyContainer): CliDeps {
  return {
    createUser: di.resolve(C.CreateUser),
    findUser: di.resolve(C.FindUserByUsername),
    updateUser: di.resolve(T.UpdateUser),
    resetPassword: di.resolve(C.ResetPassword),
    uploadBook: di.resolve(BOOK_TOKENS.UploadBook),
  };
}

/**
 * Runs `stacks <argv>` against the configured store and returns the exit code. Start-up work
 * (reconciler, bootstrap admin) is left to the server: the CLI may run beside it on the same data.
 */
export async function runStacksCli(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo, overrides: ContainerOverrides = {}): Promise<number> {
  let command;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (error instanceof UsageError) return usageError(error, io);
    throw error;
  }
  if (command.name === 'help') return runCommand(command, {} as CliDeps, io);
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr.write(`${error.message}\n`);
    return EXIT_FAILED;
  }
  const logger: Logger = pino({ level: env['LOG_LEVEL'] ? config.logLevel : 'warn' }, pino.destination({ dest: 2, sync: true }));
  const container = await buildContainer(config, logger, overrides);
  try {
    registerCli(container.di);
    return await runCommand(command, cliDepsFrom(container.di), io);
  } finally {
    await container.dispose();
  }
}

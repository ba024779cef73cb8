import { pino } from 'pino';
import { EXIT_FAILED, UsageError, type CliIo } from '../adapters/cli/cli-io.js';
import { parseCommand } from '../adapters/cli/commands.js';
import { runCommand, usageError, type CliDeps } from '../adapters/cli/run-cli.js';
import { CreateApiKey, CreateUser, FindUserByUsername, ListApiKeys, ResetPassword, RevokeApiKey, UpdateUser, UploadBook } from '../index.js';
import { ConfigError, loadConfig } from './config.js';
import { buildContainer, type ContainerOverrides } from './container.js';

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
  const logger = pino({ level: env['LOG_LEVEL'] ? config.logLevel : 'warn' }, pino.destination({ dest: 2, sync: true }));
  const { di, dispose } = await buildContainer(config, logger, overrides);
  try {
    const deps: CliDeps = {
      createUser: di.resolve(CreateUser),
      findUser: di.resolve(FindUserByUsername),
      updateUser: di.resolve(UpdateUser),
      resetPassword: di.resolve(ResetPassword),
      uploadBook: di.resolve(UploadBook),
      createApiKey: di.resolve(CreateApiKey),
      listApiKeys: di.resolve(ListApiKeys),
      revokeApiKey: di.resolve(RevokeApiKey),
    };
    return await runCommand(command, deps, io);
  } finally {
    await dispose();
  }
}

import { pino } from 'pino';
import type { CliIo } from '../adapters/cli/cli-io.js';
import { runCli } from '../adapters/cli/run-cli.js';
import { CreateApiKey, CreateUser, FindUserByUsername, ListApiKeys, ResetPassword, RevokeApiKey, UnlockUser, UpdateUser, UploadBook } from '../index.js';
import { ConfigError, loadConfig } from './config.js';
import { buildContainer, type ContainerOverrides } from './container.js';

/**
 * Runs `stacks <argv>` against the configured store and returns the exit code. Start-up work
 * (housekeeping, bootstrap admin) is left to the server: the CLI may run beside it on the same data.
 */
export function runStacksCli(argv: readonly string[], env: NodeJS.ProcessEnv, io: CliIo, overrides: ContainerOverrides = {}): Promise<number> {
  return runCli(argv, io, async () => {
    let config;
    try {
      config = loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.message;
      throw error;
    }
    const logger = pino({ level: env['LOG_LEVEL'] ? config.logLevel : 'warn' }, pino.destination({ dest: 2, sync: true }));
    const { di, dispose } = await buildContainer(config, logger, overrides);
    const deps = {
      createUser: di.resolve(CreateUser), findUser: di.resolve(FindUserByUsername), updateUser: di.resolve(UpdateUser),
      resetPassword: di.resolve(ResetPassword), unlockUser: di.resolve(UnlockUser), uploadBook: di.resolve(UploadBook),
      createApiKey: di.resolve(CreateApiKey), listApiKeys: di.resolve(ListApiKeys), revokeApiKey: di.resolve(RevokeApiKey),
    };
    return { deps, close: dispose };
  });
}

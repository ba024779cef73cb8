import type { Logger } from 'pino';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import type { Clock } from '../application/ports.js';
import type { LoginPolicies } from '../application/use-cases/login-user.js';
import { DEFAULT_LOGIN_POLICIES } from '../domain/login-throttle.js';
import { registerAdapters, type OpenedAdapters } from './adapters.js';
import type { Config } from './config.js';
import { registerUseCases } from './use-cases.js';

/** Test seams: a fixed clock and small throttling limits. */
export interface ContainerOverrides {
  readonly clock?: Clock;
  readonly loginPolicies?: LoginPolicies;
}

export interface StacksContainer extends OpenedAdapters {
  /** Ports under `PORTS` tokens, use cases under their own class. */
  readonly di: DependencyContainer;
}

/** The composition root: one child container per running service, adapters first, then use cases. */
export async function buildContainer(config: Config, logger: Logger, overrides: ContainerOverrides = {}): Promise<StacksContainer> {
  const di = rootContainer.createChildContainer();
  const adapters = await registerAdapters(di, config, logger, overrides.clock);
  registerUseCases(di, config, overrides.loginPolicies ?? DEFAULT_LOGIN_POLICIES);
  return {
    ...adapters,
    di,
    dispose: async () => {
      await adapters.dispose();
      di.clearInstances();
    },
  };
}

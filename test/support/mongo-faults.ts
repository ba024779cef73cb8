import { createRequire } from 'node:module';
import {
  MongoErrorLabel, MongoNetworkError, MongoNetworkTimeoutError, MongoOperationTimeoutError, MongoServerError, MongoServerSelectionError,
  MongoWriteConcernError, TopologyType,
} from 'mongodb';

/*
 * Failures of a replica set that fails over, as the MongoDB driver (7.9) raises them, built from the
 * driver's own classes with the codes and labels a real server sends. The pool's two error classes and
 * the topology description are not exported from the package root; they are loaded from the same
 * module instances the driver uses (mongodb has no `exports` map, so its lib files are reachable).
 */
const require = createRequire(import.meta.url);
const { PoolClearedError, WaitQueueTimeoutError } = require('mongodb/lib/cmap/errors.js') as {
  PoolClearedError: new (pool: { address: string; serverError?: Error }) => Error;
  WaitQueueTimeoutError: new (message: string, address: string) => Error;
};
const { TopologyDescription } = require('mongodb/lib/sdam/topology_description.js') as { TopologyDescription: new (type: string) => unknown };
const { Server } = require('mongodb/lib/sdam/server.js') as { Server: { prototype: { command: (...args: unknown[]) => Promise<unknown> } } };
const { Topology } = require('mongodb/lib/sdam/topology.js') as { Topology: { prototype: { selectServer: (...args: unknown[]) => Promise<unknown> } } };

/** What a server sends for a step-down or a shutdown: the code, its name, and the label a retryable write gets. */
const serverError = (code: number, codeName: string, labels: string[] = [MongoErrorLabel.RetryableWriteError]) =>
  new MongoServerError({ ok: 0, code, codeName, errmsg: `${codeName} (synthesised)`, errorLabels: labels });

/** Each failover condition, by name: a fresh error each time (the driver mutates labels). */
export const FAILOVER_ERRORS: Readonly<Record<string, () => Error>> = {
  'server selection timed out (no primary)': () =>
    new MongoServerSelectionError('Server selection timed out after 10000 ms', new TopologyDescription(TopologyType.ReplicaSetNoPrimary) as never),
  'network error': () => new MongoNetworkError('connection 3 to 10.0.0.1:27017 closed'),
  'network timeout': () => new MongoNetworkTimeoutError('connection 4 to 10.0.0.1:27017 timed out'),
  'pool cleared': () => new PoolClearedError({ address: '10.0.0.1:27017', serverError: new Error('not primary') }),
  'wait-queue timeout (waitQueueTimeoutMS)': () => new WaitQueueTimeoutError('Timed out while checking out a connection from connection pool', '10.0.0.1:27017'),
  'operation timeout': () => new MongoOperationTimeoutError('Timed out during operation'),
  'NotWritablePrimary (10107)': () => serverError(10107, 'NotWritablePrimary'),
  'NotPrimaryNoSecondaryOk (13435)': () => serverError(13435, 'NotPrimaryNoSecondaryOk'),
  'PrimarySteppedDown (189)': () => serverError(189, 'PrimarySteppedDown'),
  'InterruptedDueToReplStateChange (11602)': () => serverError(11602, 'InterruptedDueToReplStateChange'),
  'ShutdownInProgress (91)': () => serverError(91, 'ShutdownInProgress'),
  'InterruptedAtShutdown (11600)': () => serverError(11600, 'InterruptedAtShutdown'),
  'ExceededTimeLimit (262)': () => serverError(262, 'ExceededTimeLimit'),
  'MaxTimeMSExpired (50)': () => serverError(50, 'MaxTimeMSExpired', []),
  'wtimeout: write concern majority not met in time (64)': () => new MongoWriteConcernError({
    ok: 1, n: 1, writeConcernError: { code: 64, codeName: 'WriteConcernFailed', errmsg: 'waiting for replication timed out', errInfo: { wtimeout: true } },
  }),
  'TransientTransactionError label': () => serverError(112, 'WriteConflict', [MongoErrorLabel.TransientTransactionError]),
  'ResetPool label': () => Object.assign(serverError(0, 'ConnectionReset', [MongoErrorLabel.ResetPool]), { code: undefined }),
};

/** Where the driver meets the failure: in server selection (before any command), or on the command itself. */
export type FaultPoint = 'selection' | 'command';

export interface Fault {
  readonly error: () => Error;
  /** Commands on these collections fail (every command when absent); server selection fails for every operation. */
  readonly collections?: readonly string[];
  /** Only these commands fail, by name (`commitTransaction`, `abortTransaction`: commands the driver runs itself). */
  readonly commands?: readonly string[];
  readonly at?: FaultPoint;
  /** Heals by itself after failing this many operations (as MongoDB's `failCommand` fail point's `times`). */
  readonly times?: number;
}

export interface FaultInjector {
  /** From now on, the driver answers matching operations with the fault's error (after its own retry, which fails the same way). */
  fail(fault: Fault): void;
  heal(): void;
  /** Puts the driver back as it was. */
  restore(): void;
}

/**
 * Patches the driver (this process only) so operations fail as during a failover: `Server.command`
 * (under the driver's retryable reads and writes and its transaction retries) or
 * `Topology.selectServer` throws the fault's error. Nothing of Stacks is replaced.
 */
export function injectFaults(): FaultInjector {
  let fault: Fault | null = null;
  let left = Infinity;
  const command = Server.prototype.command;
  const selectServer = Topology.prototype.selectServer;
  /** The fault's error, counting one failure towards its `times`. */
  const failure = (current: Fault): Error => {
    if ((left -= 1) <= 0) fault = null;
    return current.error();
  };
  const hits = (operation: unknown) => {
    const collection = (operation as { ns?: { collection?: string } }).ns?.collection;
    const command = Object.keys((operation as { command?: object }).command ?? {})[0];
    return fault !== null && (fault.collections === undefined || (collection !== undefined && fault.collections.includes(collection))) &&
      (fault.commands === undefined || (command !== undefined && fault.commands.includes(command)));
  };
  Server.prototype.command = async function failingCommand(this: unknown, ...args: unknown[]) {
    if ((fault?.at ?? 'command') === 'command' && hits(args[0])) throw failure(fault!);
    return command.apply(this, args);
  };
  Topology.prototype.selectServer = async function failingSelection(this: unknown, ...args: unknown[]) {
    if (fault?.at === 'selection') throw failure(fault);
    return selectServer.apply(this, args);
  };
  return {
    fail: (next) => {
      fault = next;
      left = next.times ?? Infinity;
    },
    heal: () => {
      fault = null;
    },
    restore: () => {
      Server.prototype.command = command;
      Topology.prototype.selectServer = selectServer;
    },
  };
}

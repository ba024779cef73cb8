/**
 * runPaced in a process of its own, so the stream's timing is not disturbed by whatever else the
 * benchmark's event loop does (e.g. sending a burst). Started with `fork`; runs one stream per message.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { runPaced, type PacedRequest, type PacedResult } from './paced.js';

/** A paced stream of one fixed request, as sent to the child. */
export interface PacedStream {
  readonly rate: number;
  readonly durationMs: number;
  readonly request: PacedRequest;
}

/** A forked process that runs paced streams, one at a time. */
export interface PacedProcess {
  run(stream: PacedStream): Promise<PacedResult>;
  close(): Promise<void>;
}

/** Forks this file under tsx; the child answers each stream with its PacedResult. */
export function startPacedProcess(): PacedProcess {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    async run(stream) {
      const answer = once(child, 'message') as Promise<[PacedResult]>;
      child.send(stream);
      return (await answer)[0];
    },
    async close() {
      process.off('exit', killOnExit);
      child.disconnect();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.on('message', (stream: PacedStream) => {
    void runPaced({ rate: stream.rate, durationMs: stream.durationMs, next: () => stream.request }).then((result) => {
      if (process.connected) process.send!(result);
    });
  });
}

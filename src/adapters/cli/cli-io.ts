import { text } from 'node:stream/consumers';

/** Where a command writes and what it may read; process streams in production, buffers in tests. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { readonly isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { readonly isTTY?: boolean };
  /** The whole of standard input, as UTF-8 text. */
  readStdin(): Promise<string>;
}

/** Bad arguments: the command prints usage and exits 2. */
export class UsageError extends Error {}

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export function say(stream: NodeJS.WritableStream, line: string): void {
  stream.write(`${line}\n`);
}

/** Reads a password from standard input: the first line, without its line ending. */
export async function passwordFromStdin(io: CliIo): Promise<string> {
  const text = await io.readStdin();
  const password = text.split(/\r?\n/)[0] ?? '';
  if (password === '') throw new UsageError('no password on standard input');
  return password;
}

/** Runs the program on the process's streams and sets its exit code; an unexpected error is one line on stderr, exit 1. */
export function runOnProcess(program: (io: CliIo) => Promise<number>): void {
  const io: CliIo = { stdout: process.stdout, stderr: process.stderr, readStdin: () => text(process.stdin) };
  program(io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      say(process.stderr, `stacks: ${(error as Error).message}`);
      process.exitCode = EXIT_FAILED;
    },
  );
}

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

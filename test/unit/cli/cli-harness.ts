import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { CliIo } from '../../../src/adapters/cli/cli-io.js';
import { createSqliteStore, type SqliteStore } from '../../../src/adapters/sqlite/sqlite-store.js';
import { runStacksCli } from '../../../src/bootstrap/run-stacks-cli.js';
import { TEST_JWT_SECRET } from '../../support/test-app.js';

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function capture(isTTY: boolean): { stream: PassThrough & { isTTY?: boolean }; text: () => string } {
  const stream: PassThrough & { isTTY?: boolean } = new PassThrough();
  if (isTTY) Object.assign(stream, { isTTY: true, columns: 100 });
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** A temp DATA_DIR holding an embedded SQLite store, and the CLI run in-process against it. */
export class CliHarness {
  readonly dataDir = mkdtempSync(join(tmpdir(), 'stacks-cli-'));
  readonly env = { DATA_DIR: this.dataDir, JWT_SECRET: TEST_JWT_SECRET, BCRYPT_COST: '4', LOG_LEVEL: 'silent' };

  async run(argv: string[], options: { stdin?: string; tty?: boolean } = {}): Promise<CliRun> {
    const out = capture(false);
    const err = capture(options.tty ?? false);
    const io: CliIo = { stdout: out.stream, stderr: err.stream, readStdin: async () => options.stdin ?? '' };
    const code = await runStacksCli(argv, this.env, io);
    return { code, stdout: out.text(), stderr: err.text() };
  }

  /** Opens the same store directly, runs the check, closes it. */
  async inStore<T>(check: (store: SqliteStore) => Promise<T>): Promise<T> {
    const store = createSqliteStore(this.dataDir);
    try {
      return await check(store);
    } finally {
      await store.close();
    }
  }

  cleanup(): void {
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STORAGE_SWEEP_GRACE_MS } from '../../src/application/use-cases/reconcile-book-storage.js';
import { ageStorage, checkStorage, noViolations } from '../../bench/lib/crash-checks.js';
import { runCrashCycles } from '../../bench/lib/crash-harness.js';
import { api, sendUpload, sha256 } from '../../bench/lib/crash-workload.js';
import { startStacksOn } from '../../bench/lib/source-stacks.js';

// Bounded form of bench/crash.ts (DUR-01..05): Stacks from src/ through tsx, so no build is needed.
describe('crash consistency (SIGKILL during concurrent writes)', () => {
  it('loses no acknowledged write and leaves no dangling record or orphan file over 3 seeded kill cycles', async () => {
    const report = await runCrashCycles({ cycles: 3, seed: 42, source: 'src', log: (m) => process.stderr.write(`${m}\n`) });
    process.stderr.write(`${report.summary}\n`);
    expect(report.violations.details).toEqual([]);
    expect(report.acknowledged).toBeGreaterThanOrEqual(3 * 50);
    expect(report.records).toBeGreaterThanOrEqual(150);
  }, 600_000);

  it('the storage check reports a truncated book file, a planted orphan and a leftover temp file', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'stacks-crash-control-'));
    const server = await startStacksOn({ dataDir, jwtSecret: randomBytes(48).toString('base64url'), source: 'src' });
    try {
      const owner = await api(server.url, '/api/auth/register', { method: 'POST', json: { username: 'owner', email: 'o@x.example', password: 'control password 1' } });
      const bytes = Buffer.from(`A control book\n\n${'words and more words '.repeat(200)}`);
      const upload = await sendUpload(server.url, owner.body.access_token, { fileName: 'control.txt', bytes, sha256: sha256(bytes) });
      expect(upload.status).toBe(201);
      const clean = noViolations();
      expect(await checkStorage(dataDir, clean)).toBe(1);
      expect(clean.details).toEqual([]);

      await appendFile(join(dataDir, 'books', `${upload.body.id}.book`), 'x');
      await writeFile(join(dataDir, 'books', 'stray.book'), 'orphan');
      await mkdir(join(dataDir, 'tmp'), { recursive: true });
      await writeFile(join(dataDir, 'tmp', 'left.part'), 'temp');
      const found = noViolations();
      await checkStorage(dataDir, found);
      expect({ dangling: found.dangling, orphans: found.orphans }).toEqual({ dangling: 1, orphans: 2 });

      await server.kill();
      await ageStorage(dataDir, 2 * STORAGE_SWEEP_GRACE_MS);
      const restarted = await startStacksOn({ dataDir, jwtSecret: randomBytes(48).toString('base64url'), source: 'src' });
      // Housekeeping runs after listening: wait for its sweep (however slow the machine), then stop.
      const swept = async () => (await readdir(join(dataDir, 'books'))).length === 1 && (await readdir(join(dataDir, 'tmp'))).length === 0;
      while (!(await swept())) await new Promise((resolve) => setTimeout(resolve, 100));
      await restarted.stop();
      expect((await readdir(join(dataDir, 'books'))).sort()).toEqual([`${upload.body.id}.book`]);
      expect(await readdir(join(dataDir, 'tmp'))).toEqual([]);
    } finally {
      await server.stop(2_000);
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface JwtSecret {
  readonly secret: string;
  /** True when this call created the secret file. */
  readonly generated: boolean;
  /** True when the kept file is readable or writable by group or others (the caller should warn). */
  readonly insecureMode: boolean;
}

const FILE_NAME = 'jwt-secret';
const MIN_BYTES = 32;

/** Reads `<dataDir>/jwt-secret` without following a symlink; null when it does not exist. */
function readSecretFile(path: string): { secret: string; mode: number } | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`Cannot read the JWT secret file ${path}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`The JWT secret file ${path} is not a regular file`);
    const secret = readFileSync(fd, 'utf8').trim();
    if (Buffer.byteLength(secret) < MIN_BYTES) throw new Error(`The JWT secret file ${path} holds fewer than ${MIN_BYTES} bytes`);
    return { secret, mode: stat.mode & 0o777 };
  } finally {
    closeSync(fd);
  }
}

/** Writes the secret to a private temp file, then links it into place: never clobbers, never half-written. */
function createSecretFile(dataDir: string, path: string, secret: string): boolean {
  const temp = join(dataDir, `.${FILE_NAME}.${randomBytes(8).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${secret}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false; // another process won the race
    throw e;
  } finally {
    unlinkSync(temp);
    const dir = openSync(dataDir, 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  }
}

/** The configured JWT secret, else the one kept in DATA_DIR, else a new 384-bit one written there (mode 0600). */
export function loadOrCreateJwtSecret(dataDir: string, configured?: string): JwtSecret {
  if (configured !== undefined && configured !== '') return { secret: configured, generated: false, insecureMode: false };
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, FILE_NAME);
  let generated = false;
  if (readSecretFile(path) === null) generated = createSecretFile(dataDir, path, randomBytes(48).toString('base64url'));
  const kept = readSecretFile(path);
  if (kept === null) throw new Error(`The JWT secret file ${path} disappeared while starting`);
  return { secret: kept.secret, generated, insecureMode: (kept.mode & 0o077) !== 0 };
}

/** Where the JWT secret comes from: JWT_SECRET, else DATA_DIR's file; a store with no DATA_DIR (`memory:`) gets a fresh one per process. */
export interface JwtSecretSource {
  readonly configured: string | undefined;
  readonly dataDir: string;
  readonly ephemeral: boolean;
}

/** The secret to sign with; warns when one was generated into DATA_DIR, or its file is readable by others. */
export function jwtSecretFrom(source: JwtSecretSource, warn: (details: object, message: string) => void): string {
  if (source.configured) return source.configured;
  if (source.ephemeral) return randomBytes(48).toString('base64url');
  const { secret, generated, insecureMode } = loadOrCreateJwtSecret(source.dataDir);
  if (generated) warn({ file: 'DATA_DIR/jwt-secret' }, 'JWT_SECRET is not set: generated one and kept it in DATA_DIR');
  if (insecureMode) warn({ file: 'DATA_DIR/jwt-secret' }, 'the JWT secret file is readable by others: chmod 600 it');
  return secret;
}

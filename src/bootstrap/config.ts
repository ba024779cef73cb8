import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { isRoleName, type RoleName } from '../domain/permissions.js';

const DURATION = /^(\d+)\s*(s|m|h|d)?$/;
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;

/** Parses `90d`, `12h`, `30m`, `45s` or a bare number of seconds. */
export function parseDurationSeconds(value: string): number | null {
  const match = DURATION.exec(value.trim());
  if (!match) return null;
  const seconds = Number(match[1]) * UNIT_SECONDS[(match[2] ?? 's') as keyof typeof UNIT_SECONDS];
  return seconds > 0 && Number.isSafeInteger(seconds) ? seconds : null;
}

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
    .optional()
    .transform((v) => (v === undefined ? fallback : ['true', '1', 'yes'].includes(v)));

const int = (fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    });

const optionalText = z.string().trim().min(1).optional().or(z.literal('').transform(() => undefined));
const list = z
  .string()
  .optional()
  .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean));
const role = z.string().refine(isRoleName, 'must be one of admin, user, reader').transform((r) => r as RoleName);

const roleMap = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const map = new Map<string, RoleName>();
    for (const pair of (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
      const [claim, mapped] = pair.split(':').map((s) => s.trim());
      if (!claim || !mapped || !isRoleName(mapped)) {
        ctx.addIssue({ code: 'custom', message: `'${pair}' must be claim-value:role with role admin, user or reader` });
        return z.NEVER;
      }
      map.set(claim, mapped);
    }
    return map;
  });

const envSchema = z
  .object({
    PORT: int(8000, 0, 65535),
    HOST: z.string().min(1).default('0.0.0.0'),
    PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
    DATABASE_URL: z
      .string()
      .optional()
      .refine((v) => !v || v === 'memory:' || /^mongodb(\+srv)?:\/\/./.test(v), 'must be unset, memory: or a mongodb:// URL'),
    DATA_DIR: z.string().min(1).default('./data'),
    JWT_SECRET: z
      .string()
      .optional()
      .refine((v) => v === undefined || Buffer.byteLength(v) >= 32, 'must be at least 32 bytes'),
    JWT_EXPIRES_IN: z
      .string()
      .default('90d')
      .transform((v, ctx) => parseDurationSeconds(v) ?? (ctx.addIssue({ code: 'custom', message: 'must be a duration like 90d, 12h, 30m or seconds' }), z.NEVER)),
    BCRYPT_COST: int(10, 4, 15),
    REGISTRATION: z.enum(['open', 'closed']).default('open'),
    DEFAULT_ROLE: role.default('user'),
    ADMIN_USERNAME: optionalText,
    ADMIN_EMAIL: optionalText,
    ADMIN_PASSWORD: optionalText,
    MAX_UPLOAD_MB: int(200, 1, 100_000),
    LOCAL_LOGIN: bool(true),
    OIDC_ISSUER: z.url().optional().or(z.literal('').transform(() => undefined)),
    OIDC_CLIENT_ID: optionalText,
    OIDC_CLIENT_SECRET: optionalText,
    OIDC_SCOPES: z.string().default('openid profile email'),
    OIDC_ROLES_CLAIM: optionalText,
    OIDC_ROLE_MAP: roleMap,
    OIDC_ALLOW_HTTP: bool(false),
    CORS_ORIGINS: list.pipe(z.array(z.url({ message: 'must be a comma-separated list of origins' }))),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    TRUST_PROXY: int(0, 0, 10),
    MAX_CONNECTIONS_PER_ADDRESS: int(64, 1, 1_000_000),
    RATE_LIMIT_PER_MINUTE: int(6000, 0, 1_000_000),
    REGISTER_LIMIT_PER_HOUR: int(30, 0, 1_000_000),
    KOBO_STORE_FORWARDING: bool(false),
    KOBO_STORE_URL: z.url({ protocol: /^https?$/ }).default('https://storeapi.kobo.com'),
    WORKERS: int(0, 1, 256), // 0: unset (the number of CPUs; 1 with memory:)
  })
  .superRefine((env, ctx) => {
    const admin = [env.ADMIN_USERNAME, env.ADMIN_PASSWORD];
    if (admin.some(Boolean) && !admin.every(Boolean)) {
      ctx.addIssue({ code: 'custom', path: ['ADMIN_PASSWORD'], message: 'ADMIN_USERNAME and ADMIN_PASSWORD must be set together' });
    }
    if (env.DATABASE_URL?.startsWith('mongodb') && !env.JWT_SECRET) {
      ctx.addIssue({ code: 'custom', path: ['JWT_SECRET'], message: 'is required with a mongodb:// DATABASE_URL: every instance must sign and check tokens with the same secret' });
    }
    if (env.DATABASE_URL === 'memory:' && env.WORKERS > 1) {
      ctx.addIssue({ code: 'custom', path: ['WORKERS'], message: 'must be 1 with DATABASE_URL=memory: (each process would hold its own store)' });
    }
    if (env.OIDC_ISSUER && !env.OIDC_CLIENT_ID) {
      ctx.addIssue({ code: 'custom', path: ['OIDC_CLIENT_ID'], message: 'is required when OIDC_ISSUER is set' });
    }
    if (env.OIDC_ISSUER?.startsWith('http:') && !(env.OIDC_ALLOW_HTTP && isLoopback(env.OIDC_ISSUER))) {
      ctx.addIssue({ code: 'custom', path: ['OIDC_ISSUER'], message: 'must be https (http only on loopback with OIDC_ALLOW_HTTP=true)' });
    }
  });

function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export type StoreConfig = { kind: 'sqlite'; dataDir: string } | { kind: 'memory'; dataDir: string } | { kind: 'mongo'; url: string; dataDir: string };

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string;
  /** PUBLIC_URL was given; when not, `publicUrl` is the localhost default and OPDS uses each request's own origin. */
  readonly publicUrlConfigured: boolean;
  readonly store: StoreConfig;
  readonly dataDir: string;
  readonly jwtSecret: string | undefined;
  readonly jwtExpiresInSeconds: number;
  readonly bcryptCost: number;
  readonly registrationOpen: boolean;
  readonly defaultRole: RoleName;
  readonly admin: { username: string; email: string | undefined; password: string } | null;
  readonly maxUploadBytes: number;
  readonly localLogin: boolean;
  readonly oidc: {
    issuer: string;
    clientId: string;
    clientSecret: string | undefined;
    scopes: string;
    rolesClaim: string | undefined;
    roleMap: ReadonlyMap<string, RoleName>;
    allowHttp: boolean;
  } | null;
  readonly corsOrigins: readonly string[];
  readonly logLevel: string;
  readonly trustProxy: number;
  /** Open connections (behind a proxy: requests in flight) one client address may hold. */
  readonly maxConnectionsPerAddress: number;
  /** Per-address budgets: requests per minute and registration attempts per hour (0: off). */
  readonly rateLimits: { readonly perMinute: number; readonly registrationsPerHour: number };
  /** Kobo sync: whether what Stacks does not answer goes on to the Kobo store, and where that is. */
  readonly kobo: { readonly storeForwarding: boolean; readonly storeUrl: string };
  /** Server processes on one port (WORKERS): the number of CPUs unless set, always 1 with `memory:`. */
  readonly workers: number;
}

export class ConfigError extends Error {}

/** Parses and validates the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${String(i.path[0] ?? 'environment')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  const dataDir = e.DATA_DIR;
  const store: StoreConfig = !e.DATABASE_URL
    ? { kind: 'sqlite', dataDir }
    : e.DATABASE_URL === 'memory:'
      ? { kind: 'memory', dataDir }
      : { kind: 'mongo', url: e.DATABASE_URL, dataDir };
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    publicUrlConfigured: e.PUBLIC_URL !== undefined,
    store,
    dataDir,
    jwtSecret: e.JWT_SECRET,
    jwtExpiresInSeconds: e.JWT_EXPIRES_IN,
    bcryptCost: e.BCRYPT_COST,
    registrationOpen: e.REGISTRATION === 'open',
    defaultRole: e.DEFAULT_ROLE,
    admin: e.ADMIN_USERNAME && e.ADMIN_PASSWORD ? { username: e.ADMIN_USERNAME, email: e.ADMIN_EMAIL, password: e.ADMIN_PASSWORD } : null,
    maxUploadBytes: e.MAX_UPLOAD_MB * 1024 * 1024,
    localLogin: e.LOCAL_LOGIN,
    oidc: e.OIDC_ISSUER && e.OIDC_CLIENT_ID
      ? {
          issuer: e.OIDC_ISSUER,
          clientId: e.OIDC_CLIENT_ID,
          clientSecret: e.OIDC_CLIENT_SECRET,
          scopes: e.OIDC_SCOPES,
          rolesClaim: e.OIDC_ROLES_CLAIM,
          roleMap: e.OIDC_ROLE_MAP,
          allowHttp: e.OIDC_ALLOW_HTTP,
        }
      : null,
    corsOrigins: e.CORS_ORIGINS.map((o) => new URL(o).origin),
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    maxConnectionsPerAddress: e.MAX_CONNECTIONS_PER_ADDRESS,
    rateLimits: { perMinute: e.RATE_LIMIT_PER_MINUTE, registrationsPerHour: e.REGISTER_LIMIT_PER_HOUR },
    kobo: { storeForwarding: e.KOBO_STORE_FORWARDING, storeUrl: e.KOBO_STORE_URL.replace(/\/+$/, '') },
    workers: store.kind === 'memory' ? 1 : e.WORKERS || availableParallelism(),
  };
}

/** Reads `.env` from the working directory into process.env (variables already set win). */
export function loadDotEnv(path = '.env'): void {
  if (existsSync(path)) process.loadEnvFile(path);
}

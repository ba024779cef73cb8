/** A signed-in benchmark account. */
export interface BenchSession {
  readonly username: string;
  readonly password: string;
  readonly token: string;
  readonly userId: string;
}

/** The password every benchmark account gets unless told otherwise. */
export const BENCH_PASSWORD = 'bench password 0123';

/** Registers `username` (the first account on a fresh server becomes admin) and returns its session. */
export async function registerUser(baseUrl: string, username: string, password = BENCH_PASSWORD): Promise<BenchSession> {
  const res = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, email: `${username}@bench.example`, password }),
  });
  return sessionFrom(res, `register ${username}`, username, password);
}

/** Logs in with username (or e-mail) and password; throws unless 200. */
export async function logIn(baseUrl: string, username: string, password = BENCH_PASSWORD): Promise<BenchSession> {
  const res = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  return sessionFrom(res, `login ${username}`, username, password);
}

/** Registers `count` users named `${prefix}${i}`, `parallel` at a time (each costs one bcrypt hash). */
export async function registerUsers(baseUrl: string, prefix: string, count: number, parallel = 4): Promise<BenchSession[]> {
  const sessions: BenchSession[] = [];
  for (let i = 0; i < count; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - i) }, (_, k) => registerUser(baseUrl, `${prefix}${i + k}`));
    sessions.push(...(await Promise.all(batch)));
  }
  return sessions;
}

/** `{ authorization: 'Bearer …' }`. */
export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

async function sessionFrom(res: Response, what: string, username: string, password: string): Promise<BenchSession> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as { access_token: string; user: { id: string } };
  return { username, password, token: body.access_token, userId: body.user.id };
}

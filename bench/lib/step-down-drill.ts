/**
 * The step-down drill: writers and readers keep a running Stacks busy while the MongoDB primary steps
 * down; afterwards every write Stacks acknowledged must still be there, and no answer may have been a
 * 5xx other than 503 with Retry-After (what a client retries). The same logic runs against a real
 * replica set (bench/mongo-step-down-drill.ts, `replSetStepDown`; .github/workflows/mongo.yml) and,
 * in the ordinary suite, against the stand-in with the driver failing as during a step-down
 * (test/integration/mongo-step-down-drill.test.ts).
 */

export interface DrillOptions {
  /** Stacks' base URL, and a bearer token of an account that may write shelves. */
  readonly url: string;
  readonly token: string;
  readonly writers: number;
  readonly readers: number;
  /** Requests each writer and each reader sends in all. */
  readonly requestsEach: number;
  /** Acknowledged writes before the step-down starts. */
  readonly stepDownAfter: number;
  /** Steps the primary down (or makes the driver fail as it does during a step-down); awaited alongside the traffic. */
  readonly stepDown: () => Promise<void>;
  /** After the traffic, before the final check: lets the set elect its new primary (or heals the synthesised fault). */
  readonly settle?: () => Promise<void>;
  /** A name no other run uses, for the shelves the writers create. */
  readonly run: string;
}

export interface DrillAnswer {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly retryAfter: string | null;
  readonly body: string;
}

export interface DrillReport {
  readonly requests: number;
  readonly acknowledged: number;
  /** 503 answers carrying Retry-After: the failover as a client should see it. */
  readonly unavailable: number;
  /** Every other 5xx (a 500, or a 503 without Retry-After), and requests that got no answer at all (status 0). */
  readonly serverErrors: readonly DrillAnswer[];
  /** Acknowledged shelves a read answered 404 for, during the traffic or at the end. */
  readonly lost: readonly string[];
  /** True when no server error was seen and no acknowledged write was lost. */
  readonly passed: boolean;
}

/** How often the final check asks again for an acknowledged shelf while the store answers 503. */
const FINAL_ATTEMPTS = 30;
/** How long one request may take before it counts as unanswered. */
const REQUEST_TIMEOUT_MS = 60_000;

export async function runDrill(options: DrillOptions): Promise<DrillReport> {
  const answers: DrillAnswer[] = [];
  const acknowledged: string[] = [];
  const lost = new Set<string>();
  let stepDown: Promise<void> | null = null;
  const attempt = async (method: string, path: string, body?: unknown): Promise<DrillAnswer> => {
    const response = await fetch(`${options.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${options.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    return { method, path, status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.text() };
  };
  // A connection the client reused just as the server closed it idle fails before any answer: sent once more, as
  // clients do. Twice without an answer counts as no answer at all (status 0), which fails the drill.
  const send = async (method: string, path: string, body?: unknown): Promise<DrillAnswer> => {
    let answer: DrillAnswer;
    try {
      answer = await attempt(method, path, body);
    } catch {
      answer = await attempt(method, path, body).catch((error: unknown) => ({ method, path, status: 0, retryAfter: null, body: describeError(error) }));
    }
    answers.push(answer);
    return answer;
  };

  const writer = async (w: number) => {
    for (let i = 0; i < options.requestsEach; i++) {
      const answer = await send('POST', '/api/shelves', { name: `drill ${options.run} ${w}-${i}` });
      if (answer.status === 201) acknowledged.push((JSON.parse(answer.body) as { id: string }).id);
      if (stepDown === null && acknowledged.length >= options.stepDownAfter) stepDown = options.stepDown();
    }
  };
  const reader = async (r: number) => {
    for (let i = 0; i < options.requestsEach; i++) {
      const id = acknowledged[(r * 7 + i * 13) % Math.max(1, acknowledged.length)];
      if (id === undefined) {
        await send('GET', '/api/shelves?page_size=5');
        continue;
      }
      if ((await send('GET', `/api/shelves/${id}`)).status === 404) lost.add(id);
    }
  };
  await Promise.all([...Array.from({ length: options.writers }, (_, w) => writer(w)), ...Array.from({ length: options.readers }, (_, r) => reader(r))]);
  await (stepDown ?? options.stepDown());
  await options.settle?.();
  // Every acknowledged write must read back now; a store still unavailable (503) is asked again, a few times.
  for (const id of acknowledged) {
    let answer = await send('GET', `/api/shelves/${id}`);
    for (let attempt = 1; answer.status === 503 && attempt < FINAL_ATTEMPTS; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      answer = await send('GET', `/api/shelves/${id}`);
    }
    if (answer.status !== 200) lost.add(id);
  }
  const serverErrors = answers.filter((a) => a.status === 0 || (a.status >= 500 && !(a.status === 503 && a.retryAfter !== null)));
  return {
    requests: answers.length,
    acknowledged: acknowledged.length,
    unavailable: answers.filter((a) => a.status === 503 && a.retryAfter !== null).length,
    serverErrors,
    lost: [...lost],
    passed: serverErrors.length === 0 && lost.size === 0,
  };
}

/** An error with its causes (fetch's own message, "fetch failed", says nothing of what the socket saw). */
function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e !== undefined && parts.length < 4; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    parts.push(`${String(e)}${typeof code === 'string' ? ` [${code}]` : ''}`);
    if (typeof e !== 'object' || e === null) break;
  }
  return parts.join(' <- ');
}

/** How far past its `exp` (and how far before its `iat`) a token is still accepted, for clocks that disagree a little. */
export const TOKEN_CLOCK_TOLERANCE_SECONDS = 30;

/** Until when a revoked token must stay denied: its expiry plus the clock tolerance that still accepts it. */
export function revokedUntil(tokenExpiresAt: Date): Date {
  return new Date(tokenExpiresAt.getTime() + TOKEN_CLOCK_TOLERANCE_SECONDS * 1000);
}

/** Whether a token that expires at `tokenExpiresAt` is still accepted at `now` (the same tolerance as verification). */
export function tokenStillAccepted(tokenExpiresAt: Date, now: Date): boolean {
  return now.getTime() <= revokedUntil(tokenExpiresAt).getTime();
}

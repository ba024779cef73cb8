import type { IndexDescription } from 'mongodb';

/** The indexes of `known_addresses`: an account's addresses by recency, and the TTL (30 days after the last sign-in). */
export const KNOWN_ADDRESS_INDEXES: IndexDescription[] = [
  { key: { userId: 1, lastSignInAt: -1 }, name: 'known_addresses_user_recent' },
  { key: { expiresAt: 1 }, name: 'known_addresses_ttl', expireAfterSeconds: 0 },
];

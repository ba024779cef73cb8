/** The BSON type order MongoDB sorts mixed values by: null and missing, numbers, strings, then dates. */
function typeRank(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'number') return 1;
  if (typeof value === 'string') return 2;
  if (value instanceof Date) return 3;
  return 4;
}

/** Two values as MongoDB's sort compares them: by type, numbers and dates by value, strings by their UTF-8 bytes (code point order). */
function compareValues(a: unknown, b: unknown): number {
  const rank = typeRank(a) - typeRank(b);
  if (rank !== 0) return rank;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (a instanceof Date && b instanceof Date) return a.getTime() - b.getTime();
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return 0;
}

/**
 * Compares two documents by a sort specification the way the server orders them, for merging the
 * sorted results of several queries (each already in the server's order) into one order.
 */
export function compareBySort(a: object, b: object, sort: Readonly<Record<string, 1 | -1>>): number {
  for (const [field, direction] of Object.entries(sort)) {
    const order = compareValues((a as Record<string, unknown>)[field], (b as Record<string, unknown>)[field]);
    if (order !== 0) return direction * order;
  }
  return 0;
}

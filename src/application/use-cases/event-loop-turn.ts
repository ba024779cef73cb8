/**
 * Resolves on a later turn of the event loop (a timer, so pending I/O is served first). Long housekeeping
 * walks await it between batches: a store whose calls finish synchronously (SQLite) would otherwise run
 * every batch in one stretch of microtasks, with no request served until the walk ends.
 */
export function nextTurnOfEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

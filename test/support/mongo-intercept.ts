import type { Collection, Db } from 'mongodb';

/** Everything else of `target` as it is, its methods bound to it. */
const passThrough = <T extends object>(target: T, property: string | symbol): unknown => {
  const value: unknown = Reflect.get(target, property, target);
  return typeof value === 'function' ? value.bind(target) : value;
};

/**
 * The database with the first call of `method` on collection `name` answered by `onFirstCall` instead
 * of the server (a synthesised server error, or a rival writer let in first); every later call goes through.
 */
export function interceptFirstCall(db: Db, name: string, method: keyof Collection, onFirstCall: () => Promise<never>): Db {
  let fired = false;
  const intercepted = (collection: Collection): Collection => new Proxy(collection, {
    get(target, property) {
      if (property !== method || fired) return passThrough(target, property);
      return async () => {
        fired = true;
        return onFirstCall();
      };
    },
  });
  return new Proxy(db, {
    get(target, property) {
      if (property !== 'collection') return passThrough(target, property);
      return (collectionName: string) => (collectionName === name ? intercepted(target.collection(collectionName)) : target.collection(collectionName));
    },
  });
}

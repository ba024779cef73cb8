import { actorFor, OPERATOR_CREDENTIAL, type Actor } from '../../src/domain/actor.js';
import type { RoleName } from '../../src/domain/permissions.js';

/**
 * An actor whose id and username are both `name`, with no account in any store: it acts with the
 * operator credential, so use cases take its roles as given (storeUser's actors are confirmed instead).
 */
export const anActor = (roles: RoleName | readonly RoleName[], name = `${[roles].flat().join('-') || 'nobody'}-1`): Actor =>
  actorFor({ id: name, username: name, roles: [roles].flat() as RoleName[] }, OPERATOR_CREDENTIAL);

export const anAdmin = (name = 'root'): Actor => anActor('admin', name);
/** Role `user`: reads and writes books and shelves. */
export const aMember = (name = 'alice'): Actor => anActor('user', name);
export const aReader = (name = 'rita'): Actor => anActor('reader', name);
/** No role, so no permission at all. */
export const aNobody = (name = 'nobody'): Actor => anActor([], name);

export const alice = aMember('alice');
export const bob = aMember('bob');
export const admin = anAdmin('root');
export const reader = aReader('rita');
export const nobody = aNobody('nobody');

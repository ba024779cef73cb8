/** The test kit: one import for clocks, ids, actors, builders, errors and the use-case worlds. */
export { aMember, aNobody, aReader, admin, alice, anActor, anAdmin, bob, nobody, reader } from './actors.js';
export { aBookWorld, BOOK_OWNER, sourceOf, storeBookWithFiles, storeOwnedBook, textOf, type BookWorld } from './book-world.js';
export { aBook, aShelf, aUser, fakeSha256, instant } from './builders.js';
export { FakeClock, TEST_NOW } from './clock.js';
export { errorOf } from './errors.js';
export { SequentialIds } from './ids.js';
export { FakeOidcProvider, someClaims, TEST_ISSUER } from './oidc-provider.js';
export { PlainPasswordHasher } from './password-hasher.js';
export { GatedPasswordHasher, type HashGate } from './gated-password-hasher.js';
export { SequentialSecrets } from './secrets.js';
export { aShelfWorld, aWorld, type World, type WorldFiles, type WorldOptions } from './use-case-world.js';
export { DEFAULT_WORLD_SETTINGS, type WorldSettings } from './world-settings.js';
export { aKoboSession, KOBO_ADDRESS } from './kobo-session.js';

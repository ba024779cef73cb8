import type { Actor } from '../../domain/actor.js';
import { userNotFound } from '../../domain/error-catalogue.js';
import type { ApiKeyRepository, KnownAddressRepository, KoboDeviceRepository, ProgressRepository, SyncDocumentRepository, UserRepository } from '../ports.js';
import type { Authority } from './authority.js';
import { requireUserAdmin } from './user-admin.js';

/** Deletes an account, its reading progress, KOReader positions, API keys, Kobo devices and known sign-in addresses (admin only); its tokens stop working at once; the last active admin stays. */
export class DeleteUser {
  constructor(
    private readonly users: UserRepository,
    private readonly progress: ProgressRepository,
    private readonly apiKeys: ApiKeyRepository,
    private readonly syncDocuments: SyncDocumentRepository,
    private readonly authority: Authority,
    private readonly knownAddresses: KnownAddressRepository,
    private readonly koboDevices: KoboDeviceRepository,
  ) {}

  async execute(actor: Actor, id: string): Promise<void> {
    requireUserAdmin(actor);
    requireUserAdmin((await this.authority.confirm(actor)).actor);
    if (!(await this.users.delete(id))) throw userNotFound(id);
    await this.progress.deleteForUser(id); // already gone on SQLite (ON DELETE CASCADE)
    await this.apiKeys.deleteForUser(id);
    await this.syncDocuments.deleteForUser(id); // already gone on SQLite (ON DELETE CASCADE)
    await this.knownAddresses.deleteForUser(id); // likewise
    await this.koboDevices.deleteForUser(id); // with their archived books
  }
}

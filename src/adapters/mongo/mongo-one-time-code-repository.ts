import type { Collection, Db } from 'mongodb';
import type { OneTimeCodeRepository } from '../../application/ports.js';

interface OneTimeCodeDocument {
  _id: string;
  value: string;
  expiresAt: Date;
}

/** OneTimeCodeRepository on MongoDB; `take` is one `findOneAndDelete`, so a code is taken once across instances. */
export class MongoOneTimeCodeRepository implements OneTimeCodeRepository {
  private readonly codes: Collection<OneTimeCodeDocument>;

  constructor(db: Db) {
    this.codes = db.collection<OneTimeCodeDocument>('one_time_codes');
  }

  async put(key: string, value: string, expiresAt: Date): Promise<void> {
    await this.codes.replaceOne({ _id: String(key) }, { value: String(value), expiresAt: new Date(expiresAt.getTime()) }, { upsert: true });
  }

  async take(key: string, now: Date): Promise<string | null> {
    const taken = await this.codes.findOneAndDelete({ _id: String(key) });
    return taken && taken.expiresAt.getTime() > now.getTime() ? taken.value : null;
  }

  async purgeExpired(now: Date): Promise<number> {
    return (await this.codes.deleteMany({ expiresAt: { $lte: new Date(now.getTime()) } })).deletedCount;
  }
}

import { KEPUB_CONVERTER_VERSION } from '../adapters/metadata/kepub-version.js';
import type { CoverResizer, KepubConverter, MetadataReader, PasswordHasher } from '../application/ports.js';

/** An adapter built on first use, so its module and threads cost nothing before the server listens. */
class Deferred<T extends { close(): Promise<void> }> {
  private value: Promise<T> | null = null;
  private closed = false;

  constructor(private readonly build: () => Promise<T>) {}

  get(): Promise<T> {
    if (this.closed) return Promise.reject(new Error('closed'));
    return (this.value ??= this.build());
  }

  async close(): Promise<void> {
    this.closed = true;
    const value = await this.value?.catch(() => null);
    await value?.close();
  }
}

/**
 * The password hasher (bcrypt worker threads), started by the first password. That first password
 * waits for the dummy hash too, so it takes one comparison whether the account exists or not, as every
 * later one does.
 */
export function deferredPasswordHasher(cost: number): PasswordHasher & { close(): Promise<void> } {
  const hasher = new Deferred(async () => {
    const { BcryptPasswordHasher } = await import('../adapters/identity/bcrypt-password-hasher.js');
    const started = new BcryptPasswordHasher({ cost });
    await started.ready().catch(() => undefined); // a failed dummy hash surfaces at verify, as before
    return started;
  });
  return {
    hash: async (password) => (await hasher.get()).hash(password),
    verify: async (password, hash) => (await hasher.get()).verify(password, hash),
    close: () => hasher.close(),
  };
}

/** The metadata reader (its module and worker pool), loaded at the first upload. */
export function deferredMetadataReader(): MetadataReader & { close(): Promise<void> } {
  const reader = new Deferred(async () => {
    const { SafeMetadataReader } = await import('../adapters/metadata/safe-metadata-reader.js');
    return new SafeMetadataReader();
  });
  return {
    read: async (file) => (await reader.get()).read(file),
    close: () => reader.close(),
  };
}

/** The KEPUB converter (its module and worker pool), loaded at the first conversion. */
export function deferredKepubConverter(): KepubConverter & { close(): Promise<void> } {
  const converter = new Deferred(async () => {
    const { SafeKepubConverter } = await import('../adapters/metadata/safe-kepub-converter.js');
    return new SafeKepubConverter();
  });
  return {
    version: KEPUB_CONVERTER_VERSION,
    convert: async (source) => (await converter.get()).convert(source),
    close: () => converter.close(),
  };
}

/** The cover resizer (sharp and libvips), loaded at the first cover resized. */
export function deferredCoverResizer(): CoverResizer {
  let resizer: Promise<CoverResizer> | null = null;
  return {
    resize: async (image, size) => {
      resizer ??= import('../adapters/images/sharp-cover-resizer.js').then(({ SharpCoverResizer }) => new SharpCoverResizer());
      return (await resizer).resize(image, size);
    },
  };
}

/**
 * The key provider port of envelope encryption: it issues data keys (plaintext for this
 * process, wrapped for storage) and unwraps stored ones. Adapters: the data dir's key file
 * ({@link LocalKeyFileProvider}) and the bridge's KMS key ({@link KmsDataKeyProvider}).
 */
export interface DataKeyProvider {
  /** A fresh 32-byte data key and its wrapped form. `context` is bound to the wrapping. */
  generateDataKey(context: Record<string, string>): Promise<DataKey>;
  /** The plaintext of a wrapped data key; throws when it was tampered with or the context differs. */
  decryptDataKey(wrappedKey: string, context: Record<string, string>): Promise<Buffer>;
}

/** A data key: its plaintext (32 bytes, AES-256) and its wrapped form (base64). */
export interface DataKey {
  plaintext: Buffer;
  wrappedKey: string;
}

/** The encryption context every connection data key is wrapped under. */
export const CONNECTION_KEY_CONTEXT: Readonly<Record<string, string>> = {
  purpose: 'change-bridge connection access tokens',
};

/**
 * Caches one generated data key for sealing and every unwrapped key for opening, for the
 * life of the wrapper: build one per Lambda invocation (or per local run), so adding 100
 * connections costs one GenerateDataKey and polling 1,000 costs one Decrypt per distinct key.
 */
export class CachingDataKeyProvider implements DataKeyProvider {
  private generated: Promise<DataKey> | undefined;
  private readonly unwrapped = new Map<string, Promise<Buffer>>();

  constructor(private readonly inner: DataKeyProvider) {}

  generateDataKey(context: Record<string, string>): Promise<DataKey> {
    this.generated ??= this.inner.generateDataKey(context).then((key) => {
      this.unwrapped.set(key.wrappedKey, Promise.resolve(key.plaintext));
      return key;
    });
    this.generated.catch(() => {
      this.generated = undefined;
    });
    return this.generated;
  }

  decryptDataKey(wrappedKey: string, context: Record<string, string>): Promise<Buffer> {
    let key = this.unwrapped.get(wrappedKey);
    if (!key) {
      key = this.inner.decryptDataKey(wrappedKey, context);
      key.catch(() => this.unwrapped.delete(wrappedKey));
      this.unwrapped.set(wrappedKey, key);
    }
    return key;
  }
}

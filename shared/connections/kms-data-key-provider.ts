import { BridgeError } from '../errors.ts';
import type { DataKey, DataKeyProvider } from './data-key-provider.ts';
import { TokenDecryptionError } from './token-cipher.ts';

/**
 * The two KMS calls envelope encryption needs, in the shape of the AWS SDK v3 aggregated
 * client: `new KMS({})` from `@aws-sdk/client-kms` satisfies it as it is.
 */
export interface KmsDataKeyApi {
  generateDataKey(input: {
    KeyId: string;
    KeySpec: 'AES_256';
    EncryptionContext: Record<string, string>;
  }): Promise<{ Plaintext?: Uint8Array; CiphertextBlob?: Uint8Array }>;
  decrypt(input: {
    KeyId: string;
    CiphertextBlob: Uint8Array;
    EncryptionContext: Record<string, string>;
  }): Promise<{ Plaintext?: Uint8Array }>;
}

/**
 * Data keys from the bridge's KMS key: GenerateDataKey (AES_256) to seal, Decrypt to open,
 * both under an encryption context (KMS refuses a Decrypt whose context differs). Wrap it in
 * CachingDataKeyProvider: one GenerateDataKey per invocation, one Decrypt per distinct key.
 */
export class KmsDataKeyProvider implements DataKeyProvider {
  constructor(
    private readonly kms: KmsDataKeyApi,
    private readonly keyId: string,
  ) {}

  async generateDataKey(context: Record<string, string>): Promise<DataKey> {
    const output = await this.kms.generateDataKey({
      KeyId: this.keyId,
      KeySpec: 'AES_256',
      EncryptionContext: context,
    });
    if (!output.Plaintext || !output.CiphertextBlob) {
      throw new BridgeError(`KMS GenerateDataKey on ${this.keyId} returned no key`, {
        retryable: true,
      });
    }
    return {
      plaintext: Buffer.from(output.Plaintext),
      wrappedKey: Buffer.from(output.CiphertextBlob).toString('base64'),
    };
  }

  async decryptDataKey(wrappedKey: string, context: Record<string, string>): Promise<Buffer> {
    let output: { Plaintext?: Uint8Array };
    try {
      output = await this.kms.decrypt({
        KeyId: this.keyId,
        CiphertextBlob: Buffer.from(wrappedKey, 'base64'),
        EncryptionContext: context,
      });
    } catch (error) {
      if ((error as { name?: string }).name === 'InvalidCiphertextException') {
        throw new TokenDecryptionError('KMS refused the wrapped data key', { cause: error });
      }
      throw new BridgeError(`KMS Decrypt on ${this.keyId} failed`, {
        cause: error,
        retryable: true,
      });
    }
    if (!output.Plaintext) {
      throw new BridgeError(`KMS Decrypt on ${this.keyId} returned no key`, { retryable: true });
    }
    return Buffer.from(output.Plaintext);
  }
}

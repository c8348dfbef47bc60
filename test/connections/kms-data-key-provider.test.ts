import { describe, expect, it } from 'vitest';
import {
  type KmsDataKeyApi,
  KmsDataKeyProvider,
} from '../../shared/connections/kms-data-key-provider.ts';
import { createTokenCipher, TokenDecryptionError } from '../../shared/connections/token-cipher.ts';

/** A KMS stand-in that records its inputs and wraps keys by XOR (enough to round-trip). */
function fakeKms() {
  const inputs: { op: string; input: unknown }[] = [];
  const kms: KmsDataKeyApi = {
    async generateDataKey(input) {
      inputs.push({ op: 'GenerateDataKey', input });
      const plaintext = Buffer.alloc(32, 3);
      return { Plaintext: plaintext, CiphertextBlob: plaintext.map((b) => b ^ 0xff) };
    },
    async decrypt(input) {
      inputs.push({ op: 'Decrypt', input });
      if (input.CiphertextBlob.length !== 32) {
        throw Object.assign(new Error('bad blob'), { name: 'InvalidCiphertextException' });
      }
      return { Plaintext: Buffer.from(input.CiphertextBlob).map((b) => b ^ 0xff) };
    },
  };
  return { kms, inputs };
}

describe('KmsDataKeyProvider', () => {
  it('asks KMS for an AES_256 data key under the bridge key and an encryption context, and opens it with Decrypt', async () => {
    const { kms, inputs } = fakeKms();
    const cipher = createTokenCipher(new KmsDataKeyProvider(kms, 'alias/change-bridge'));
    const sealed = await cipher.seal('hotel-1', 'token-1');

    expect(await cipher.open('hotel-1', sealed)).toBe('token-1');
    expect(inputs[0]).toMatchObject({
      op: 'GenerateDataKey',
      input: {
        KeyId: 'alias/change-bridge',
        KeySpec: 'AES_256',
        EncryptionContext: { purpose: expect.any(String) },
      },
    });
    expect(inputs[1]).toMatchObject({ op: 'Decrypt', input: { KeyId: 'alias/change-bridge' } });
  });

  it('reports a wrapped key KMS refuses as a TokenDecryptionError', async () => {
    const { kms } = fakeKms();
    const cipher = createTokenCipher(new KmsDataKeyProvider(kms, 'k'));
    const sealed = await cipher.seal('hotel-1', 'token-1');

    await expect(cipher.open('hotel-1', { ...sealed, wrappedKey: 'AAAA' })).rejects.toBeInstanceOf(
      TokenDecryptionError,
    );
  });
});

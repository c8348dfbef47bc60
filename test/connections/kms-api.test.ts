import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createKmsDataKeyApi } from '../../functions/kms-api.ts';
import { KmsDataKeyProvider } from '../../shared/connections/kms-data-key-provider.ts';
import { createTokenCipher, TokenDecryptionError } from '../../shared/connections/token-cipher.ts';

const KEY_ARN = 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const kms = mockClient(KMSClient);
// The mock patches the client class for the whole worker: undone when this file ends.
afterAll(() => kms.restore());

afterEach(() => kms.reset());

describe('the KMS client of the functions (@aws-sdk/client-kms)', () => {
  it('seals with one GenerateDataKey and opens with Decrypt of the same wrapped key and context', async () => {
    const plaintext = new Uint8Array(32).fill(7);
    const wrapped = new Uint8Array([1, 2, 3, 4]);
    kms.on(GenerateDataKeyCommand).resolves({ Plaintext: plaintext, CiphertextBlob: wrapped });
    kms.on(DecryptCommand).resolves({ Plaintext: plaintext });
    const cipher = createTokenCipher(new KmsDataKeyProvider(createKmsDataKeyApi(), KEY_ARN));

    const sealed = await cipher.seal('hotel-1', 'secret-token');
    expect(JSON.stringify(sealed)).not.toContain('secret-token');
    expect(await cipher.open('hotel-1', sealed)).toBe('secret-token');

    const [generate] = kms.commandCalls(GenerateDataKeyCommand);
    expect(generate!.args[0].input).toMatchObject({ KeyId: KEY_ARN, KeySpec: 'AES_256' });
    const [decrypt] = kms.commandCalls(DecryptCommand);
    expect(decrypt!.args[0].input.KeyId).toBe(KEY_ARN);
    expect(Buffer.from(decrypt!.args[0].input.CiphertextBlob!)).toEqual(Buffer.from(wrapped));
    expect(decrypt!.args[0].input.EncryptionContext).toEqual(
      generate!.args[0].input.EncryptionContext,
    );
  });

  it('reports a wrapped key KMS refuses as a token that cannot be opened', async () => {
    kms.on(GenerateDataKeyCommand).resolves({
      Plaintext: new Uint8Array(32).fill(1),
      CiphertextBlob: new Uint8Array([9]),
    });
    kms
      .on(DecryptCommand)
      .rejects(Object.assign(new Error('bad'), { name: 'InvalidCiphertextException' }));
    const cipher = createTokenCipher(new KmsDataKeyProvider(createKmsDataKeyApi(), KEY_ARN));
    const sealed = await cipher.seal('hotel-1', 'secret-token');

    await expect(cipher.open('hotel-1', sealed)).rejects.toBeInstanceOf(TokenDecryptionError);
  });
});

import { KMS } from '@aws-sdk/client-kms';
import type { KmsDataKeyApi } from '../shared/connections/kms-data-key-provider.ts';

/**
 * The KMS client for envelope encryption of stored AccessTokens (`GenerateDataKey` to seal,
 * `Decrypt` to open). Created on first use, so functions that never open a token never make one.
 * @example new KmsDataKeyProvider(createKmsDataKeyApi(), process.env.CONNECTION_TOKEN_KEY_ARN!)
 */
export function createKmsDataKeyApi(): KmsDataKeyApi {
  return new KMS({});
}

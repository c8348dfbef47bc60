import { createRequire } from 'node:module';
import { z } from 'zod';
import type { KmsDataKeyApi } from '../shared/connections/kms-data-key-provider.ts';
import { BridgeError } from '../shared/errors.ts';

/** The SDK package of KMS: not yet a dependency of this build (see README, Connections). */
const KMS_PACKAGE = '@aws-sdk/client-kms';

const KmsModuleSchema = z.object({
  KMS: z.custom<new (config: object) => KmsDataKeyApi>((value) => typeof value === 'function'),
});

/**
 * The KMS client for envelope encryption of stored AccessTokens. `@aws-sdk/client-kms` is
 * loaded at run time from the Lambda Node.js runtime's own AWS SDK (it is not bundled, as it
 * is not installed here); once it is a dependency, replace this with `new KMS({})` from a
 * static import. Called on first use, so functions that never open a token never load it.
 * @throws BridgeError naming the package when it cannot be loaded.
 */
export function createKmsDataKeyApi(): KmsDataKeyApi {
  let loaded: unknown;
  try {
    loaded = createRequire(import.meta.url)(KMS_PACKAGE);
  } catch (error) {
    throw new BridgeError(`${KMS_PACKAGE} is not available: install it to open connection tokens`, {
      cause: error,
    });
  }
  const { KMS } = KmsModuleSchema.parse(loaded);
  return new KMS({});
}
